import { candidatesOf, type RouteWorld } from './decision.js';
import { newRoute, type CallerKind, type Route, type RouteMode } from './route.js';
import type { RouteEffect } from './route-effect.js';
import { circuitEffects } from './route-moves.js';
import { admittedBy, descriptorsOf, gateCandidate } from '../circuit/route-circuits.js';
import type { JsonValue } from '../validation/json-payload.js';

export interface StartInput {
  readonly routeId: string;
  readonly mode: RouteMode;
  /** The dynamic profile (mode `dynamic`) or the concrete profile (mode `interactive`). */
  readonly profileId: string;
  readonly caller: CallerKind;
  /** The caller's opaque data, stored with the route. */
  readonly payload: JsonValue | null;
  /**
   * The generation to start at: 1, or one more than a purged route's of the same id, so an action fenced on the
   * purged route's generation is stale for the new one.
   */
  readonly firstGeneration?: number;
}

export type StartDecision =
  | { readonly outcome: 'started'; readonly route: Route; readonly effects: readonly RouteEffect[] }
  | { readonly outcome: 'no_profile' | 'no_candidate' | 'invalid_configuration'; readonly message: string };

/**
 * A new route (generation 1, or `firstGeneration`) and its initial dispatch: a dynamic route starts on the first enabled candidate no
 * open circuit refuses (else the first enabled one: a person asked to start); an interactive route on its
 * concrete profile. A start on a circuit that expired takes its probe lease.
 */
export function decideStart(input: StartInput, world: RouteWorld): StartDecision {
  let candidate = input.profileId;
  if (input.mode === 'dynamic') {
    const profile = world.profile;
    if (profile.kind !== 'dynamic' && profile.kind !== 'invalid')
      return {
        outcome: 'no_profile',
        message: `dynamic profile ${JSON.stringify(input.profileId)} does not exist`,
      };
    if (profile.kind === 'invalid') return { outcome: 'invalid_configuration', message: profile.message };
    const enabled = candidatesOf(world)
      .filter((c) => c.enabled)
      .map((c) => c.profile_id);
    if (enabled.length === 0)
      return {
        outcome: 'no_candidate',
        message: `dynamic profile ${JSON.stringify(input.profileId)} has no enabled candidate`,
      };
    candidate = enabled.find(admittedBy(world.circuits, profile.candidates, world.nowMs)) ?? enabled[0]!;
  }
  const intentId = world.newIntentId();
  const route = newRoute({ ...input, id: input.routeId, candidate, intentId, nowMs: world.nowMs });
  const intent = {
    id: intentId,
    routeId: route.id,
    generation: route.generation,
    candidate,
    kind: 'initial' as const,
    createdAtMs: world.nowMs,
  };
  // Starting on an expired circuit makes this route its probe: the lease keeps other starts from a stampede.
  const gate = gateCandidate(
    world.circuits,
    descriptorsOf(candidatesOf(world), candidate),
    route.id,
    world.nowMs,
  );
  const leases = gate.verdict === 'free' ? gate.writes : [];
  return {
    outcome: 'started',
    route,
    effects: [...circuitEffects(world, leases), { kind: 'dispatch', intent }],
  };
}
