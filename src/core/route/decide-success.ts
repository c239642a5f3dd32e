import { candidatesOf, changed, refused, type Decision, type RouteWorld } from './decision.js';
import { freshUsage, runningAttempt, type Route } from './route.js';
import type { RouteEffect } from './route-effect.js';
import { base, circuitEffects, finished, proveDelivery, successorActive, touched } from './route-moves.js';
import { circuitKeysOf, circuitsAfterSuccess } from '../circuit/circuit.js';
import { descriptorsOf } from '../circuit/route-circuits.js';

/**
 * The route's attempt succeeded: the turn is done and the route cycle ends (exclusions, budgets and reset-wait
 * use are cleared; the live route shows no failure, the attempt history keeps it). A success proves delivery
 * wherever the attempt stands: `active`, `retrying`, `switching` before the successor's acknowledgement (the
 * successor becomes the candidate), and `action_required` when the route was cancelled, stopped or left
 * ambiguous while the attempt ran (its success is still a success). Only the succeeding candidate's circuits
 * learn from it. Refused: another generation or attempt, an attempt that already answered, or none running.
 */
export function decideSuccess(
  route: Route,
  report: { readonly generation: number; readonly invocationId: string | null },
  world: RouteWorld,
): Decision {
  if (report.generation !== route.generation) {
    return refused(
      route,
      'stale_generation',
      `generation ${report.generation} is not the route's current generation ${route.generation}`,
    );
  }
  if (report.invocationId !== null && report.invocationId !== route.dispatch?.intentId) {
    return refused(route, 'stale_invocation', 'the report names an earlier attempt of this generation');
  }
  const attempt = runningAttempt(route);
  if (route.dispatch !== null && attempt === null) {
    return refused(route, 'stale_invocation', 'the attempt already reported its outcome');
  }
  if (attempt === null || route.state === 'waiting_for_reset' || route.state === 'retry_wait') {
    return refused(route, 'not_allowed', `no attempt of the route is running (${route.state})`);
  }
  const current = route.state === 'switching' ? successorActive(route) : base(route);
  const next: Route = touched(
    {
      ...current,
      state: 'active',
      cycle: route.cycle + 1,
      excluded: [],
      usage: freshUsage,
      lastFailure: null,
      dispatch: finished(current.dispatch),
    },
    route,
    world.nowMs,
  );
  const own = new Set(circuitKeysOf(descriptorsOf(candidatesOf(world), current.candidate)));
  const mine = new Map([...world.circuits].filter(([key]) => own.has(key)));
  const effects: RouteEffect[] = [
    ...proveDelivery(attempt),
    ...circuitEffects(world, circuitsAfterSuccess(mine, route.id)),
  ];
  if (route.mode === 'interactive') {
    // A successful turn ends retry ownership; it looks for notices only when a retry was owned (NOT-34), and a
    // route that was retrying certainly owned one, even if a restart lost the orchestrator's memory of it.
    effects.push({
      kind: 'notice',
      operation: {
        op: 'retire',
        routeId: route.id,
        lookup: route.state === 'retrying' ? 'always' : 'if_retry_owned',
      },
    });
  }
  return changed(next, 'success', effects);
}
