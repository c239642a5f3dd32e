import { candidatesOf, changed, unchanged, type Decision, type RouteWorld } from './decision.js';
import type { Route } from './route.js';
import type { RouteEvent } from './route-event.js';
import { retryNoticeWrite, touched } from './route-moves.js';
import { circuitKeysOf } from '../circuit/circuit.js';
import { descriptorsOf } from '../circuit/route-circuits.js';

type CircuitClosed = Extract<RouteEvent, { type: 'circuit_closed' }>;

/**
 * A circuit closed (its probe, or its opener, succeeded): the routes it held wait for nothing now. A route held
 * by a circuit (`heldByCircuit`) still waiting until one of the instants the circuit held routes to (`circuit_hold`
 * wrote its probe lease's end or its `open_until` as the deadline) whose candidate sits behind that circuit has
 * its deadline brought to now
 * (`circuit_closed`): its timer fires at once and decides as any deadline does (another circuit may still hold
 * it). Anything else is unchanged: a route waiting for its own policy's deadline keeps it.
 */
export function decideCircuitClosed(route: Route, event: CircuitClosed, world: RouteWorld): Decision {
  if (route.state !== 'retry_wait' && route.state !== 'waiting_for_reset') return unchanged(route);
  if (route.heldByCircuit !== true) return unchanged(route);
  if (route.deadlineMs <= world.nowMs || !event.heldUntilMs.includes(route.deadlineMs))
    return unchanged(route);
  const behind = circuitKeysOf(descriptorsOf(candidatesOf(world), route.candidate));
  if (!behind.includes(event.circuitKey)) return unchanged(route);
  // Woken, it waits for nothing but its timer: a hold it meets again marks it again.
  const { heldByCircuit: _held, ...waiting } = route;
  const woken: Route = touched({ ...waiting, deadlineMs: world.nowMs }, route, world.nowMs);
  return changed(woken, 'circuit_closed', [
    { kind: 'arm_timer', routeId: route.id, generation: route.generation, dueAtMs: world.nowMs },
    ...retryNoticeWrite(woken),
  ]);
}
