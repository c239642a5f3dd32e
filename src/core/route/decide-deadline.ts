import { candidatesOf, changed, refused, unchanged, type Decision, type RouteWorld } from './decision.js';
import { interactiveRecoveryRules } from './interactive-retry.js';
import type { Route } from './route.js';
import {
  actionRequired,
  base,
  circuitEffects,
  dispatchSameCandidate,
  retryNoticeWrite,
  stoppedNotices,
  switchToNext,
  touched,
  withWrites,
} from './route-moves.js';
import { circuitDefaults } from '../circuit/circuit.js';
import { descriptorsOf, gateCandidate } from '../circuit/route-circuits.js';
import { immediateSkip } from '../policy/defaults.js';
import {
  holdLimitSeconds,
  rulesOfClassPolicy,
  rulesOfPolicy,
  type ClassRules,
} from '../policy/recovery-rules.js';
import { formatIsoUtc } from '../time/iso-time.js';

/**
 * The durable timer fired for `generation`. A wait of the current generation whose deadline has come dispatches
 * its attempt (`retry` after `retry_wait`, `reset_retry` after `waiting_for_reset`), unless the candidate's
 * shared circuits hold it (another route probes the resource, or the circuit is open):
 *
 * - held by a probe lease, by a circuit open no longer than its minimum (the herd guard), or by one open no longer
 *   than the route's own rules would wait for a trusted reset that far away: keep waiting, durably, until the
 *   hold ends (`circuit_hold`);
 * - held longer: evaluate the next candidates at once, each behind its own circuits, and with none left take the
 *   pending exhausted outcome: `candidates_exhausted` for skip, `circuit_open` for stop (`circuit_skip`; CIR-05).
 *
 * An early firing (a clock stepped back) changes nothing and arms the timer again; another generation's, or a
 * route that no longer waits, is stale.
 */
export function decideDeadline(
  route: Route,
  event: { readonly generation: number },
  world: RouteWorld,
): Decision {
  if (route.state !== 'waiting_for_reset' && route.state !== 'retry_wait')
    return refused(route, 'stale_timer', `the route no longer waits (${route.state})`);
  if (event.generation !== route.generation)
    return refused(route, 'stale_timer', `the timer was armed by generation ${event.generation}`);
  if (world.nowMs < route.deadlineMs) {
    return unchanged(route, [
      { kind: 'arm_timer', routeId: route.id, generation: route.generation, dueAtMs: route.deadlineMs },
    ]);
  }
  const rules = classRulesOf(route, world);
  if (rules === null) {
    const detail =
      world.profile.kind === 'invalid'
        ? world.profile.message
        : `dynamic profile ${JSON.stringify(route.profileId)} no longer exists`;
    const next = actionRequired(route, route, 'invalid_configuration', detail, world.nowMs);
    return changed(next, 'invalid_configuration', stoppedNotices(next));
  }
  const candidates = candidatesOf(world);
  const gate = gateCandidate(
    world.circuits,
    descriptorsOf(candidates, route.candidate),
    route.id,
    world.nowMs,
  );
  if (gate.verdict === 'free') {
    const kind = route.state === 'waiting_for_reset' ? 'reset_retry' : 'retry';
    const ordinal = route.state === 'retry_wait' ? route.retryOrdinal : null;
    const sent = dispatchSameCandidate(route, route, kind, ordinal, world);
    return changed(sent.route, 'deadline', [...circuitEffects(world, gate.writes), ...sent.effects]);
  }
  // A circuit open no longer than its minimum is the herd guard and holds everyone (CIR-05); one open longer came
  // from a trusted reset, which the route waits for no longer than its own policy would.
  const limitMs = Math.max(holdLimitSeconds(rules) * 1000, circuitDefaults.minimumOpenMs);
  if (gate.openUntilMs === null || gate.openUntilMs - world.nowMs <= limitMs) {
    // Another route probes the resource, or the circuit reopens soon enough for this policy: keep waiting.
    const held: Route = touched(
      { ...route, deadlineMs: gate.untilMs, heldByCircuit: true },
      route,
      world.nowMs,
    );
    return changed(held, 'circuit_hold', [
      ...circuitEffects(world, gate.writes),
      { kind: 'arm_timer', routeId: route.id, generation: route.generation, dueAtMs: gate.untilMs },
      ...retryNoticeWrite(held),
    ]);
  }
  const why = `circuit ${gate.key} stays open until ${formatIsoUtc(gate.openUntilMs)}, longer than this policy waits for a reset (${holdLimitSeconds(rules)} s)`;
  const outcome = route.pendingOutcome ?? rules.onExhausted;
  const switched = switchToNext(
    { ...base(route), excluded: [...route.excluded, route.candidate] },
    route,
    world,
    withWrites(world.circuits, gate.writes),
    { reason: outcome === 'stop' ? 'circuit_open' : 'candidates_exhausted', detail: why },
  );
  return changed(switched.route, 'circuit_skip', [
    ...circuitEffects(world, [...gate.writes, ...switched.circuitWrites]),
    ...switched.effects,
  ]);
}

/** The rules of the class the route waits for: the candidate's current policy, or the built-in entry. */
function classRulesOf(
  route: Extract<Route, { state: 'waiting_for_reset' | 'retry_wait' }>,
  world: RouteWorld,
): ClassRules | null {
  const profile = world.profile;
  if (profile.kind === 'concrete') return interactiveRecoveryRules[route.failureClass];
  if (profile.kind !== 'dynamic') return null;
  const candidate = profile.candidates.find((c) => c.profile_id === route.candidate);
  // A candidate that left the profile keeps its pending schedule, and is held by no circuit for long.
  if (candidate === undefined) return { ...rulesOfClassPolicy(immediateSkip), onExhausted: 'stop' };
  return rulesOfPolicy(candidate.policy)[route.failureClass];
}
