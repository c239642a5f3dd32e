import { candidatesOf, type RouteWorld } from './decision.js';
import { manualRecoveryActions } from './interactive-retry.js';
import {
  freshUsage,
  type ActionReason,
  type DispatchKind,
  type PendingDispatch,
  type Route,
  type RouteCommon,
} from './route.js';
import type { DispatchIntent, NoticeOperation, RouteEffect } from './route-effect.js';
import type { Circuit } from '../circuit/circuit.js';
import { admittedBy, descriptorsOf, gateCandidate } from '../circuit/route-circuits.js';
import { manualRecoveryMessage, retryNotice } from '../notice/retry-notice.js';
import { recoveryReason } from '../notice/recovery-reason.js';
import type { ReplayKey } from '../safety/replay-evidence.js';

/** The fields every state shares, with the state-specific ones dropped. */
export function base(route: RouteCommon): RouteCommon {
  return {
    id: route.id,
    mode: route.mode,
    profileId: route.profileId,
    caller: route.caller,
    candidate: route.candidate,
    generation: route.generation,
    revision: route.revision,
    cycle: route.cycle,
    excluded: route.excluded,
    usage: route.usage,
    lastFailure: route.lastFailure,
    dispatch: route.dispatch,
    payload: route.payload,
    updatedAtMs: route.updatedAtMs,
  };
}

/** The next revision of a route at `nowMs` (every write bumps the revision that fences it). */
export function touched<R extends RouteCommon>(route: R, before: RouteCommon, nowMs: number): R {
  return { ...route, revision: before.revision + 1, updatedAtMs: nowMs };
}

/** The key replay evidence of the route's current attempt carries: session = route, execution = intent. */
export function replayKeyOf(route: RouteCommon): ReplayKey {
  return {
    sessionId: route.id,
    executionId: route.dispatch?.intentId ?? '',
    promptGeneration: route.generation,
  };
}

/** An attempt that answered: its delivery is proven and no later report can be about it. */
export function finished(dispatch: PendingDispatch | null): PendingDispatch | null {
  return dispatch === null ? null : { ...dispatch, acknowledged: true, finished: true, orphaned: false };
}

/** A provider answer for an unacknowledged intent proves it was delivered. */
export function proveDelivery(dispatch: PendingDispatch | null): RouteEffect[] {
  return dispatch !== null && !dispatch.acknowledged
    ? [{ kind: 'resolve_intent', intentId: dispatch.intentId, outcome: 'acknowledged' }]
    : [];
}

/** A switching route whose successor answered: the successor is the route's candidate, with a fresh budget. */
export function successorActive(route: Extract<Route, { state: 'switching' }>): RouteCommon {
  return { ...base(route), candidate: route.nextCandidate, usage: freshUsage };
}

export function newIntent(
  route: RouteCommon,
  world: RouteWorld,
  kind: DispatchKind,
  candidate: string,
  generation: number,
): DispatchIntent {
  return {
    id: world.newIntentId(),
    routeId: route.id,
    generation,
    candidate,
    kind,
    createdAtMs: world.nowMs,
  };
}

export function pendingOf(intent: DispatchIntent, acknowledged = false): PendingDispatch {
  return {
    intentId: intent.id,
    kind: intent.kind,
    candidate: intent.candidate,
    acknowledged,
    finished: false,
    orphaned: false,
  };
}

/** Manual recovery choices: interactive routes offer Resume and Start fresh (CUR-33). */
export function recoveryOf(route: RouteCommon): readonly string[] {
  return route.mode === 'interactive' ? [...manualRecoveryActions] : [];
}

/** `action_required` for `reason`, keeping the current attempt (it may still be running). */
export function actionRequired(
  route: RouteCommon,
  before: RouteCommon,
  reason: ActionReason,
  detail: string | null,
  nowMs: number,
): Extract<Route, { state: 'action_required' }> {
  return touched(
    { ...base(route), state: 'action_required', reason, detail, recoveryActions: recoveryOf(route) },
    before,
    nowMs,
  );
}

/**
 * What an interactive route's transcript must show when it stops for a person: every notice retired, and the
 * manual recovery message unless the person stopped it themselves (Stop) or it was stopped on its own (Cancel
 * writes its own words). Dynamic routes have no transcript here.
 */
export function stoppedNotices(route: Extract<Route, { state: 'action_required' }>): RouteEffect[] {
  if (route.mode !== 'interactive') return [];
  const ops: NoticeOperation[] = [{ op: 'retire', routeId: route.id, lookup: 'always' }];
  if (route.reason !== 'stopped') {
    const words = recoveryReason(route.reason, route.detail, route.lastFailure);
    ops.push({ op: 'recovery_message', routeId: route.id, body: manualRecoveryMessage(words) });
  }
  return ops.map((operation) => ({ kind: 'notice', operation }));
}

/** The retry notice of an interactive route waiting for its next attempt (create once, else update in place). */
export function retryNoticeWrite(route: Route): RouteEffect[] {
  if (route.mode !== 'interactive' || route.state !== 'retry_wait') return [];
  const body = retryNotice({
    routeId: route.id,
    code: route.lastFailure?.code ?? null,
    provider: route.lastFailure?.provider_id ?? null,
    profileId: route.candidate,
    attempt: route.retryOrdinal,
    maxAttempts: route.maxRetries,
    deadlineMs: route.deadlineMs,
  });
  return [
    {
      kind: 'notice',
      operation: {
        op: 'write',
        routeId: route.id,
        generation: route.generation,
        retryOrdinal: route.retryOrdinal,
        body,
        turnId: route.dispatch?.intentId ?? null,
      },
    },
  ];
}

/** A same-candidate attempt: `retrying`, with its dispatch intent written in the same transaction. */
export function dispatchSameCandidate(
  route: RouteCommon,
  before: RouteCommon,
  kind: DispatchKind,
  retryOrdinal: number | null,
  world: RouteWorld,
): { route: Route; effects: RouteEffect[] } {
  const intent = newIntent(route, world, kind, route.candidate, route.generation);
  return {
    route: touched(
      { ...base(route), state: 'retrying', retryOrdinal, dispatch: pendingOf(intent) },
      before,
      world.nowMs,
    ),
    effects: [{ kind: 'dispatch', intent }],
  };
}

/**
 * Moves to the next eligible candidate of this cycle (list order after the current one, wrapping): `switching`
 * on a new generation with the successor's dispatch and the probe leases it takes; `action_required`
 * (`candidates_exhausted`, or `whenNone`) when every candidate is excluded, disabled or behind an open circuit.
 */
export function switchToNext(
  route: RouteCommon,
  before: RouteCommon,
  world: RouteWorld,
  circuits: ReadonlyMap<string, Circuit>,
  whenNone: { readonly reason: ActionReason; readonly detail: string } | null = null,
): { route: Route; effects: RouteEffect[]; circuitWrites: Circuit[] } {
  const candidates = candidatesOf(world);
  const eligible = admittedBy(circuits, candidates, world.nowMs);
  const order = candidates.map((c) => c.profile_id);
  const start = order.indexOf(route.candidate);
  const excluded = new Set(route.excluded);
  let next: string | null = null;
  const behindCircuits: string[] = [];
  for (let i = 1; i <= order.length && next === null; i++) {
    const id = order[(start + i + order.length) % order.length]!;
    const candidate = candidates.find((c) => c.profile_id === id)!;
    if (id === route.candidate || excluded.has(id) || !candidate.enabled) continue;
    if (eligible(id)) next = id;
    else behindCircuits.push(id);
  }
  if (next === null) {
    // Say why, so a person knows whether waiting would help (a circuit expires) or the cycle is spent.
    const detail =
      behindCircuits.length > 0
        ? `no eligible candidate: ${behindCircuits.join(', ')} ${behindCircuits.length === 1 ? 'is' : 'are'} behind an open circuit`
        : 'every candidate of this cycle was skipped or is disabled';
    // A concrete profile has no other candidate to speak of: only the reason it stopped.
    const full =
      whenNone === null
        ? detail
        : candidates.length === 0
          ? whenNone.detail
          : `${whenNone.detail}; ${detail}`;
    const stopped = actionRequired(
      route,
      before,
      whenNone?.reason ?? 'candidates_exhausted',
      full,
      world.nowMs,
    );
    return { route: stopped, effects: stoppedNotices(stopped), circuitWrites: [] };
  }
  const generation = route.generation + 1;
  const intent = newIntent(route, world, 'successor', next, generation);
  const gate = gateCandidate(circuits, descriptorsOf(candidates, next), route.id, world.nowMs);
  return {
    route: touched(
      {
        ...base(route),
        state: 'switching',
        nextCandidate: next,
        generation,
        dispatch: pendingOf(intent),
      },
      before,
      world.nowMs,
    ),
    effects: [{ kind: 'dispatch', intent }],
    circuitWrites: [...gate.writes],
  };
}

/**
 * Circuit writes as effects, each fenced by the version the decision read; one write per key (the last wins, so
 * a lease taken after an opening carries both).
 */
export function circuitEffects(world: RouteWorld, writes: readonly Circuit[]): RouteEffect[] {
  const byKey = new Map<string, Circuit>();
  for (const c of writes) byKey.set(c.key, c);
  const effects: RouteEffect[] = [...byKey.values()].map((circuit) => ({
    kind: 'write_circuit',
    circuit,
    expectedVersion: world.circuits.get(circuit.key)?.version ?? 0,
  }));
  // A circuit this write closes held routes until its probe lease's end or its open_until: wake them now.
  for (const circuit of byKey.values()) {
    const before = world.circuits.get(circuit.key);
    if (circuit.state !== 'closed' || before === undefined || before.state === 'closed') continue;
    const heldUntilMs = [...new Set([before.probeLeaseUntilMs, before.openUntilMs])].filter(
      (t) => t > world.nowMs,
    );
    if (heldUntilMs.length > 0) effects.push({ kind: 'wake_held', circuitKey: circuit.key, heldUntilMs });
  }
  return effects;
}

/** The circuits as the decision leaves them (for eligibility within the same decision). */
export function withWrites(
  circuits: ReadonlyMap<string, Circuit>,
  writes: readonly Circuit[],
): ReadonlyMap<string, Circuit> {
  if (writes.length === 0) return circuits;
  const merged = new Map(circuits);
  for (const c of writes) merged.set(c.key, c);
  return merged;
}
