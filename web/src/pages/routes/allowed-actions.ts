import type { RouteAction, RouteDoc } from './route-types.js';

/**
 * The actions a route's state allows, read from the engine's rules (src/core/route/decide-action.ts): offering
 * one the engine would refuse is a button that cannot work.
 *
 * - a wait (`retry_wait`, `waiting_for_reset`): Retry now, Skip now, Cancel wait, Stop
 * - `action_required`: Retry now, Skip now (Cancel and Stop change nothing there)
 * - `retrying`, `switching`: Cancel, Stop (the attempt runs on); Retry now only for an orphaned attempt
 * - `active` with an attempt running: Stop; Retry now only for an orphaned attempt
 * - `active` with nothing running (finished): none
 *
 * Skip now is offered only when there is a candidate to skip to (its label names it).
 */
export function allowedActions(route: RouteDoc, successor: string | null): RouteAction[] {
  const orphaned = route.dispatch?.orphaned === true && route.dispatch.finished === false;
  const running = route.dispatch !== null && route.dispatch.finished === false;
  const skip: RouteAction[] = successor === null ? [] : ['skip_now'];
  switch (route.state) {
    case 'retry_wait':
    case 'waiting_for_reset':
      return ['retry_now', ...skip, 'cancel', 'stop'];
    case 'action_required':
      return ['retry_now', ...skip];
    case 'retrying':
    case 'switching':
      return [...(orphaned ? (['retry_now'] as const) : []), 'cancel', 'stop'];
    case 'active':
      if (!running) return [];
      return [...(orphaned ? (['retry_now'] as const) : []), 'stop'];
    default:
      return [];
  }
}

export interface CandidateView {
  readonly profile_id: string;
  readonly enabled?: boolean;
  readonly provider?: string;
  readonly model?: string;
}

/**
 * The candidate Skip now would go to, as the engine picks it (src/core/route/route-moves.ts `switchToNext`): the
 * next enabled candidate after the current one, wrapping around, not excluded in this cycle. Leaving
 * `action_required` starts a new cycle, where only the current candidate is excluded. A shared circuit may still
 * send it elsewhere; the switch itself then says where it went.
 */
export function successorOf(route: RouteDoc, candidates: readonly CandidateView[] | null): string | null {
  if (route.next_candidate !== null && route.state !== 'action_required') return route.next_candidate;
  if (candidates === null) return null;
  const excluded = new Set(route.state === 'action_required' ? [] : route.excluded);
  const order = candidates.map((c) => c.profile_id);
  const start = order.indexOf(route.candidate);
  for (let i = 1; i <= order.length; i++) {
    const candidate = candidates[(start + i + order.length) % order.length]!;
    if (candidate.profile_id === route.candidate || excluded.has(candidate.profile_id)) continue;
    if (candidate.enabled === false) continue;
    return candidate.profile_id;
  }
  return null;
}

/** A button's label: Skip now names where it goes; Cancel on a wait says it cancels the wait. */
export function actionLabel(action: RouteAction, route: RouteDoc, successor: string | null): string {
  switch (action) {
    case 'retry_now':
      return 'Retry now';
    case 'skip_now':
      return `Skip now to ${successor ?? 'the next candidate'}`;
    case 'cancel':
      return route.state === 'retry_wait' || route.state === 'waiting_for_reset' ? 'Cancel wait' : 'Cancel';
    case 'stop':
      return 'Stop';
  }
}

/** What each action does, shown beside the buttons (never only in a tooltip). */
export function actionEffect(action: RouteAction, route: RouteDoc, successor: string | null): string {
  switch (action) {
    case 'retry_now':
      return route.state === 'action_required'
        ? 'Retry now starts a new attempt on the same candidate.'
        : 'Retry now sends the next attempt at once instead of waiting.';
    case 'skip_now':
      return `Skip now moves the route to ${successor ?? 'the next candidate'}.`;
    case 'cancel':
      return 'Cancel stops the automatic recovery; the route then waits for you.';
    case 'stop':
      return 'Stop ends recovery for this route until you act again; an attempt already sent is left to finish.';
  }
}
