import { changed, unchanged, type Decision, type RouteWorld } from './decision.js';
import { runningAttempt, type Route } from './route.js';
import { touched } from './route-moves.js';

/**
 * Restart reconciliation of a route whose attempt was accepted and never answered (DUR decision for issue
 * "a crash while an attempt runs"): the attempt is marked orphaned. Nothing is inferred from it (OUT-01: no
 * failure from inactivity) and the state stays; Stop and Retry now may now take the route over, and a late
 * report of the attempt still counts until then. Unacknowledged intents are not this decision's: they are
 * ambiguous (`decideDispatchResult`). A route stopped (cancelled, stopped) while its accepted attempt ran is marked
 * the same way: its answer still counts, but it no longer keeps the route from being purged, since the process
 * that ran it may be gone and nothing else would ever end that wait.
 */
export function decideRestart(route: Route, world: RouteWorld): Decision {
  const attempt = runningAttempt(route);
  const waitsForIt =
    route.state === 'active' ||
    route.state === 'retrying' ||
    route.state === 'switching' ||
    route.state === 'action_required';
  if (!waitsForIt || attempt === null || !attempt.acknowledged || attempt.orphaned) return unchanged(route);
  return changed(
    touched({ ...route, dispatch: { ...attempt, orphaned: true } }, route, world.nowMs),
    'orphaned',
    [],
  );
}
