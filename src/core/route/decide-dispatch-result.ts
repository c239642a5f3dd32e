import { changed, refused, unchanged, type Decision, type RouteWorld } from './decision.js';
import { freshUsage, runningAttempt, type Route } from './route.js';
import type { RouteEvent } from './route-event.js';
import { actionRequired, base, stoppedNotices, touched } from './route-moves.js';

type DispatchResult = Extract<RouteEvent, { type: 'dispatch_result' }>;

/**
 * The dispatcher's answer for an intent. `acknowledged`: the attempt was accepted (a `switching` route becomes
 * `active` on its successor). `ambiguous`: delivery is uncertain and the intent is never sent again; a route
 * still waiting for that attempt stops for a person (`ambiguous_dispatch`), naming the uncertain candidate and
 * kind in its `dispatch` (after a successor dispatch the route's candidate is the successor: Retry now re-sends
 * there). The intent row records the answer whatever the route did since: a delivered intent is delivered, an
 * uncertain one that a later transition replaced is only marked as overtaken (`superseded`).
 */
export function decideDispatchResult(route: Route, event: DispatchResult, world: RouteWorld): Decision {
  const attempt = runningAttempt(route);
  const ours = attempt !== null && attempt.intentId === event.intentId && !attempt.acknowledged;
  if (event.result === 'acknowledged') {
    const record = {
      kind: 'resolve_intent' as const,
      intentId: event.intentId,
      outcome: 'acknowledged' as const,
    };
    if (!ours)
      return refused(route, 'stale_dispatch', "the intent is not the route's unacknowledged attempt", [
        record,
      ]);
    const acknowledged = { ...attempt, acknowledged: true };
    if (route.state === 'switching') {
      const next: Route = touched(
        {
          ...base(route),
          state: 'active',
          candidate: route.nextCandidate,
          usage: freshUsage,
          dispatch: acknowledged,
        },
        route,
        world.nowMs,
      );
      return changed(next, 'successor_active', [record]);
    }
    return changed(
      touched({ ...route, dispatch: acknowledged }, route, world.nowMs),
      'dispatch_acknowledged',
      [record],
    );
  }
  const waitsForIt = route.state === 'active' || route.state === 'retrying' || route.state === 'switching';
  if (ours && waitsForIt) {
    const current =
      route.state === 'switching' ? { ...base(route), candidate: route.nextCandidate } : base(route);
    const next = actionRequired(
      current,
      route,
      'ambiguous_dispatch',
      `the ${attempt.kind} dispatch to ${attempt.candidate} was never acknowledged`,
      world.nowMs,
    );
    return changed(next, 'ambiguous_dispatch', [
      { kind: 'resolve_intent', intentId: event.intentId, outcome: 'ambiguous' },
      ...stoppedNotices(next),
    ]);
  }
  if (ours) {
    // The route already stopped while the attempt was in flight: nothing to stop, the uncertainty is recorded.
    return unchanged(route, [{ kind: 'resolve_intent', intentId: event.intentId, outcome: 'ambiguous' }]);
  }
  return refused(route, 'stale_dispatch', 'a later transition already replaced this intent', [
    { kind: 'resolve_intent', intentId: event.intentId, outcome: 'superseded' },
  ]);
}
