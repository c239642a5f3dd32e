import type { PlanErrorCategory } from './categories.js';
import type { PlanErrorRecord } from './error-record.js';

/**
 * A plan's error history: append-only, chronological. A pure value here; the store persists it so it
 * survives restarts (where the seed's in-memory history does not).
 */
export interface PlanErrorHistory {
  readonly plan_id: string;
  readonly records: readonly PlanErrorRecord[];
}

export function emptyHistory(planId: string): PlanErrorHistory {
  return { plan_id: planId, records: [] };
}

export function appendPlanError(history: PlanErrorHistory, record: PlanErrorRecord): PlanErrorHistory {
  return { plan_id: history.plan_id, records: Object.freeze([...history.records, record]) };
}

/**
 * Retries already attempted for `phase`: the errors recorded for it since the phase last succeeded
 * (`since`, an index into the records; 0 when it never did).
 */
export function retriesAttempted(history: PlanErrorHistory, phase: string, since = 0): number {
  return history.records.slice(since).filter((r) => r.phase === phase).length;
}

export interface PlanErrorSummary {
  readonly plan_id: string;
  readonly total_errors: number;
  readonly by_category: Partial<Record<PlanErrorCategory, number>>;
  readonly retry_counts: readonly number[];
  readonly records: readonly PlanErrorRecord[];
}

/** Total count, category breakdown, the retry count of each error and the records in order with their hints. */
export function summarizeHistory(history: PlanErrorHistory): PlanErrorSummary {
  const byCategory: Partial<Record<PlanErrorCategory, number>> = {};
  for (const r of history.records) byCategory[r.category] = (byCategory[r.category] ?? 0) + 1;
  return {
    plan_id: history.plan_id,
    total_errors: history.records.length,
    by_category: byCategory,
    retry_counts: history.records.map((r) => r.retry_count),
    records: history.records,
  };
}

/** The latest error, or null when none was recorded. */
export function latestError(history: PlanErrorHistory): PlanErrorRecord | null {
  return history.records.at(-1) ?? null;
}

/** Retries automatically: an error is recorded and its verdict is `retry` (REQUIREMENTS PLN-42, PLN-43). */
export function shouldRetryPlan(history: PlanErrorHistory): boolean {
  return latestError(history)?.verdict === 'retry';
}

/** Goes to a human with recovery hints: an error is recorded and it is not retried. */
export function shouldEscalatePlan(history: PlanErrorHistory): boolean {
  const latest = latestError(history);
  return latest !== null && latest.verdict !== 'retry';
}

/** The escalation message of exhausted retries (REQUIREMENTS PLN-25 decision). */
export function exhaustedMessage(record: PlanErrorRecord): string {
  return `Retries exhausted after ${record.retry_count} of ${record.max_retries} attempts: ${record.category} error in ${record.phase}.`;
}
