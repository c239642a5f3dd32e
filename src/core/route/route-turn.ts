import { runningAttempt, type Route } from './route.js';

/**
 * Where a route's turn stands, at a glance, without reading decisions: an attempt is `running` (dispatched, or a
 * prompt the caller sent, not yet answered), the route is `waiting` for a retry or a reset, the turn `succeeded`
 * (nothing runs: the next prompt may come), or a person is needed (`needs_action`). The six states stay the
 * authority (RTE-01); this is their reading for a caller.
 */
export const routeTurns = ['running', 'waiting', 'succeeded', 'needs_action'] as const;
export type RouteTurn = (typeof routeTurns)[number];

export function routeTurn(route: Route): RouteTurn {
  switch (route.state) {
    case 'waiting_for_reset':
    case 'retry_wait':
      return 'waiting';
    case 'action_required':
      return 'needs_action';
    case 'active':
      return runningAttempt(route) === null ? 'succeeded' : 'running';
    case 'retrying':
    case 'switching':
      return 'running';
  }
}

/** A route as a caller reads it: the durable route and where its turn stands. */
export type RouteSnapshot = Route & { readonly outcome: RouteTurn };

export function snapshotOf(route: Route): RouteSnapshot {
  return { ...route, outcome: routeTurn(route) };
}
