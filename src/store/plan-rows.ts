import type { Plan, PlanPhase, PlanState } from '../core/index.js';
import type { PlanRow } from './schema.js';

/** Plan rows to plans and back, shared by every adapter (the columns are the same on SQLite and PostgreSQL). */
export function planOfRow(row: PlanRow): Plan {
  return {
    id: row.id,
    phase: row.phase as PlanPhase,
    state: row.state as PlanState,
    recovery: {
      autoRetryThreshold: row.auto_retry_threshold,
      maxRetries: row.max_retries,
      subplan: row.subplan === 1,
    },
    errorDetails: JSON.parse(row.error_details) as Record<string, string>,
    retrySince: row.retry_since,
    revision: row.revision,
    createdAtMs: row.created_at_ms,
    updatedAtMs: row.updated_at_ms,
  };
}

export function planToRow(plan: Plan): PlanRow {
  return {
    id: plan.id,
    phase: plan.phase,
    state: plan.state,
    auto_retry_threshold: plan.recovery.autoRetryThreshold,
    max_retries: plan.recovery.maxRetries,
    subplan: plan.recovery.subplan ? 1 : 0,
    error_details: JSON.stringify(plan.errorDetails),
    retry_since: plan.retrySince,
    revision: plan.revision,
    created_at_ms: plan.createdAtMs,
    updated_at_ms: plan.updatedAtMs,
  };
}

/** The columns in write order, typed against the schema. */
export const planColumns = [
  'id',
  'phase',
  'state',
  'auto_retry_threshold',
  'max_retries',
  'subplan',
  'error_details',
  'retry_since',
  'revision',
  'created_at_ms',
  'updated_at_ms',
] as const satisfies readonly (keyof PlanRow)[];
