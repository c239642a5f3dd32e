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
 * A dispatcher's answer and a restart's look at an attempt consult neither, so neither is read for them, and they
 * are decided at the piece's instant (`nowMs`). A world with circuits is decided at an instant taken after they
 * were read (`now`): another node may have written a circuit since the piece's instant, from its own later now
 * (opened or extended until its now + 60 s), and judged from before that write the circuit would look open longer
 * than its 60 s minimum, so a route whose policy waits no longer left its candidate (`circuit_skip`) instead of
 * being held with every other route. Read after, the instant is no earlier than any write the read saw; a write
 * after the read fails the batch's `confirmCircuitReads`, and the batch is decided again.
 */
export async function loadWorld(
  tx: StoreTransaction,
  route: { readonly mode: RouteMode; readonly profileId: string; readonly candidate: string },
  event: RouteEvent['type'] | 'start',
  time: { readonly nowMs: number; readonly now: () => number },
  newIntentId: () => string,
): Promise<RouteWorld> {
  if (event === 'dispatch_result' || event === 'restart') {
    return { nowMs: time.nowMs, profile: { kind: 'not_loaded' }, circuits: new Map(), newIntentId };
  }
  const profile = await profileView(tx, route.mode, route.profileId);
  const candidates = profile.kind === 'dynamic' ? profile.candidates : [];
  const circuits = await tx.readCircuits(routeCircuitKeys(candidates, route.candidate));
  return { nowMs: time.now(), profile, circuits, newIntentId };
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
