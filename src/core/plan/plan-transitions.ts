import { revise, type Plan, type PlanPhase, type PlanRecoveryConfig } from './plan.js';

/** The recovery actions a person can take on a plan (PLN-06 without `manual`, which has no command). */
export const planActions = ['retry', 'prompt', 'correct', 'revert_strategize', 'cancel'] as const;
export type PlanAction = (typeof planActions)[number];

/** Why a plan refused a transition; nothing changed. */
export const planRefusalReasons = [
  /** The plan is completed or cancelled: nothing more happens to it. */
  'finished',
  /** A recovery action needs a plan that errored; this one is running. */
  'not_errored',
  /** The plan errored and waits for a recovery action before its phase can run again. */
  'errored',
  /** The phase named is not the plan's current phase. */
  'wrong_phase',
  /** The caller's expected revision is not the plan's: it changed since the caller read it (reload). */
  'stale_revision',
] as const;
export type PlanRefusalReason = (typeof planRefusalReasons)[number];

export type PlanTransition =
  | { readonly ok: true; readonly plan: Plan }
  | { readonly ok: false; readonly reason: PlanRefusalReason; readonly message: string };

const refuse = (reason: PlanRefusalReason, message: string): PlanTransition => ({
  ok: false,
  reason,
  message,
});

/** Refuses a write fenced by a revision the plan no longer has (`undefined`: no fence). */
function checkRevision(plan: Plan, expectedRevision: number | undefined): PlanTransition | null {
  if (expectedRevision === undefined || expectedRevision === plan.revision) return null;
  return refuse(
    'stale_revision',
    `plan ${plan.id} is at revision ${plan.revision}, not ${expectedRevision}: it changed since; read it again`,
  );
}

/**
 * New recovery settings for an existing plan (`PUT /v1/plans/{id}`), already merged with the plan's own by the
 * caller. Refused when the plan is finished (completed or cancelled: its policy no longer matters) or, with
 * `expectedRevision`, when the plan moved past that revision. Settings equal to the plan's return the plan itself.
 */
export function reconfigurePlan(
  plan: Plan,
  recovery: PlanRecoveryConfig,
  expectedRevision: number | undefined,
  nowMs: number,
): PlanTransition {
  const stale = checkRevision(plan, expectedRevision);
  if (stale !== null) return stale;
  if (plan.state === 'completed' || plan.state === 'cancelled')
    return refuse('finished', `plan ${plan.id} is ${plan.state}: its recovery settings can no longer change`);
  // The same settings again (a repeated PUT) are no change: the plan itself comes back, its revision kept, so
  // a repeat never makes stale the revision someone else read.
  const same =
    recovery.autoRetryThreshold === plan.recovery.autoRetryThreshold &&
    recovery.maxRetries === plan.recovery.maxRetries &&
    recovery.subplan === plan.recovery.subplan;
  return { ok: true, plan: same ? plan : revise(plan, { recovery }, nowMs) };
}

/** Refuses anything on a finished plan, and a phase other than the current one. */
function checkRunningPhase(plan: Plan, phase: PlanPhase): PlanTransition | null {
  if (plan.state === 'completed' || plan.state === 'cancelled')
    return refuse('finished', `plan ${plan.id} is ${plan.state}`);
  if (plan.state === 'errored')
    return refuse('errored', `plan ${plan.id} errored in ${plan.phase}: take a recovery action first`);
  if (plan.phase !== phase)
    return refuse('wrong_phase', `plan ${plan.id} is in phase ${plan.phase}, not ${phase}`);
  return null;
}

const nextPhase: Readonly<Record<PlanPhase, PlanPhase | null>> = {
  strategize: 'execute',
  execute: 'apply',
  apply: null,
};

/**
 * A running phase succeeded: the plan moves to the next phase (apply completes the plan). The retry budget
 * restarts: `errorCount` is how many errors the plan has recorded so far. Refused unless the plan is running in
 * `phase` (and, with `expectedRevision`, still at that revision), so a late or repeated report moves nothing.
 */
export function completePhase(
  plan: Plan,
  phase: PlanPhase,
  errorCount: number,
  nowMs: number,
  expectedRevision?: number,
): PlanTransition {
  const refused = checkRevision(plan, expectedRevision) ?? checkRunningPhase(plan, phase);
  if (refused !== null) return refused;
  const next = nextPhase[phase];
  return {
    ok: true,
    plan: revise(
      plan,
      next === null
        ? { state: 'completed', retrySince: errorCount }
        : { phase: next, retrySince: errorCount },
      nowMs,
    ),
  };
}

/** A running phase failed for good (retries exhausted, not retriable, or no recovery service): ERRORED. */
export function failPhase(plan: Plan, phase: PlanPhase, nowMs: number): PlanTransition {
  const refused = checkRunningPhase(plan, phase);
  if (refused !== null) return refused;
  return { ok: true, plan: revise(plan, { state: 'errored' }, nowMs) };
}

/**
 * A person's recovery action (the table in docs/plan-errors.md). `retry`, `prompt` and `correct` run the errored
 * phase again; `revert_strategize` goes back to strategize; each of these restarts the retry budget
 * (`errorCount` errors recorded so far). `cancel` ends a running or errored plan. A finished plan refuses
 * everything; a running plan refuses all but `cancel`. With `expectedRevision` (the revision the person saw), a plan
 * that has moved since refuses (`stale_revision`): a page left open must not retry a plan it no longer shows.
 */
export function applyPlanAction(
  plan: Plan,
  action: PlanAction,
  errorCount: number,
  nowMs: number,
  expectedRevision?: number,
): PlanTransition {
  const stale = checkRevision(plan, expectedRevision);
  if (stale !== null) return stale;
  if (plan.state === 'completed' || plan.state === 'cancelled')
    return refuse('finished', `plan ${plan.id} is ${plan.state}: nothing to recover`);
  if (action === 'cancel') return { ok: true, plan: revise(plan, { state: 'cancelled' }, nowMs) };
  if (plan.state !== 'errored')
    return refuse('not_errored', `plan ${plan.id} is running, not errored: there is nothing to ${action}`);
  const phase = action === 'revert_strategize' ? 'strategize' : plan.phase;
  return { ok: true, plan: revise(plan, { state: 'running', phase, retrySince: errorCount }, nowMs) };
}
