import { routeStates, type RouteState } from '../core/index.js';

/** What the fleet looks like now, and what it went through since it started: for a status line. */
export interface FleetSummary {
  readonly routes: number;
  /** Routes in each of the six states (zero included). */
  readonly byState: Readonly<Record<RouteState, number>>;
  /** Routes that came back to `active` after a failure (a retry, a successor or the operator's attempt succeeded). */
  readonly recovered: number;
  /** Moves to another candidate (`switching`). */
  readonly switched: number;
  /** Stops for a person (`action_required`). */
  readonly stopped: number;
  /** Retry now / Skip now by the scripted operator. */
  readonly operatorActions: number;
}

/** Counts routes by state. */
export function countByState(routes: readonly { readonly state: RouteState }[]): Record<RouteState, number> {
  const counts = Object.fromEntries(routeStates.map((s) => [s, 0])) as Record<RouteState, number>;
  for (const route of routes) counts[route.state] += 1;
  return counts;
}

/**
 * One line: `12 routes: 5 active, 2 retry_wait, ... | since start: 7 recovered, 3 switched, 2 stopped, 2 operator
 * actions`; states with no route are left out.
 */
export function formatFleetSummary(summary: FleetSummary): string {
  const states = routeStates
    .filter((s) => summary.byState[s] > 0)
    .map((s) => `${summary.byState[s]} ${s}`)
    .join(', ');
  return (
    `${summary.routes} routes${states === '' ? '' : `: ${states}`} | since start: ${summary.recovered} recovered, ` +
    `${summary.switched} switched, ${summary.stopped} stopped, ${summary.operatorActions} operator actions`
  );
}
