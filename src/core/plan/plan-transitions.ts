import { revise, type Plan, type PlanPhase } from './plan.js';

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
 * restarts: `errorCount` is how many errors the plan has recorded so far.
 */
export function completePhase(
  plan: Plan,
  phase: PlanPhase,
  errorCount: number,
  nowMs: number,
): PlanTransition {
  const refused = checkRunningPhase(plan, phase);
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
 * everything; a running plan refuses all but `cancel`.
 */
export function applyPlanAction(
  plan: Plan,
  action: PlanAction,
  errorCount: number,
  nowMs: number,
): PlanTransition {
  if (plan.state === 'completed' || plan.state === 'cancelled')
    return refuse('finished', `plan ${plan.id} is ${plan.state}: nothing to recover`);
  if (action === 'cancel') return { ok: true, plan: revise(plan, { state: 'cancelled' }, nowMs) };
  if (plan.state !== 'errored')
    return refuse('not_errored', `plan ${plan.id} is running, not errored: there is nothing to ${action}`);
  const phase = action === 'revert_strategize' ? 'strategize' : plan.phase;
  return { ok: true, plan: revise(plan, { state: 'running', phase, retrySince: errorCount }, nowMs) };
}
