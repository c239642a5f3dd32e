import {
  applyPlanAction,
  completePhase,
  failPhase,
  mergeErrorDetails,
  RecourseError,
  revise,
  type Plan,
  type PlanAction,
  type PlanErrorRecord,
  type PlanPhase,
  type PlanRefusalReason,
  type PlanTransition,
  type Store,
  type StoreTransaction,
} from '../core/index.js';
import { checkPlanId } from './plan-input.js';

/** Code `not_found`: no plan has this id (configure it first: `PUT /v1/plans/{id}`). */
export class PlanNotFoundError extends RecourseError {
  constructor(readonly planId: string) {
    super('not_found', `plan ${JSON.stringify(planId)} does not exist`);
    this.name = 'PlanNotFoundError';
  }
}

/** What a plan transition did: `changed` with the plan as stored now, or `refused` (nothing changed) and why. */
export type PlanOutcome =
  | { readonly status: 'changed'; readonly plan: Plan }
  | {
      readonly status: 'refused';
      readonly plan: Plan;
      readonly reason: PlanRefusalReason;
      readonly message: string;
    };

/** A transition computed from the plan and its error history as read in the same transaction. */
type Change = (
  plan: Plan,
  errors: readonly PlanErrorRecord[],
  tx: StoreTransaction,
) => Promise<PlanTransition> | PlanTransition;

/**
 * The plan lifecycle service (the seed's `PlanLifecycleService`, PLN-39): every phase transition and every write
 * of a plan goes through here, each one a store transaction that reads the plan, decides with the pure core
 * (`core/plan`) and writes it fenced by the revision it read.
 */
export class PlanLifecycle {
  constructor(
    readonly store: Store,
    /** Epoch ms (UTC); the wall clock by default. */
    readonly now: () => number = Date.now,
  ) {}

  /** The plan, or `PlanNotFoundError`. */
  async read(planId: string): Promise<Plan> {
    const id = checkPlanId(planId);
    const plan = await this.store.readPlan(id);
    if (plan === null) throw new PlanNotFoundError(id);
    return plan;
  }

  /** Creates the plan with `create()` when it does not exist, else replaces its recovery config. */
  async upsert(planId: string, config: Plan['recovery'], create: (nowMs: number) => Plan): Promise<Plan> {
    const id = checkPlanId(planId);
    return this.store.transact(async (tx) => {
      const plan = await tx.readPlan(id);
      if (plan === null) {
        const fresh = create(this.now());
        await tx.insertPlan(fresh);
        return fresh;
      }
      const next = revise(plan, { recovery: config }, this.now());
      await this.write(tx, next, plan.revision);
      return next;
    });
  }

  /** The phase succeeded: the plan moves to the next phase, or completes after apply. */
  completePhase(planId: string, phase: PlanPhase): Promise<PlanOutcome> {
    return this.change(planId, (plan, errors) => completePhase(plan, phase, errors.length, this.now()));
  }

  /** The phase failed for good: ERRORED (the seed's `fail_execute`). */
  fail(planId: string, phase: PlanPhase): Promise<PlanOutcome> {
    return this.change(planId, (plan) => failPhase(plan, phase, this.now()));
  }

  /** A person's recovery action (docs/plan-errors.md has the table). */
  act(planId: string, action: PlanAction): Promise<PlanOutcome> {
    return this.change(planId, (plan, errors) => applyPlanAction(plan, action, errors.length, this.now()));
  }

  /**
   * Merges structured metadata into the plan's `error_details` (the seed's `update_error_details`, PLN-32): keys
   * not named keep their values (PLN-33). Values must be strings.
   */
  async updateErrorDetails(planId: string, details: Readonly<Record<string, string>>): Promise<Plan> {
    const outcome = await this.change(planId, (plan) => ({
      ok: true,
      plan: mergeErrorDetails(plan, details, this.now()),
    }));
    return outcome.plan;
  }

  /**
   * Runs `change` on the plan in one transaction: nothing is written when it refuses. Callers outside this class
   * (the plan service) use it to append an error and move the plan in the same commit.
   */
  async change(planId: string, change: Change): Promise<PlanOutcome> {
    const id = checkPlanId(planId);
    return this.store.transact(async (tx) => {
      const plan = await tx.readPlan(id);
      if (plan === null) throw new PlanNotFoundError(id);
      const result = await change(plan, await tx.listPlanErrors(id), tx);
      if (!result.ok) return { status: 'refused', plan, reason: result.reason, message: result.message };
      await this.write(tx, result.plan, plan.revision);
      return { status: 'changed', plan: result.plan };
    });
  }

  private async write(tx: StoreTransaction, next: Plan, expectedRevision: number): Promise<void> {
    // The transaction holds the write lock from its first read (BEGIN IMMEDIATE), so the fence cannot fail here;
    // if an adapter ever lets it, failing the transaction is right: it then writes nothing.
    if (!(await tx.updatePlan(next, expectedRevision)))
      throw new Error(`plan ${next.id} changed while it was being written; nothing was saved`);
  }
}
