import type { ClassPolicy, PolicyDocument } from './policy-document.js';
import { retryDelaySeconds } from './schedule.js';
import type { PolicyClass } from '../catalogue/codes.js';
import type { Classification } from '../classify/classification.js';
import type { SafetyVerdict } from '../safety/safety-gate.js';
import { parseIsoDateTime } from '../time/iso-time.js';

/** A classified failure and the safety gate's verdict on its replay evidence. */
export interface PolicyFailure {
  readonly classification: Classification;
  readonly safety: SafetyVerdict;
}

/**
 * What the evaluator needs of the route: per class, for the current candidate in the current route cycle, how
 * many retries were already scheduled and whether reset waiting was used. The route engine keeps these.
 */
export interface CandidateCycle {
  readonly retriesUsed: Readonly<Record<PolicyClass, number>>;
  readonly resetWaitUsed: Readonly<Record<PolicyClass, boolean>>;
}

export const freshCycle: CandidateCycle = Object.freeze({
  retriesUsed: Object.freeze({ transient: 0, hard: 0 }),
  resetWaitUsed: Object.freeze({ transient: false, hard: false }),
});

export type RejectReason = 'stale' | 'unclassified' | 'unsafe';

/** A tagged decision; times are absolute epoch ms. */
export type PolicyDecision =
  | { readonly kind: 'wait_for_reset'; readonly class: PolicyClass; readonly deadlineMs: number }
  | {
      readonly kind: 'retry';
      readonly class: PolicyClass;
      readonly deadlineMs: number;
      /** 1 for the first retry of this candidate and class in the cycle. */
      readonly ordinal: number;
      readonly delaySeconds: number;
      readonly maxRetries: number;
    }
  | { readonly kind: 'skip'; readonly class: PolicyClass }
  | { readonly kind: 'stop'; readonly class: PolicyClass; readonly reason: 'exhausted' }
  | {
      readonly kind: 'reject';
      readonly reason: RejectReason;
      /** Why: the unsafe reason, the unclassified reason, or `stale`. */
      readonly detail: string;
    };

/**
 * Applies a candidate's policy to a failure, in the seed's order exactly (REQUIREMENTS EVL-01 to EVL-18):
 *
 * 1. Reject stale, unclassified or effect-unsafe failures. No policy field is read; nothing can override this.
 * 2. Wait for a reset when enabled, not yet used for this candidate and class in the cycle, and the later of the
 *    validated `retry_after`/`reset_at` lies after `now` and no later than `max_wait_seconds` from it. A reset at
 *    or before `now` is ignored; one beyond the maximum is not shortened.
 * 3. Else retry while the budget lasts: the first delay is the initial interval, each later one doubles (24 h cap).
 * 4. Else `on_exhausted`.
 *
 * A wait and its one post-wait attempt consume no retry budget: only `retry` decisions count (the engine adds
 * them to `retriesUsed`). Pure: the same inputs always give the same decision.
 */
export function evaluate(
  failure: PolicyFailure,
  cycle: CandidateCycle,
  policy: PolicyDocument,
  nowMs: number,
): PolicyDecision {
  const c = failure.classification;
  if (c.class === 'unclassified' && c.reason === 'stale')
    return { kind: 'reject', reason: 'stale', detail: 'stale evidence' };
  if (!failure.safety.safe && failure.safety.reason === 'stale')
    return { kind: 'reject', reason: 'stale', detail: 'stale' };
  if (c.class === 'unclassified')
    return { kind: 'reject', reason: 'unclassified', detail: c.reason ?? 'unknown' };
  if (!failure.safety.safe) return { kind: 'reject', reason: 'unsafe', detail: failure.safety.reason };

  const cls = c.class;
  const classPolicy: ClassPolicy = policy[cls];
  const wait = classPolicy.wait_for_reset;
  if (wait.enabled && !cycle.resetWaitUsed[cls]) {
    const hint = latestHint(c);
    if (hint !== null && hint > nowMs && hint - nowMs <= wait.max_wait_seconds * 1000) {
      return { kind: 'wait_for_reset', class: cls, deadlineMs: hint };
    }
  }
  const retry = classPolicy.retry;
  const used = cycle.retriesUsed[cls];
  if (retry.enabled && used < retry.max_retries) {
    const ordinal = used + 1;
    const delaySeconds = retryDelaySeconds(retry.initial_interval_seconds, ordinal);
    return {
      kind: 'retry',
      class: cls,
      deadlineMs: nowMs + delaySeconds * 1000,
      ordinal,
      delaySeconds,
      maxRetries: retry.max_retries,
    };
  }
  return classPolicy.on_exhausted === 'skip'
    ? { kind: 'skip', class: cls }
    : { kind: 'stop', class: cls, reason: 'exhausted' };
}

/** The later of the two validated hints (REQUIREMENTS EVL-02 decision), or null. */
function latestHint(c: Classification): number | null {
  const times = [c.retry_after, c.reset_at]
    .map((t) => (t === null ? null : parseIsoDateTime(t)))
    .filter((t): t is number => t !== null);
  return times.length === 0 ? null : Math.max(...times);
}
