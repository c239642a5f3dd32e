import { exhaustedMessage, latestError, type PlanErrorHistory } from './error-history.js';
import type { PlanErrorRecord } from './error-record.js';
import type { RecoveryHint } from './recovery-actions.js';
import type { PlanRetryVerdict } from './recovery-policy.js';

/**
 * The retry decision for a plan's latest error (the seed's `should_retry` / `should_escalate`, PLN-42, PLN-43):
 * with no error recorded both are false. Wire-shaped (snake_case): the HTTP API and the CLI show it as it is.
 */
export interface PlanDecision {
  readonly should_retry: boolean;
  readonly should_escalate: boolean;
  readonly verdict: PlanRetryVerdict | null;
  /** Why automatic retry is not available, in words; null when it is, or when there is no error. */
  readonly reason: string | null;
  /** The escalation message of exhausted retries (PLN-25), else null. */
  readonly message: string | null;
  readonly retry_count: number | null;
  readonly max_retries: number | null;
  readonly hints: readonly RecoveryHint[];
}

/** The decision on the latest error of `history`. */
export function planDecisionOf(history: PlanErrorHistory): PlanDecision {
  const latest = latestError(history);
  if (latest === null) {
    return {
      should_retry: false,
      should_escalate: false,
      verdict: null,
      reason: null,
      message: null,
      retry_count: null,
      max_retries: null,
      hints: [],
    };
  }
  const retry = latest.verdict === 'retry';
  return {
    should_retry: retry,
    should_escalate: !retry,
    verdict: latest.verdict,
    reason: verdictReason(latest),
    message: latest.verdict === 'exhausted' ? exhaustedMessage(latest) : null,
    retry_count: latest.retry_count,
    max_retries: latest.max_retries,
    hints: latest.hints,
  };
}

/** Why a recorded error is not retried automatically (the CLI-11 decision's `<reason>`), or null when it is. */
export function verdictReason(record: PlanErrorRecord): string | null {
  switch (record.verdict) {
    case 'retry':
      return null;
    case 'not_retriable':
      return `${record.category} errors are not retried automatically`;
    case 'exhausted':
      return `retries exhausted after ${record.retry_count} of ${record.max_retries} attempts`;
    case 'human_threshold':
      return 'the automation threshold asks a person to decide';
    case 'read_only_phase':
      return 'strategize failures are not retried';
    default: {
      const unreachable: never = record.verdict;
      return unreachable;
    }
  }
}
