import type { PlanDecision } from '../../../../src/core/plan/plan-decision.js';
import type { PlanErrorRecord } from '../../../../src/core/plan/error-record.js';
import type { PlanPhase, PlanState } from '../../../../src/core/plan/plan.js';

/** A plan on the wire (`GET /v1/plans/ID/errors`' `plan`): snake_case, times ISO-8601 UTC. */
export interface PlanDoc {
  readonly id: string;
  readonly phase: PlanPhase;
  readonly state: PlanState;
  readonly recovery: {
    readonly auto_retry_threshold: number;
    readonly max_retries: number;
    readonly subplan: boolean;
  };
  readonly revision: number;
  readonly created_at: string;
  readonly updated_at: string;
}

/** `GET /v1/plans/ID/errors`: what `recourse errors PLAN_ID` shows. */
export interface PlanErrorsDoc {
  readonly plan: PlanDoc;
  readonly errors: readonly PlanErrorRecord[];
  readonly decision: PlanDecision;
}

/** One row of `GET /v1/plans`. */
export interface PlanRow {
  readonly id: string;
  readonly phase: PlanPhase;
  readonly state: PlanState;
  readonly error_count: number;
  readonly last_error_at: string | null;
  readonly updated_at: string;
}
