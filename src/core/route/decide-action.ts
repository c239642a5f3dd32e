import { changed, refused, unchanged, type Decision, type RouteWorld } from './decision.js';
import { freshUsage, orphanedAttempt, runningAttempt, type Route } from './route.js';
import type { RouteEffect } from './route-effect.js';
import type { ManualAction, RouteEvent } from './route-event.js';
import {
  actionRequired,
  base,
  circuitEffects,
  dispatchSameCandidate,
  stoppedNotices,
  switchToNext,
} from './route-moves.js';

type ActionEvent = Extract<RouteEvent, { type: 'action' }>;

/**
 * A person's action, fenced by the generation (and, when given, the state) they saw; refused actions return the
 * authoritative snapshot and change nothing.
 *
 * | action | from | to |
 * |---|---|---|
 * | retry_now | waiting_for_reset, retry_wait | retrying (a `manual` dispatch, same generation) |
 * | retry_now | action_required | retrying (new cycle, new generation) |
 * | retry_now | an orphaned attempt (active, retrying, switching) | retrying (new generation: the orphan's late reports are stale) |
 * | skip_now | waiting_for_reset, retry_wait | switching |
 * | skip_now | action_required | switching (new cycle); refused `not_allowed` when no candidate is eligible |
 * | cancel, stop | waiting_for_reset, retry_wait | action_required (`cancelled`, `stopped`); the timer is disarmed |
 * | cancel, stop | retrying, switching | action_required; the running attempt's later failure schedules nothing |
 * | stop | active | action_required (`stopped`); the running attempt's later failure schedules nothing |
 * | cancel, stop | action_required | unchanged (idempotent) |
 *
 * Manual actions are never held by circuits: a person asked.
 */
export function decideAction(route: Route, event: ActionEvent, world: RouteWorld): Decision {
  if (event.expectedGeneration !== route.generation) {
    return refused(
      route,
      'stale_generation',
      `expected generation ${event.expectedGeneration}, the route is at ${route.generation}`,
    );
  }
  if (event.expectedState !== undefined && event.expectedState !== route.state) {
    return refused(
      route,
      'stale_state',
      `expected state ${event.expectedState}, the route is ${route.state}`,
    );
  }
  switch (event.action) {
    case 'retry_now':
      return retryNow(route, world);
    case 'skip_now':
      return skipNow(route, world);
    case 'cancel':
    case 'stop':
      return cancelOrStop(route, event.action, world);
  }
}

function retryNow(route: Route, world: RouteWorld): Decision {
  if (route.state === 'waiting_for_reset' || route.state === 'retry_wait') {
    const sent = dispatchSameCandidate(route, route, 'manual', null, world);
    return changed(sent.route, 'retry_now', [waitEnded(route), ...sent.effects]);
  }
  if (route.state === 'action_required') {
    // Leaving action_required starts a new cycle and a new generation; a late report of whatever ran before
    // (a cancelled or ambiguous attempt) is stale from here on.
    const restarted = {
      ...base(route),
      generation: route.generation + 1,
      cycle: route.cycle + 1,
      excluded: [],
      usage: freshUsage,
    };
    const sent = dispatchSameCandidate(restarted, route, 'manual', null, world);
    return changed(sent.route, 'retry_now', [...supersede(route), ...sent.effects]);
  }
  const orphan = orphanedAttempt(route);
  if (orphan !== null) {
    // The orphan ran on its own candidate (a successor, when the route was switching).
    const takenOver = { ...base(route), candidate: orphan.candidate, generation: route.generation + 1 };
    const sent = dispatchSameCandidate(takenOver, route, 'manual', null, world);
    return changed(sent.route, 'retry_now', sent.effects);
  }
  return refused(route, 'not_allowed', `retry now is not possible while the route is ${route.state}`);
}

function skipNow(route: Route, world: RouteWorld): Decision {
  if (route.state === 'waiting_for_reset' || route.state === 'retry_wait') {
    const switched = switchToNext(
      { ...base(route), excluded: [...route.excluded, route.candidate] },
      route,
      world,
      world.circuits,
    );
    return changed(switched.route, 'skip_now', [
      waitEnded(route),
      ...circuitEffects(world, switched.circuitWrites),
      ...switched.effects,
    ]);
  }
  if (route.state === 'action_required') {
    const switched = switchToNext(
      { ...base(route), cycle: route.cycle + 1, excluded: [route.candidate], usage: freshUsage },
      route,
      world,
      world.circuits,
    );
    if (switched.route.state === 'action_required') {
      // Nothing to move to: a new cycle that stops where it started would only bump the generation (and fence
      // out every other client's next action) while saying nothing new.
      const why = switched.route.detail ?? 'no eligible candidate';
      return refused(route, 'not_allowed', `skip now has nowhere to go: ${why}`);
    }
    return changed(switched.route, 'skip_now', [
      ...supersede(route),
      ...circuitEffects(world, switched.circuitWrites),
      ...switched.effects,
    ]);
  }
  return refused(route, 'not_allowed', `skip now is not possible while the route is ${route.state}`);
}

function cancelOrStop(route: Route, action: 'cancel' | 'stop', world: RouteWorld): Decision {
  const reason = action === 'cancel' ? 'cancelled' : 'stopped';
  const detail = `by a user (${action})`;
  if (route.state === 'waiting_for_reset' || route.state === 'retry_wait') {
    const next = actionRequired(base(route), route, reason, detail, world.nowMs);
    return changed(next, decisionOf(action), [waitEnded(route), ...stoppedNotices(next)]);
  }
  const inFlight =
    route.state === 'retrying' ||
    route.state === 'switching' ||
    (route.state === 'active' && action === 'stop' && runningAttempt(route) !== null);
  if (inFlight) {
    // The attempt runs on (it may still succeed); the loop around it ends here. A switching route's attempt
    // runs on the successor, so the route names it.
    const current =
      route.state === 'switching' ? { ...base(route), candidate: route.nextCandidate } : base(route);
    const next = actionRequired(current, route, reason, detail, world.nowMs);
    return changed(next, decisionOf(action), stoppedNotices(next));
  }
  // Idempotent: cancelling or stopping a route that already needs action changes nothing.
  if (route.state === 'action_required') return unchanged(route);
  return refused(route, 'not_allowed', `${action} is not possible while the route is ${route.state}`);
}

function decisionOf(action: ManualAction): 'cancel' | 'stop' {
  return action === 'cancel' ? 'cancel' : 'stop';
}

function waitEnded(route: Route): RouteEffect {
  return { kind: 'wait_ended', routeId: route.id, generation: route.generation };
}

/** Leaving action_required: an intent still unanswered there was overtaken, never to be sent again. */
function supersede(route: Route): RouteEffect[] {
  const d = route.dispatch;
  return d !== null && !d.acknowledged && !d.finished
    ? [{ kind: 'resolve_intent', intentId: d.intentId, outcome: 'superseded' }]
    : [];
}
