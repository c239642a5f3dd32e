import type { PolicyDocument } from './policy-document.js';
import { nothingConfigured, rulesOfPolicy, type ClassRules, type RecoveryRules } from './recovery-rules.js';
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

/**
 * What set a wait's length: the policy's schedule (the doubling backoff, or the concrete-profile entry's table), or
 * the provider's validated hint (its Retry-After, or a reset time), which the attempt history shows beside it.
 */
export type DelaySource = 'policy' | 'retry_after' | 'reset_at';

/** A tagged decision; times are absolute epoch ms. */
export type PolicyDecision =
  | {
      readonly kind: 'wait_for_reset';
      readonly class: PolicyClass;
      readonly deadlineMs: number;
      readonly delaySource: DelaySource;
    }
  | {
      readonly kind: 'retry';
      readonly class: PolicyClass;
      readonly deadlineMs: number;
      /** 1 for the first retry of this candidate and class in the cycle. */
      readonly ordinal: number;
      readonly delaySeconds: number;
      readonly maxRetries: number;
      readonly delaySource: DelaySource;
    }
  | { readonly kind: 'skip'; readonly class: PolicyClass; readonly detail: string }
  | {
      readonly kind: 'stop';
      readonly class: PolicyClass;
      readonly reason: 'exhausted' | 'not_retriable';
      /** In words: what was used up, or that nothing (no retry, no reset waiting) was configured. */
      readonly detail: string;
    }
  | {
      readonly kind: 'reject';
      readonly reason: RejectReason;
      /** Why: the unsafe reason, the unclassified reason, or `stale`. */
      readonly detail: string;
    };

/**
 * Applies a candidate's policy document to a failure (REQUIREMENTS EVL-01 to EVL-18): `evaluateRules` with the
 * rules the document states.
 */
export function evaluate(
  failure: PolicyFailure,
  cycle: CandidateCycle,
  policy: PolicyDocument,
  nowMs: number,
): PolicyDecision {
  return evaluateRules(failure, cycle, rulesOfPolicy(policy), nowMs);
}

/**
 * The one evaluator every route goes through, in the seed's order exactly:
 *
 * 1. Reject stale, unclassified or effect-unsafe failures. No rule is read; nothing can override this.
 * 2. Wait for a reset when the class waits for resets, has not yet in this cycle, and the later of the validated
 *    `retry_after`/`reset_at` lies after `now` and no later than the maximum wait. A reset at or before `now` is
 *    ignored; one beyond the maximum is not shortened.
 * 3. Else retry while the budget lasts: the backoff's delay (a doubling one for a policy document, the table of
 *    the concrete-profile entry, whose trusted hints within its window replace the delay).
 * 4. Else the class's exhausted outcome.
 *
 * A wait and its one post-wait attempt consume no retry budget: only `retry` decisions count (the route adds
 * them to `retriesUsed`). Pure: the same inputs always give the same decision.
 */
export function evaluateRules(
  failure: PolicyFailure,
  cycle: CandidateCycle,
  rules: RecoveryRules,
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
  const classRules = rules[cls];
  const hint = latestHint(c);
  const ahead = hint === null ? null : hint - nowMs;
  const wait = classRules.resetWaitMaxSeconds;
  if (wait !== null && !cycle.resetWaitUsed[cls] && ahead !== null && ahead > 0 && ahead <= wait * 1000) {
    return { kind: 'wait_for_reset', class: cls, deadlineMs: hint!, delaySource: latestHintSource(c) };
  }
  const used = cycle.retriesUsed[cls];
  if (used < classRules.maxRetries) {
    const ordinal = used + 1;
    const window = classRules.hintReplacesDelayWithinSeconds;
    const hinted = window !== null && ahead !== null && ahead > 0 && ahead <= window * 1000;
    const delaySeconds = hinted ? Math.ceil(ahead / 1000) : backoffSeconds(classRules, ordinal);
    return {
      kind: 'retry',
      class: cls,
      deadlineMs: nowMs + delaySeconds * 1000,
      ordinal,
      delaySeconds,
      maxRetries: classRules.maxRetries,
      delaySource: hinted ? latestHintSource(c) : 'policy',
    };
  }
  const detail = exhaustedDetail(cls, classRules, used);
  return classRules.onExhausted === 'skip'
    ? { kind: 'skip', class: cls, detail }
    : { kind: 'stop', class: cls, reason: classRules.stopReason, detail };
}

/** The delay before retry `ordinal` (1-based), in seconds. */
export function backoffSeconds(rules: ClassRules, ordinal: number): number {
  const backoff = rules.backoff;
  if (backoff.kind === 'doubling') return retryDelaySeconds(backoff.initialSeconds, ordinal);
  const table = backoff.seconds;
  return table[Math.min(table.length, Math.max(1, ordinal)) - 1] ?? 0;
}

/** Why the class is exhausted, in words (EVL-05): what was used, or that nothing was configured. */
function exhaustedDetail(cls: PolicyClass, rules: ClassRules, used: number): string {
  if (rules.stopReason === 'not_retriable') return `${cls} failures are not retried automatically`;
  if (nothingConfigured(rules)) return `${cls} policy: no retry or reset wait is configured`;
  if (rules.maxRetries > 0) return `${cls} recovery exhausted after ${used} of ${rules.maxRetries} retries`;
  return `${cls} recovery exhausted: no trusted reset within the maximum wait`;
}

/** Which hint `latestHint` took: the later of the two (a tie is the reset time, the stronger statement). */
function latestHintSource(c: Classification): 'retry_after' | 'reset_at' {
  const retryAfter = c.retry_after === null ? null : parseIsoDateTime(c.retry_after);
  const resetAt = c.reset_at === null ? null : parseIsoDateTime(c.reset_at);
  if (resetAt === null) return 'retry_after';
  return retryAfter !== null && retryAfter > resetAt ? 'retry_after' : 'reset_at';
}

/** The later of the two validated hints (REQUIREMENTS EVL-02 decision), or null. */
export function latestHint(c: Classification): number | null {
  const times = [c.retry_after, c.reset_at]
    .map((t) => (t === null ? null : parseIsoDateTime(t)))
    .filter((t): t is number => t !== null);
  return times.length === 0 ? null : Math.max(...times);
}
