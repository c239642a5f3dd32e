import type { AfterCommit, Work } from './batch-queue.js';
import {
  admittedBy,
  descriptorsOf,
  gateCandidate,
  readRouteCircuits,
  writeCircuits,
} from './circuit-work.js';
import {
  assessReplaySafety,
  circuitsAfterFailure,
  circuitKeysOf,
  circuitsAfterSuccess,
  classifyEvidence,
  evidenceMessage,
  newRoute,
  transition,
  type CallerKind,
  type Circuit,
  type Classification,
  type DynamicProfile,
  type Evidence,
  type ManualAction,
  type RefusalReason,
  type ReplayEvidence,
  type ReplayKey,
  type Route,
  type RouteEvent,
  type RouteMode,
  type RouteState,
  type StoreTransaction,
  type Transition,
} from '../core/index.js';

/** The result of one piece of route work; `route` is always the authoritative snapshot after it. */
export type RouteOutcome =
  | {
      readonly outcome: 'changed';
      readonly route: Route;
      readonly decision: string;
      readonly classification: Classification | null;
    }
  | { readonly outcome: 'unchanged'; readonly route: Route; readonly classification: Classification | null }
  | {
      readonly outcome: 'refused';
      readonly route: Route;
      readonly reason: RefusalReason;
      readonly classification: Classification | null;
    };

export type WorkResult = RouteOutcome | { readonly outcome: 'not_found'; readonly routeId: string };

/** The key replay evidence of the route's current attempt must carry: its dispatch intent and generation. */
export function currentReplayKey(route: Route): ReplayKey {
  return {
    sessionId: route.id,
    executionId: route.dispatch?.intentId ?? '',
    promptGeneration: route.generation,
  };
}

export interface FailureInput {
  readonly routeId: string;
  readonly generation: number;
  /** The dispatch intent of the attempt that failed, when the caller knows it (it fences retries of one generation). */
  readonly invocationId: string | null;
  readonly evidence: Evidence;
  readonly replay: ReplayEvidence | null;
  readonly promptOpen: boolean;
}

export function failureWork(input: FailureInput, newId: () => string): Work<WorkResult> {
  return async (tx, nowMs, after) => {
    const route = await tx.readRoute(input.routeId);
    if (route === null) return { outcome: 'not_found', routeId: input.routeId };
    const classification = classifyEvidence(input.evidence, { now: nowMs });
    const stale = staleAttempt(route, input.generation, input.invocationId);
    if (stale !== null) return refused(route, 'failure', stale, classification, nowMs, after);
    const profile = await profileOf(tx, route);
    const circuits = await readRouteCircuits(tx, profile, route.candidate);
    const safety = assessReplaySafety(input.replay, {
      current: currentReplayKey(route),
      failure: classification,
      failureMessage: evidenceMessage(input.evidence),
    });
    const event: RouteEvent = { type: 'failure', classification, safety, promptOpen: input.promptOpen };
    // The circuit this failure opens counts already when a successor is chosen.
    const opened = circuitsAfterFailure(
      circuits,
      classification,
      descriptorsOf(profile, route.candidate),
      route.id,
      nowMs,
    );
    const merged = new Map(circuits);
    for (const c of opened) merged.set(c.key, c);
    const t = transition(route, event, {
      nowMs,
      candidates: profile?.candidates ?? [],
      eligible: admittedBy(merged, profile, nowMs),
      newIntentId: newId,
    });
    if (t.outcome === 'refused') return refused(route, 'failure', t.reason, classification, nowMs, after);
    const outcome = await commit(tx, route, t, 'failure', classification, nowMs, after, profile, merged);
    if (outcome.outcome === 'changed') {
      await writeCircuits(tx, opened, circuits);
      if (input.replay !== null) await tx.saveReplaySnapshot(route.id, route.generation, input.replay, nowMs);
    }
    return outcome;
  };
}

export function successWork(
  routeId: string,
  generation: number,
  invocationId: string | null,
  newId: () => string,
): Work<WorkResult> {
  return async (tx, nowMs, after) => {
    const route = await tx.readRoute(routeId);
    if (route === null) return { outcome: 'not_found', routeId };
    const stale = staleAttempt(route, generation, invocationId);
    if (stale !== null) return refused(route, 'success', stale, null, nowMs, after);
    const t = transition(
      route,
      { type: 'success' },
      context(nowMs, null, () => true, newId),
    );
    if (t.outcome === 'refused') return refused(route, 'success', t.reason, null, nowMs, after);
    const profile = await profileOf(tx, route);
    // Only the succeeding candidate's circuits learn from this success: another provider's stay as they are.
    const own = circuitKeysOf(descriptorsOf(profile, route.candidate));
    const circuits = await tx.readCircuits(own);
    const outcome = await commit(tx, route, t, 'success', null, nowMs, after, profile, circuits);
    if (outcome.outcome === 'changed') {
      await writeCircuits(tx, circuitsAfterSuccess(circuits, route.id), circuits);
    }
    return outcome;
  };
}

/** A timer fired for `generation`: dispatch the retry, unless the route moved on or a shared circuit holds it. */
export function deadlineWork(routeId: string, generation: number, newId: () => string): Work<WorkResult> {
  return async (tx, nowMs, after) => {
    const route = await tx.readRoute(routeId);
    if (route === null) return { outcome: 'not_found', routeId };
    let heldUntilMs: number | undefined;
    let profile: DynamicProfile | null = null;
    let circuits: ReadonlyMap<string, Circuit> = new Map();
    let leases: readonly Circuit[] = [];
    const waiting = route.state === 'waiting_for_reset' || route.state === 'retry_wait';
    if (waiting && route.generation === generation && nowMs >= route.deadlineMs) {
      profile = await profileOf(tx, route);
      circuits = await readRouteCircuits(tx, profile, route.candidate);
      const gate = gateCandidate(circuits, descriptorsOf(profile, route.candidate), route.id, nowMs);
      if ('held' in gate) heldUntilMs = gate.held;
      else leases = gate.leases;
    }
    const event: RouteEvent = {
      type: 'deadline',
      generation,
      ...(heldUntilMs === undefined ? {} : { heldUntilMs }),
    };
    const t = transition(
      route,
      event,
      context(nowMs, profile, () => true, newId),
    );
    if (t.outcome === 'refused') return refused(route, 'deadline', t.reason, null, nowMs, after);
    const outcome = await commit(tx, route, t, 'deadline', null, nowMs, after, profile, circuits);
    if (outcome.outcome === 'changed' && outcome.route.state === 'retrying')
      await writeCircuits(tx, leases, circuits);
    return outcome;
  };
}

export function actionWork(
  routeId: string,
  action: ManualAction,
  expectedGeneration: number,
  expectedState: RouteState | undefined,
  newId: () => string,
): Work<WorkResult> {
  return async (tx, nowMs, after) => {
    const route = await tx.readRoute(routeId);
    if (route === null) return { outcome: 'not_found', routeId };
    const profile = await profileOf(tx, route);
    const circuits = await readRouteCircuits(tx, profile, route.candidate);
    const event: RouteEvent = {
      type: 'action',
      action,
      expectedGeneration,
      ...(expectedState === undefined ? {} : { expectedState }),
    };
    const t = transition(route, event, context(nowMs, profile, admittedBy(circuits, profile, nowMs), newId));
    if (t.outcome === 'refused') return refused(route, action, t.reason, null, nowMs, after);
    return commit(tx, route, t, action, null, nowMs, after, profile, circuits);
  };
}

/** The dispatcher accepted (`acknowledged`) or could not confirm (`ambiguous`) an intent. */
export function dispatchResultWork(
  routeId: string,
  intentId: string,
  result: 'acknowledged' | 'ambiguous',
  newId: () => string,
): Work<WorkResult> {
  return async (tx, nowMs, after) => {
    const route = await tx.readRoute(routeId);
    if (route === null) return { outcome: 'not_found', routeId };
    const event: RouteEvent =
      result === 'acknowledged'
        ? { type: 'dispatch_acknowledged', intentId }
        : { type: 'dispatch_ambiguous', intentId };
    const t = transition(
      route,
      event,
      context(nowMs, null, () => true, newId),
    );
    // A delivered intent is delivered whatever the route did since. An uncertain one is never sent again: it
    // stops its route, or, when a later transition already replaced it, is only marked as overtaken.
    const outcome = result === 'ambiguous' && t.outcome === 'refused' ? 'superseded' : result;
    await tx.resolveIntent(intentId, outcome, nowMs);
    if (t.outcome === 'refused') return refused(route, event.type, t.reason, null, nowMs, after);
    return commit(tx, route, t, event.type, null, nowMs, after, null, new Map());
  };
}

export interface StartInput {
  readonly routeId: string;
  readonly mode: RouteMode;
  readonly profileId: string;
  readonly caller: CallerKind;
}

export type StartResult =
  | { readonly outcome: 'started'; readonly route: Route }
  | { readonly outcome: 'exists'; readonly route: Route }
  | { readonly outcome: 'no_profile' }
  | { readonly outcome: 'no_candidate' };

/** A new route, active on the first enabled candidate no open circuit refuses (else the first enabled one). */
export function startWork(input: StartInput, newId: () => string): Work<StartResult> {
  return async (tx, nowMs, after) => {
    const existing = await tx.readRoute(input.routeId);
    if (existing !== null) return { outcome: 'exists', route: existing };
    let candidate = input.profileId;
    if (input.mode === 'dynamic') {
      const profile = await tx.readProfile(input.profileId);
      if (profile === null) return { outcome: 'no_profile' };
      const enabled = profile.candidates.filter((c) => c.enabled).map((c) => c.profile_id);
      if (enabled.length === 0) return { outcome: 'no_candidate' };
      const circuits = await readRouteCircuits(tx, profile, enabled[0]!);
      candidate = enabled.find(admittedBy(circuits, profile, nowMs)) ?? enabled[0]!;
    }
    const intentId = newId();
    const route = newRoute({ ...input, id: input.routeId, candidate, intentId, nowMs });
    await tx.insertRoute(route);
    const intent = {
      id: intentId,
      routeId: route.id,
      generation: 1,
      candidate,
      kind: 'initial' as const,
      createdAtMs: nowMs,
    };
    await tx.insertIntent(intent);
    after.events.push({
      type: 'transition',
      atMs: nowMs,
      from: null,
      route,
      decision: 'start',
      classification: null,
    });
    after.dispatch.push(intent);
    return { outcome: 'started', route };
  };
}

/**
 * Writes a transition: the fenced route update, the attempt, the dispatch intent and the probe leases of a
 * successor, all in the caller's transaction; timers and dispatches wait in `after` until it commits.
 */
async function commit(
  tx: StoreTransaction,
  before: Route,
  t: Exclude<Transition, { outcome: 'refused' }>,
  trigger: string,
  classification: Classification | null,
  nowMs: number,
  after: AfterCommit,
  profile: DynamicProfile | null,
  circuits: ReadonlyMap<string, Circuit>,
): Promise<RouteOutcome> {
  if (t.outcome === 'unchanged') {
    for (const e of t.effects) if (e.kind === 'arm_timer') after.arm.push(e.dueAtMs);
    return { outcome: 'unchanged', route: t.route, classification };
  }
  const fence = { generation: before.generation, state: before.state, revision: before.revision };
  if (!(await tx.updateRoute(t.route, fence))) {
    // Another writer committed first: its outcome stands, and this one is stale.
    const current = (await tx.readRoute(before.id)) ?? before;
    return refused(current, trigger, 'stale_generation', classification, nowMs, after);
  }
  const previous = before.dispatch;
  if (previous !== null && !previous.acknowledged) {
    // A provider answer proves delivery; any other transition that drops the intent overtook it.
    if (trigger === 'failure' || trigger === 'success')
      await tx.resolveIntent(previous.intentId, 'acknowledged', nowMs);
    else if (t.route.dispatch?.intentId !== previous.intentId)
      await tx.resolveIntent(previous.intentId, 'superseded', nowMs);
  }
  for (const effect of t.effects) {
    switch (effect.kind) {
      case 'record_attempt':
        await tx.appendAttempt(effect.attempt);
        break;
      case 'arm_timer':
        after.arm.push(effect.dueAtMs);
        break;
      case 'dispatch': {
        await tx.insertIntent(effect.intent);
        if (effect.intent.kind === 'successor') {
          const gate = gateCandidate(
            circuits,
            descriptorsOf(profile, effect.intent.candidate),
            before.id,
            nowMs,
          );
          if ('leases' in gate) await writeCircuits(tx, gate.leases, circuits);
        }
        after.dispatch.push(effect.intent);
        break;
      }
    }
  }
  after.events.push({
    type: 'transition',
    atMs: nowMs,
    from: before.state,
    route: t.route,
    decision: t.decision,
    classification,
  });
  return { outcome: 'changed', route: t.route, decision: t.decision, classification };
}

/** A provider event of an earlier attempt: another generation, or another dispatch of this one. */
function staleAttempt(route: Route, generation: number, invocationId: string | null): RefusalReason | null {
  if (generation !== route.generation) return 'stale_generation';
  if (invocationId !== null && invocationId !== route.dispatch?.intentId) return 'stale_invocation';
  return null;
}

function refused(
  route: Route,
  trigger: string,
  reason: RefusalReason,
  classification: Classification | null,
  nowMs: number,
  after: AfterCommit,
): RouteOutcome {
  after.events.push({ type: 'refused', atMs: nowMs, routeId: route.id, trigger, reason });
  return { outcome: 'refused', route, reason, classification };
}

function context(
  nowMs: number,
  profile: DynamicProfile | null,
  eligible: (id: string) => boolean,
  newId: () => string,
) {
  return { nowMs, candidates: profile?.candidates ?? [], eligible, newIntentId: newId };
}

async function profileOf(tx: StoreTransaction, route: Route): Promise<DynamicProfile | null> {
  return route.mode === 'dynamic' ? tx.readProfile(route.profileId) : null;
}
