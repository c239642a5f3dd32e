import { WriteRaceError, type AfterCommit, type Work } from './batch-queue.js';
import { loadWorld } from './load-world.js';
import {
  deadlineOf,
  decide,
  decideStart,
  type Classification,
  type Decision,
  type RefusalReason,
  type Route,
  type RouteDecision,
  type RouteEffect,
  type RouteEvent,
  type StartInput,
  type StoreTransaction,
} from '../core/index.js';

/** The result of one piece of route work; `route` is always the authoritative snapshot after it. */
export type RouteOutcome =
  | {
      readonly outcome: 'changed';
      readonly route: Route;
      readonly decision: RouteDecision;
      readonly classification: Classification | null;
    }
  | { readonly outcome: 'unchanged'; readonly route: Route; readonly classification: Classification | null }
  | {
      readonly outcome: 'refused';
      readonly route: Route;
      readonly reason: RefusalReason;
      /** Why, in words. */
      readonly detail: string;
      readonly classification: Classification | null;
    };

export type WorkResult = RouteOutcome | { readonly outcome: 'not_found'; readonly routeId: string };

/**
 * One event on one route: load the route and its world, decide once (pure), commit the decision, and leave the
 * timers, dispatches and events for after the commit. Nothing else happens here. The decision, its writes and its
 * events share the world's instant (taken after the circuits were read: `loadWorld`).
 */
export function routeWork(routeId: string, event: RouteEvent, newId: () => string): Work<WorkResult> {
  return aboutRoute(routeId, async (tx, nowMs, after, now) => {
    const route = await tx.readRoute(routeId);
    if (route === null) return { outcome: 'not_found', routeId };
    const world = await loadWorld(tx, route, event.type, { nowMs, now }, newId);
    const decision = decide(route, event, world);
    // Read before the decision replaces it: the deadline this firing answers (lateness is measured against it).
    const dueAtMs = event.type === 'deadline' ? deadlineOf(route) : null;
    return commitDecision(tx, route, decision, triggerOf(event), world.nowMs, after, dueAtMs);
  });
}

/**
 * An acknowledgement told to this engine, whichever engine sent the dispatch. The intent's own row fences it: it
 * is recorded only when it names the route's dispatch and that intent is still unanswered. One answered already
 * (ambiguous when its wait ended, superseded, acknowledged before) or another route's is refused `stale_dispatch`
 * without a write; otherwise it is decided as the dispatcher's answer would be.
 */
export function acknowledgementWork(
  routeId: string,
  intentId: string,
  newId: () => string,
): Work<WorkResult> {
  const answer = routeWork(routeId, { type: 'dispatch_result', intentId, result: 'acknowledged' }, newId);
  return aboutRoute(routeId, async (tx, nowMs, after, now) => {
    const route = await tx.readRoute(routeId);
    if (route === null) return { outcome: 'not_found', routeId };
    // Already acknowledged (sent twice, or to two nodes at once, or delivery proven by a report): the same answer,
    // for good. Nothing was refused, so nothing is told.
    if (route.dispatch?.intentId === intentId && route.dispatch.acknowledged)
      return { outcome: 'unchanged', route, classification: null };
    const waiting = route.dispatch?.intentId === intentId;
    if (!waiting || !(await tx.resolveIntent(intentId, 'acknowledged', nowMs))) {
      const detail = 'the dispatch is not waiting for an acknowledgement on this route';
      after.events.push({
        type: 'refused',
        atMs: nowMs,
        routeId,
        trigger: 'dispatch_acknowledged',
        reason: 'stale_dispatch',
        detail,
      });
      return { outcome: 'refused', route, reason: 'stale_dispatch', detail, classification: null };
    }
    after.answered.push(intentId);
    return answer(tx, nowMs, after, now);
  });
}

export type StartResult =
  | { readonly outcome: 'started'; readonly route: Route }
  | { readonly outcome: 'exists'; readonly route: Route }
  | {
      readonly outcome: 'no_profile' | 'no_candidate' | 'invalid_configuration';
      readonly message: string;
    };

/** A new route and its initial dispatch, unless the id is taken. */
export function startWork(input: StartInput, newId: () => string): Work<StartResult> {
  return aboutRoute(input.routeId, async (tx, pieceMs, after, now) => {
    const existing = await tx.readRoute(input.routeId);
    if (existing !== null) return { outcome: 'exists', route: existing };
    // A delete of the profile on another node waits for this start, or this start for it: never both, or the route
    // would name a profile that is gone (the delete counted no route: this one was not committed yet).
    await tx.shareProfiles();
    const world = await loadWorld(
      tx,
      { ...input, candidate: input.profileId },
      'start',
      { nowMs: pieceMs, now },
      newId,
    );
    const nowMs = world.nowMs;
    // A route started again under a purged one's id goes on from its generation (see `Transaction.deleteRoute`).
    const firstGeneration = (await tx.retiredRouteGeneration(input.routeId)) + 1;
    const started = decideStart({ ...input, firstGeneration }, world);
    if (started.outcome !== 'started') return started;
    await tx.insertRoute(started.route);
    after.events.push({
      type: 'transition',
      atMs: nowMs,
      from: null,
      route: started.route,
      decision: 'start',
      classification: null,
      dueAtMs: null,
    });
    await applyEffects(tx, started.route, started.effects, nowMs, after);
    return { outcome: 'started', route: started.route };
  });
}

/** Work that names its route, so the batch can tell the store which routes it touches. */
function aboutRoute<R>(routeId: string, work: Work<R>): Work<R> {
  return Object.assign(work, { routeId });
}

/**
 * Commits a decision in the caller's transaction: the route update fenced by the generation, state and revision
 * it was decided on, then every write of its effects. A refusal writes its history, and the route only when the
 * refused report proved something about the running attempt. Timers, dispatches and events wait in `after` until
 * the transaction commits.
 */
async function commitDecision(
  tx: StoreTransaction,
  before: Route,
  d: Decision,
  trigger: string,
  nowMs: number,
  after: AfterCommit,
  dueAtMs: number | null,
): Promise<RouteOutcome> {
  // A refusal may still record what the report proved about the running attempt (delivered, or answered).
  const writes = d.outcome === 'changed' || (d.outcome === 'refused' && d.route !== before);
  if (writes && !(await tx.updateRoute(d.route, fenceOf(before)))) {
    // Another writer committed first: its outcome stands, and this one is stale.
    const current = (await tx.readRoute(before.id)) ?? before;
    const detail = 'another writer changed the route first';
    after.events.push({
      type: 'refused',
      atMs: nowMs,
      routeId: before.id,
      trigger,
      reason: 'stale_generation',
      detail,
    });
    return {
      outcome: 'refused',
      route: current,
      reason: 'stale_generation',
      detail,
      classification: d.classification,
    };
  }
  if (d.outcome === 'refused') {
    await applyEffects(tx, before, d.effects, nowMs, after);
    after.events.push({
      type: 'refused',
      atMs: nowMs,
      routeId: before.id,
      trigger,
      reason: d.reason,
      detail: d.detail,
    });
    return {
      outcome: 'refused',
      route: d.route,
      reason: d.reason,
      detail: d.detail,
      classification: d.classification,
    };
  }
  if (d.outcome === 'unchanged') {
    await applyEffects(tx, before, d.effects, nowMs, after);
    return { outcome: 'unchanged', route: d.route, classification: d.classification };
  }
  // The change is told first, then what it wrote and sent (circuits, dispatches), so each route's lines group.
  const event = changeEvent(before, d, nowMs, dueAtMs);
  if (event !== null) after.events.push(event);
  await applyEffects(tx, d.route, d.effects, nowMs, after);
  return { outcome: 'changed', route: d.route, decision: d.decision, classification: d.classification };
}

/** Writes each effect's rows in the transaction and queues what must wait for the commit. */
async function applyEffects(
  tx: StoreTransaction,
  route: Route,
  effects: readonly RouteEffect[],
  nowMs: number,
  after: AfterCommit,
): Promise<void> {
  for (const effect of effects) {
    switch (effect.kind) {
      case 'record_attempt':
        await tx.appendAttempt(effect.attempt);
        break;
      case 'write_circuit':
        if (!(await tx.writeCircuit(effect.circuit, effect.expectedVersion))) {
          // Another node moved the circuit: abort, so the work is done again alone and reads the winner's circuit.
          throw new WriteRaceError(
            `circuit ${effect.circuit.key} changed concurrently (expected version ${effect.expectedVersion})`,
          );
        }
        after.events.push({ type: 'circuit', atMs: nowMs, routeId: route.id, circuit: effect.circuit });
        break;
      case 'arm_timer':
        after.arm.push(effect.dueAtMs);
        break;
      case 'wake_held':
        after.wake.push({ circuitKey: effect.circuitKey, heldUntilMs: effect.heldUntilMs });
        break;
      case 'wait_ended':
        after.waitsEnded = true;
        break;
      case 'dispatch':
        await tx.insertIntent(effect.intent);
        after.dispatch.push({ intent: effect.intent, payload: route.payload });
        after.events.push({ type: 'dispatch', atMs: nowMs, intent: effect.intent });
        break;
      case 'record_prompt':
        await tx.insertIntent(effect.intent);
        await tx.resolveIntent(effect.intent.id, 'acknowledged', nowMs);
        break;
      case 'resolve_intent':
        await tx.resolveIntent(effect.intentId, effect.outcome, nowMs);
        after.answered.push(effect.intentId);
        break;
      case 'keep_replay':
        await tx.saveReplaySnapshot(effect.routeId, effect.generation, effect.snapshot, nowMs);
        break;
      case 'notice':
        after.events.push({ type: 'notice', atMs: nowMs, operation: effect.operation });
        break;
    }
  }
}

/**
 * The event a committed change emits: a transition, unless only the attempt's bookkeeping moved (an
 * acknowledgement, a prompt on an active route; an orphan is reported by reconciliation instead).
 */
function changeEvent(
  before: Route,
  d: Extract<Decision, { outcome: 'changed' }>,
  nowMs: number,
  dueAtMs: number | null,
): AfterCommit['events'][number] | null {
  if (d.decision === 'orphaned') return null;
  if (d.decision === 'dispatch_acknowledged')
    return {
      type: 'dispatch_acknowledged',
      atMs: nowMs,
      route: d.route,
      intentId: d.route.dispatch!.intentId,
    };
  const prompt = d.effects.find((e) => e.kind === 'record_prompt');
  if (prompt !== undefined && before.state === d.route.state)
    return { type: 'prompt', atMs: nowMs, route: d.route, intent: prompt.intent };
  return {
    type: 'transition',
    atMs: nowMs,
    from: before.state,
    route: d.route,
    decision: d.decision,
    classification: d.classification,
    dueAtMs,
  };
}

/** A write is fenced by the generation, state and revision the decision read. */
function fenceOf(route: Route) {
  return { generation: route.generation, state: route.state, revision: route.revision };
}

function triggerOf(event: RouteEvent): string {
  switch (event.type) {
    case 'action':
      return event.action;
    case 'dispatch_result':
      return event.result === 'acknowledged' ? 'dispatch_acknowledged' : 'dispatch_ambiguous';
    default:
      return event.type;
  }
}
