import { retriableCategories, type PlanErrorCategory } from './categories.js';
import type { Validated } from '../policy/validate-policy.js';
import { describe, type FieldIssue } from '../validation/field-issue.js';

/**
 * The plan retry policy (seed 004, `ErrorRecoveryPolicy(auto_retry_threshold, max_retries)`).
 * `maxRetries` counts attempts after the first: with 3, a phase runs at most 4 times.
 */
export interface ErrorRecoveryPolicy {
  /** From the automation profile's `modify_config` threshold: 0.0 retries automatically, 1.0 always asks a human. */
  readonly autoRetryThreshold: number;
  readonly maxRetries: number;
}

export const planRetryLimits = { defaultMaxRetries: 3, maxRetries: 10, subplanMaxRetries: 5 } as const;

/** Builds a policy, checking the threshold (0 to 1) and the retry limit (0-10, subplans 0-5). */
export function createErrorRecoveryPolicy(options: {
  readonly autoRetryThreshold?: unknown;
  readonly maxRetries?: unknown;
  readonly subplan?: boolean;
}): Validated<ErrorRecoveryPolicy> {
  const issues: FieldIssue[] = [];
  const threshold = options.autoRetryThreshold ?? 0;
  if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    issues.push({
      path: '/auto_retry_threshold',
      message: `auto_retry_threshold must be a number from 0.0 to 1.0 (got ${describe(threshold)})`,
    });
  }
  const limit = options.subplan ? planRetryLimits.subplanMaxRetries : planRetryLimits.maxRetries;
  const maxRetries = options.maxRetries ?? planRetryLimits.defaultMaxRetries;
  if (
    typeof maxRetries !== 'number' ||
    !Number.isInteger(maxRetries) ||
    maxRetries < 0 ||
    maxRetries > limit
  ) {
    issues.push({
      path: '/max_retries',
      message: `max_retries must be an integer from 0 to ${limit}${options.subplan ? ' for a subplan' : ''} (got ${describe(maxRetries)})`,
    });
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { autoRetryThreshold: threshold as number, maxRetries: maxRetries as number } };
}

/** `read_only_phase`: a strategize failure, which is never retried (PLN-36; set when the error is recorded). */
export type PlanRetryVerdict =
  'retry' | 'not_retriable' | 'exhausted' | 'human_threshold' | 'read_only_phase';

/**
 * The seed's decision flow: a non-retriable category escalates at once; a retriable one escalates when its
 * retries are used up, or when the threshold asks for a human (1.0); otherwise it is retried automatically.
 */
export function planRetryVerdict(
  policy: ErrorRecoveryPolicy,
  category: PlanErrorCategory,
  retryCount: number,
): PlanRetryVerdict {
  if (!retriableCategories[category]) return 'not_retriable';
  if (retryCount >= policy.maxRetries) return 'exhausted';
  if (policy.autoRetryThreshold >= 1) return 'human_threshold';
  return 'retry';
}

export function shouldRetryPlanError(
  policy: ErrorRecoveryPolicy,
  record: { category: PlanErrorCategory; retryCount: number },
): boolean {
  return planRetryVerdict(policy, record.category, record.retryCount) === 'retry';
}
