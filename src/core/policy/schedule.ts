import { policyLimits } from './limits.js';
import type { ClassPolicy, ExhaustedOutcome, PolicyDocument } from './policy-document.js';

/**
 * The delay before retry number `ordinal` (1 = the first retry), in seconds: the initial interval doubled for
 * each earlier retry, clamped to 24 hours. Safe for any ordinal: the exponent is bounded before it is used.
 */
export function retryDelaySeconds(initialIntervalSeconds: number, ordinal: number): number {
  const cap = policyLimits.delayCapSeconds;
  const exponent = Math.max(0, Math.floor(ordinal) - 1);
  // 2^17 > 86,400: any exponent past 30 is at the cap for every valid interval, so never compute 2^huge.
  if (!Number.isFinite(exponent) || exponent > 30) return cap;
  return Math.min(cap, initialIntervalSeconds * 2 ** exponent);
}

/** What one class of a policy implies, as the UI and `recourse policy preview` show it. */
export interface ClassSchedule {
  /** The delay before each retry, in order; empty when retry is disabled. */
  readonly delays_seconds: readonly number[];
  /** The longest future reset waited for; 0 when reset waiting is disabled. */
  readonly max_wait_seconds: number;
  readonly on_exhausted: ExhaustedOutcome;
}

export function classSchedule(policy: ClassPolicy): ClassSchedule {
  const delays: number[] = [];
  if (policy.retry.enabled) {
    for (let ordinal = 1; ordinal <= policy.retry.max_retries; ordinal++) {
      delays.push(retryDelaySeconds(policy.retry.initial_interval_seconds, ordinal));
    }
  }
  return {
    delays_seconds: delays,
    max_wait_seconds: policy.wait_for_reset.enabled ? policy.wait_for_reset.max_wait_seconds : 0,
    on_exhausted: policy.on_exhausted,
  };
}

/** The schedule each class of a normalized document implies. */
export function previewSchedule(document: PolicyDocument): {
  readonly transient: ClassSchedule;
  readonly hard: ClassSchedule;
} {
  return { transient: classSchedule(document.transient), hard: classSchedule(document.hard) };
}
