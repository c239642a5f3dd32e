import {
  applyPlanAction,
  completePhase,
  failPhase,
  mergeErrorDetails,
  reconfigurePlan,
  RecourseError,
  type Plan,
  type PlanAction,
  type PlanErrorRecord,
  type PlanPhase,
  type PlanRecoveryConfig,
  type PlanRefusalReason,
  type PlanTransition,
  type Store,
  type StoreTransaction,
} from '../core/index.js';
import { Listeners } from '../support/listeners.js';
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

/**
 * What changed a plan: created or configured (`PUT /v1/plans/{id}`), a phase completed, a phase failed for good
 * (the executor), an error recorded, metadata merged, or a person's recovery action by name.
 */
export type PlanChangeCause =
  'created' | 'configured' | 'phase_completed' | 'failed' | 'error_recorded' | 'error_details' | PlanAction;

/** One committed write of a plan, told to `onChange` listeners after the commit. */
export interface PlanChange {
  readonly plan: Plan;
  readonly cause: PlanChangeCause;
}

/** `configure`'s outcome: the plan created, unchanged (the same settings again), or as for any other change. */
export type PlanConfigureOutcome =
  { readonly status: 'created' | 'unchanged'; readonly plan: Plan } | PlanOutcome;

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
  private readonly listeners = new Listeners<PlanChange>();

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

  /** Observes every committed write of a plan; returns the unsubscribe function. A throwing listener is skipped. */
  onChange(listener: (change: PlanChange) => void): () => void {
    return this.listeners.add(listener);
  }

  /**
   * Creates the plan with `create()` when it does not exist, else sets the recovery config `settle` computes from
   * the plan as read in the same transaction (so a caller merges with what is stored, not with a stale copy; a
   * throw from `settle` writes nothing). `expectedRevision` fences the write: 0 means "only if the plan does not
   * exist yet" (an existing plan is refused `stale_revision`), N means "only if it is still at revision N" (an
   * unknown plan is then `PlanNotFoundError`). A finished plan is refused (`finished`).
   */
  async configure(
    planId: string,
    settle: (current: Plan | null) => PlanRecoveryConfig,
    create: (config: PlanRecoveryConfig, nowMs: number) => Plan,
    expectedRevision?: number,
  ): Promise<PlanConfigureOutcome> {
    const id = checkPlanId(planId);
    const outcome = await this.store.transact(async (tx): Promise<PlanConfigureOutcome> => {
      const plan = await tx.readPlan(id);
      if (plan === null) {
        if (expectedRevision !== undefined && expectedRevision !== 0) throw new PlanNotFoundError(id);
        const fresh = create(settle(null), this.now());
        await tx.insertPlan(fresh);
        return { status: 'created', plan: fresh };
      }
      const transition = reconfigurePlan(plan, settle(plan), expectedRevision, this.now());
      if (!transition.ok)
        return { status: 'refused', plan, reason: transition.reason, message: transition.message };
      if (transition.plan === plan) return { status: 'unchanged', plan };
      await this.write(tx, transition.plan, plan.revision);
      return { status: 'changed', plan: transition.plan };
    });
    if (outcome.status === 'created' || outcome.status === 'changed')
      this.listeners.emit({
        plan: outcome.plan,
        cause: outcome.status === 'created' ? 'created' : 'configured',
      });
    return outcome;
  }

  /**
   * The phase succeeded: the plan moves to the next phase, or completes after apply. Refused unless the plan is
   * running in `phase` and, with `expectedRevision`, still at that revision.
   */
  completePhase(planId: string, phase: PlanPhase, expectedRevision?: number): Promise<PlanOutcome> {
    return this.change(
      planId,
      (plan, errors) => completePhase(plan, phase, errors.length, this.now(), expectedRevision),
      'phase_completed',
    );
  }

  /** The phase failed for good: ERRORED (the seed's `fail_execute`). */
  fail(planId: string, phase: PlanPhase): Promise<PlanOutcome> {
    return this.change(planId, (plan) => failPhase(plan, phase, this.now()), 'failed');
  }

  /** A person's recovery action (docs/plan-errors.md has the table), fenced by the revision seen when given. */
  act(planId: string, action: PlanAction, expectedRevision?: number): Promise<PlanOutcome> {
    return this.change(
      planId,
      (plan, errors) => applyPlanAction(plan, action, errors.length, this.now(), expectedRevision),
      action,
    );
  }

  /**
   * Merges structured metadata into the plan's `error_details` (the seed's `update_error_details`, PLN-32): keys
   * not named keep their values (PLN-33). Values must be strings.
   */
  async updateErrorDetails(planId: string, details: Readonly<Record<string, string>>): Promise<Plan> {
    const outcome = await this.change(
      planId,
      (plan) => ({ ok: true, plan: mergeErrorDetails(plan, details, this.now()) }),
      'error_details',
    );
    return outcome.plan;
  }

  /**
   * Runs `change` on the plan in one transaction: nothing is written when it refuses. Callers outside this class
   * (the plan service) use it to append an error and move the plan in the same commit. `onChange` listeners hear
   * of a committed change, with `cause`.
   */
  async change(planId: string, change: Change, cause: PlanChangeCause): Promise<PlanOutcome> {
    const id = checkPlanId(planId);
    const outcome = await this.store.transact(async (tx): Promise<PlanOutcome> => {
      const plan = await tx.readPlan(id);
      if (plan === null) throw new PlanNotFoundError(id);
      const result = await change(plan, await tx.listPlanErrors(id), tx);
      if (!result.ok) return { status: 'refused', plan, reason: result.reason, message: result.message };
      await this.write(tx, result.plan, plan.revision);
      return { status: 'changed', plan: result.plan };
    });
    if (outcome.status === 'changed') this.listeners.emit({ plan: outcome.plan, cause });
    return outcome;
  }

  private async write(tx: StoreTransaction, next: Plan, expectedRevision: number): Promise<void> {
    // The transaction holds the plan from its first read (SQLite: BEGIN IMMEDIATE; PostgreSQL: a lock on the plan's
    // id, taken by `readPlan`), so the fence cannot fail here; if an adapter ever lets it, failing the transaction is
    // right: it then writes nothing.
    if (!(await tx.updatePlan(next, expectedRevision)))
      throw new Error(`plan ${next.id} changed while it was being written; nothing was saved`);
  }
}
