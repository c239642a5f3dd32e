import {
  formatIsoUtc,
  type Plan,
  type PlanDecision,
  type PlanErrorCategory,
  type PlanErrorRecord,
  type PlanPhase,
  type PlanState,
} from '../core/index.js';

/** A plan on the wire (HTTP answers, events, `recourse errors --format json`): snake_case, times ISO-8601 UTC. */
export interface PlanJson {
  readonly id: string;
  readonly phase: PlanPhase;
  readonly state: PlanState;
  readonly recovery: {
    readonly auto_retry_threshold: number;
    readonly max_retries: number;
    readonly subplan: boolean;
  };
  readonly error_details: Readonly<Record<string, string>>;
  readonly revision: number;
  readonly created_at: string;
  readonly updated_at: string;
}

/** `GET /v1/plans/{id}/errors`: the plan, its whole error history oldest first, a summary, and the decision. */
export interface PlanErrorsDocument {
  readonly plan: PlanJson;
  readonly errors: readonly PlanErrorRecord[];
  readonly summary: {
    readonly total_errors: number;
    readonly by_category: Partial<Record<PlanErrorCategory, number>>;
    readonly retry_counts: readonly number[];
  };
  readonly decision: PlanDecision;
}

export function planJson(plan: Plan): PlanJson {
  return {
    id: plan.id,
    phase: plan.phase,
    state: plan.state,
    recovery: {
      auto_retry_threshold: plan.recovery.autoRetryThreshold,
      max_retries: plan.recovery.maxRetries,
      subplan: plan.recovery.subplan,
    },
    error_details: plan.errorDetails,
    revision: plan.revision,
    created_at: formatIsoUtc(plan.createdAtMs),
    updated_at: formatIsoUtc(plan.updatedAtMs),
  };
}
