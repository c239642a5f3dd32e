import type { ErrorRecoveryPolicy } from './recovery-policy.js';

/** The phases of a plan run (seed 004), in order. */
export const planPhases = ['strategize', 'execute', 'apply'] as const;
export type PlanPhase = (typeof planPhases)[number];

/**
 * Where a plan stands: `running` (its phase is in progress or about to run again), `errored` (a failure escalated:
 * it waits for a person's recovery action), `completed` (apply succeeded) and `cancelled`. Readable strings,
 * persisted as they are.
 */
export const planStates = ['running', 'errored', 'completed', 'cancelled'] as const;
export type PlanState = (typeof planStates)[number];

/** A plan's retry policy as configured (`PUT /v1/plans/{id}`): the threshold, the limit, and whether it is a subplan. */
export interface PlanRecoveryConfig extends ErrorRecoveryPolicy {
  /** A subplan's `max_retries` is at most 5 (`SubplanConfig.max_retries`, PLN-24). */
  readonly subplan: boolean;
}

/** The durable state of one plan. Times are epoch ms (UTC). */
export interface Plan {
  readonly id: string;
  readonly phase: PlanPhase;
  readonly state: PlanState;
  readonly recovery: PlanRecoveryConfig;
  /** The seed's `error_details`: string values only, merged key by key, never replaced wholesale (PLN-32, PLN-33). */
  readonly errorDetails: Readonly<Record<string, string>>;
  /**
   * How many of the plan's errors were recorded before the current retry budget began: the budget restarts when a
   * phase completes or a person resumes the plan, so earlier errors stay in the history but count no more.
   */
  readonly retrySince: number;
  /** Increases by one with every write: the fence of the next write. */
  readonly revision: number;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

/** A new plan, at the start of strategize. */
export function newPlan(id: string, recovery: PlanRecoveryConfig, nowMs: number): Plan {
  return {
    id,
    phase: 'strategize',
    state: 'running',
    recovery,
    errorDetails: {},
    retrySince: 0,
    revision: 1,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
  };
}

/** The same plan, one revision on, changed by `change`. */
export function revise(plan: Plan, change: Partial<Omit<Plan, 'id' | 'createdAtMs'>>, nowMs: number): Plan {
  return { ...plan, ...change, revision: plan.revision + 1, updatedAtMs: Math.max(nowMs, plan.updatedAtMs) };
}

/**
 * Merges structured metadata into `error_details` (the seed's `update_error_details`): the keys named are set,
 * every other key stays as it was.
 */
export function mergeErrorDetails(
  plan: Plan,
  details: Readonly<Record<string, string>>,
  nowMs: number,
): Plan {
  return revise(plan, { errorDetails: { ...plan.errorDetails, ...details } }, nowMs);
}
