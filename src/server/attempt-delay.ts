import {
  parseIsoDateTime,
  retryDelaySeconds,
  type DelaySource,
  type FailureSummary,
  type StoredAttempt,
} from '../core/index.js';

/**
 * An attempt's delay in whole seconds and its source: as recorded with the decision (since migration 0007). An
 * older row does not say which input set its deadline, so for it the source is derived: a deadline at the route's last failure's `retry_after` or `reset_at` (within the second the engine
 * rounds up to) came from that hint; a retry whose delay is the policy's doubling schedule for its ordinal came
 * from the policy; anything else (an older attempt whose hint is no longer stored, the concrete-profile table's
 * entries, which keep no policy snapshot) is `null` rather than a guess.
 */
export function attemptDelay(
  attempt: StoredAttempt,
  lastFailure: FailureSummary | null,
): { readonly delay_seconds: number | null; readonly delay_source: DelaySource | null } {
  if (attempt.deadlineMs === null) return { delay_seconds: null, delay_source: null };
  const deadline = attempt.deadlineMs;
  const delaySeconds = Math.max(0, Math.ceil((deadline - attempt.atMs) / 1000));
  // Recorded when the decision was made (migration 0007); rows written before it fall back to the derivation.
  if (attempt.delaySource !== null) return { delay_seconds: delaySeconds, delay_source: attempt.delaySource };
  const at = (iso: string | null) => (iso === null ? null : parseIsoDateTime(iso));
  const near = (hint: number | null) => hint !== null && deadline >= hint && deadline - hint < 1000;
  if (near(at(lastFailure?.reset_at ?? null)))
    return { delay_seconds: delaySeconds, delay_source: 'reset_at' };
  if (near(at(lastFailure?.retry_after ?? null))) {
    return { delay_seconds: delaySeconds, delay_source: 'retry_after' };
  }
  const policy = attempt.policySnapshot;
  const scheduled =
    attempt.decision === 'retry' && policy !== null && attempt.retryOrdinal !== null
      ? retryDelaySeconds(policy.retry.initial_interval_seconds, attempt.retryOrdinal)
      : null;
  return { delay_seconds: delaySeconds, delay_source: scheduled === delaySeconds ? 'policy' : null };
}
