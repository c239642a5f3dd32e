import {
  ConfigurationError,
  routeCircuitKeys,
  type ProfileView,
  type RouteEvent,
  type RouteMode,
  type RouteWorld,
  type StoreTransaction,
} from '../core/index.js';

/**
 * What a decision about a route consults: its profile as stored now, and every circuit its candidates touch.
 * A dispatcher's answer and a restart's look at an attempt consult neither, so neither is read for them.
 */
export async function loadWorld(
  tx: StoreTransaction,
  route: { readonly mode: RouteMode; readonly profileId: string; readonly candidate: string },
  event: RouteEvent['type'] | 'start',
  nowMs: number,
  newIntentId: () => string,
): Promise<RouteWorld> {
  if (event === 'dispatch_result' || event === 'restart') {
    return { nowMs, profile: { kind: 'not_loaded' }, circuits: new Map(), newIntentId };
  }
  const profile = await profileView(tx, route.mode, route.profileId);
  const candidates = profile.kind === 'dynamic' ? profile.candidates : [];
  const circuits = await tx.readCircuits(routeCircuitKeys(candidates, route.candidate));
  return { nowMs, profile, circuits, newIntentId };
}

async function profileView(tx: StoreTransaction, mode: RouteMode, profileId: string): Promise<ProfileView> {
  if (mode === 'interactive') return { kind: 'concrete' };
  try {
    const profile = await tx.readProfile(profileId);
    return profile === null ? { kind: 'missing' } : { kind: 'dynamic', candidates: profile.candidates };
  } catch (error) {
    // A stored profile that no longer validates authorizes nothing; the decision says so durably (POL-20).
    if (error instanceof ConfigurationError) return { kind: 'invalid', message: error.message };
    throw error;
  }
}
