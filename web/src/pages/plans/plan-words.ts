import type { PlanState } from '../../../../src/core/plan/plan.js';
import type { PlanRefusalReason } from '../../../../src/core/plan/plan-transitions.js';

/** The events that say a plan changed: a recorded error, and every other write (`plan.changed`). */
export const planEventTypes: ReadonlySet<string> = new Set(['plan.error.recorded', 'plan.changed']);

/** A plan's state in words: what is happening and whether a person is needed. */
export function planStateWords(state: PlanState, phase: string): string {
  switch (state) {
    case 'running':
      return `Running the ${phase} phase`;
    case 'errored':
      return `Needs your action: the ${phase} phase failed`;
    case 'completed':
      return 'Completed';
    case 'cancelled':
      return 'Cancelled';
    default: {
      const unknown: never = state;
      return String(unknown);
    }
  }
}

/** Why the service refused an action (409 `refused`), in words; nothing changed. */
export function refusalWords(reason: unknown): string {
  switch (reason as PlanRefusalReason) {
    case 'finished':
      return 'The plan is already finished (completed or cancelled): nothing more can be done with it.';
    case 'not_errored':
      return 'The plan is running, not errored: only Cancel applies until it fails again.';
    case 'errored':
      return 'The plan errored and waits for a recovery action first.';
    case 'wrong_phase':
      return 'The plan is in another phase now.';
    case 'stale_revision':
      return 'The plan changed since this page loaded it: look again before acting.';
    default:
      return 'The plan’s state does not allow this now.';
  }
}
