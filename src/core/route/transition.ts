import {
  interactiveRetryDefaults,
  manualRecoveryActions,
  transientRetryDelayFor,
} from './interactive-retry.js';
import {
  freshUsage,
  type ActionReason,
  type DispatchKind,
  type FailureSummary,
  type PendingDispatch,
  type Route,
  type RouteCommon,
} from './route.js';
import type { AttemptRecord, RouteEffect } from './route-effect.js';
import type { ManualAction, RefusalReason, RouteEvent } from './route-event.js';
import type { PolicyClass } from '../catalogue/codes.js';
import type { Classification } from '../classify/classification.js';
import { evaluate, type PolicyDecision } from '../policy/evaluate.js';
import type { ClassPolicy, ProfileCandidate } from '../policy/policy-document.js';
import type { SafetyVerdict } from '../safety/safety-gate.js';

/** What a transition may consult besides the route: no I/O, no clock, no randomness of its own. */
export interface TransitionContext {
  readonly nowMs: number;
  /** The current profile version's candidates (policy edits apply from the next decision). */
  readonly candidates: readonly ProfileCandidate[];
  /** Whether a candidate may be chosen now: enabled and not behind an open circuit. */
  readonly eligible: (profileId: string) => boolean;
  /** A fresh id for a dispatch intent. */
  readonly newIntentId: () => string;
}

export type Transition =
  | {
      readonly outcome: 'changed';
      readonly route: Route;
      readonly effects: readonly RouteEffect[];
      readonly decision: string;
    }
  | { readonly outcome: 'unchanged'; readonly route: Route; readonly effects: readonly RouteEffect[] }
  | { readonly outcome: 'refused'; readonly route: Route; readonly reason: RefusalReason };

/**
 * The route state machine as a pure function `(route, event, context) -> transition` (seed "State machine", with
 * the REQUIREMENTS RTE-14 and RTE-16 decisions):
 *
 * | from | trigger | to |
 * |---|---|---|
 * | active, retrying | failure: reset wait / retry / skip / stop / unsafe or unclassified | waiting_for_reset / retry_wait / switching / action_required / action_required |
 * | waiting_for_reset, retry_wait | deadline, current generation | retrying (a dispatch) |
 * | waiting_for_reset, retry_wait | deadline held by a shared circuit | the same state, deadline moved to the hold |
 * | waiting_for_reset, retry_wait | deadline fired early | unchanged, the timer armed again |
 * | waiting_for_reset, retry_wait | skip now | switching |
 * | waiting_for_reset, retry_wait | cancel, stop | action_required |
 * | waiting_for_reset, retry_wait, action_required | retry now | retrying (a manual dispatch) |
 * | action_required | skip now | switching (a new cycle) |
 * | retrying, active | success | active (the cycle ends) |
 * | switching | successor dispatch acknowledged | active on the successor |
 * | any with a dispatch | that dispatch ambiguous | action_required |
 *
 * `retrying` means a same-candidate attempt was dispatched; it leads to `active` on success, or back through the
 * evaluator on failure. `switching` means the successor was dispatched; its acknowledgement makes it `active`.
 * Any other (state, trigger) pair is refused and changes nothing.
 */
export function transition(route: Route, event: RouteEvent, ctx: TransitionContext): Transition {
  switch (event.type) {
    case 'failure':
      return onFailure(route, event.classification, event.safety, event.promptOpen === true, ctx);
    case 'success':
      if (route.state !== 'active' && route.state !== 'retrying') return refuse(route, 'not_allowed');
      return change(route, ctx, 'success', {
        ...base(route),
        state: 'active',
        cycle: route.cycle + 1,
        excluded: [],
        usage: freshUsage,
        // The attempt history keeps the failure; the live route shows none once a turn succeeded.
        lastFailure: null,
        dispatch: delivered(route.dispatch),
      });
    case 'deadline':
      return onDeadline(route, event.generation, event.heldUntilMs ?? null, ctx);
    case 'dispatch_acknowledged':
      return onAcknowledged(route, event.intentId, ctx);
    case 'dispatch_ambiguous': {
      const pending = inFlight(route, event.intentId);
      if (pending === null) return refuse(route, 'stale_dispatch');
      return toActionRequired(
        route,
        ctx,
        'ambiguous_dispatch',
        `the ${pending.kind} dispatch was never acknowledged`,
        [],
      );
    }
    case 'action':
      if (event.expectedGeneration !== route.generation) return refuse(route, 'stale_generation');
      if (event.expectedState !== undefined && event.expectedState !== route.state)
        return refuse(route, 'stale_state');
      return onAction(route, event.action, ctx);
  }
}

function onFailure(
  route: Route,
  c: Classification,
  safety: SafetyVerdict,
  promptOpen: boolean,
  ctx: TransitionContext,
): Transition {
  if (promptOpen) return refuse(route, 'prompt_open');
  if (route.state !== 'active' && route.state !== 'retrying') return refuse(route, 'not_allowed');
  const decision =
    route.mode === 'interactive'
      ? evaluateInteractive(route, c, safety, ctx.nowMs)
      : evaluateDynamic(route, c, safety, ctx);
  if (decision.decision.kind === 'reject' && decision.decision.reason === 'stale')
    return refuse(route, 'stale_evidence');
  const summary = summarize(c);
  const attempt = (extra: Partial<AttemptRecord>): AttemptRecord => ({
    routeId: route.id,
    candidate: route.candidate,
    generation: route.generation,
    code: c.code,
    failureClass: c.class,
    catalogueVersion: c.catalogue_version,
    rule: c.classifier_rule,
    policySnapshot: decision.policy,
    decision: decision.decision.kind,
    retryOrdinal: null,
    deadlineMs: null,
    pendingOutcome: null,
    safeExcerpt: c.safe_excerpt,
    atMs: ctx.nowMs,
    ...extra,
  });
  const d = decision.decision;
  const recovery = route.mode === 'interactive' ? [...manualRecoveryActions] : [];
  // A failure of the attempt proves its dispatch reached the agent.
  const withFailure = { ...base(route), lastFailure: summary, dispatch: delivered(route.dispatch) };
  switch (d.kind) {
    case 'reject': {
      const next = actionRequired(
        withFailure,
        d.reason === 'unclassified' ? 'unclassified' : 'unsafe',
        d.detail,
        recovery,
        ctx,
      );
      return changed(
        next,
        [{ kind: 'record_attempt', attempt: attempt({ decision: `reject:${d.reason}:${d.detail}` }) }],
        `reject_${d.reason}`,
      );
    }
    case 'wait_for_reset': {
      const pendingOutcome = decision.policy?.on_exhausted ?? null;
      const next: Route = {
        ...withFailure,
        state: 'waiting_for_reset',
        deadlineMs: d.deadlineMs,
        failureClass: d.class,
        pendingOutcome,
        usage: { ...route.usage, resetWaitUsed: { ...route.usage.resetWaitUsed, [d.class]: true } },
        dispatch: null,
        updatedAtMs: ctx.nowMs,
      };
      return changed(
        next,
        [
          { kind: 'record_attempt', attempt: attempt({ deadlineMs: d.deadlineMs, pendingOutcome }) },
          { kind: 'arm_timer', routeId: route.id, generation: route.generation, dueAtMs: d.deadlineMs },
        ],
        'wait_for_reset',
      );
    }
    case 'retry': {
      const pendingOutcome = decision.policy?.on_exhausted ?? (route.mode === 'interactive' ? 'stop' : null);
      const next: Route = {
        ...withFailure,
        state: 'retry_wait',
        deadlineMs: d.deadlineMs,
        failureClass: d.class,
        retryOrdinal: d.ordinal,
        maxRetries: d.maxRetries,
        pendingOutcome,
        usage: { ...route.usage, retriesUsed: { ...route.usage.retriesUsed, [d.class]: d.ordinal } },
        dispatch: null,
        updatedAtMs: ctx.nowMs,
      };
      return changed(
        next,
        [
          {
            kind: 'record_attempt',
            attempt: attempt({ retryOrdinal: d.ordinal, deadlineMs: d.deadlineMs, pendingOutcome }),
          },
          { kind: 'arm_timer', routeId: route.id, generation: route.generation, dueAtMs: d.deadlineMs },
        ],
        'retry',
      );
    }
    case 'skip': {
      const switched = switchToNext({ ...withFailure, excluded: [...route.excluded, route.candidate] }, ctx);
      return changed(
        switched.route,
        [{ kind: 'record_attempt', attempt: attempt({ pendingOutcome: 'skip' }) }, ...switched.effects],
        'skip',
      );
    }
    case 'stop': {
      const reason: ActionReason =
        route.mode === 'interactive' && c.class === 'hard' ? 'not_retriable' : 'exhausted';
      const next = actionRequired(withFailure, reason, `${d.class} recovery exhausted`, recovery, ctx);
      return changed(
        next,
        [{ kind: 'record_attempt', attempt: attempt({ pendingOutcome: 'stop' }) }],
        'stop',
      );
    }
  }
}

interface Evaluation {
  readonly decision: PolicyDecision;
  readonly policy: ClassPolicy | null;
}

function evaluateDynamic(
  route: Route,
  c: Classification,
  safety: SafetyVerdict,
  ctx: TransitionContext,
): Evaluation {
  const candidate = ctx.candidates.find((x) => x.profile_id === route.candidate);
  if (candidate === undefined) {
    // The candidate left the profile: nothing authorizes automatic work for it.
    return { decision: { kind: 'reject', reason: 'unsafe', detail: 'candidate_removed' }, policy: null };
  }
  const decision = evaluate({ classification: c, safety }, route.usage, candidate.policy, ctx.nowMs);
  const policy = c.class === 'transient' || c.class === 'hard' ? candidate.policy[c.class] : null;
  return { decision, policy };
}

/** The concrete-profile entry: transient failures only, `transientMaxAttempts` retries, then manual recovery. */
function evaluateInteractive(
  route: Route,
  c: Classification,
  safety: SafetyVerdict,
  nowMs: number,
): Evaluation {
  const gate = evaluate({ classification: c, safety }, route.usage, neverPolicy, nowMs);
  if (gate.kind === 'reject') return { decision: gate, policy: null };
  const cls: PolicyClass = c.class === 'hard' ? 'hard' : 'transient';
  if (cls === 'hard') return { decision: { kind: 'stop', class: 'hard', reason: 'exhausted' }, policy: null };
  const used = route.usage.retriesUsed.transient;
  const max = interactiveRetryDefaults.transientMaxAttempts;
  if (used >= max)
    return { decision: { kind: 'stop', class: 'transient', reason: 'exhausted' }, policy: null };
  const ordinal = used + 1;
  const delaySeconds = transientRetryDelayFor(ordinal, c, nowMs);
  return {
    decision: {
      kind: 'retry',
      class: 'transient',
      ordinal,
      delaySeconds,
      maxRetries: max,
      deadlineMs: nowMs + delaySeconds * 1000,
    },
    policy: null,
  };
}

/** A policy that never acts: used to run only the evaluator's rejection step for interactive routes. */
const neverPolicy = {
  version: 1 as const,
  transient: {
    retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
    wait_for_reset: { enabled: false, max_wait_seconds: 0 },
    on_exhausted: 'stop' as const,
  },
  hard: {
    retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
    wait_for_reset: { enabled: false, max_wait_seconds: 0 },
    on_exhausted: 'stop' as const,
  },
};

function onDeadline(
  route: Route,
  generation: number,
  heldUntilMs: number | null,
  ctx: TransitionContext,
): Transition {
  if (route.state !== 'waiting_for_reset' && route.state !== 'retry_wait')
    return refuse(route, 'stale_timer');
  if (generation !== route.generation) return refuse(route, 'stale_timer');
  // Early firing (a clock that stepped, a coarse timer): arm again for the stored absolute deadline.
  if (ctx.nowMs < route.deadlineMs) {
    return {
      outcome: 'unchanged',
      route,
      effects: [{ kind: 'arm_timer', routeId: route.id, generation, dueAtMs: route.deadlineMs }],
    };
  }
  // A shared circuit holds this dispatch (another route probes the resource): keep waiting, durably.
  if (heldUntilMs !== null && heldUntilMs > ctx.nowMs) {
    const held: Route = {
      ...route,
      deadlineMs: heldUntilMs,
      revision: route.revision + 1,
      updatedAtMs: ctx.nowMs,
    };
    return changed(
      held,
      [{ kind: 'arm_timer', routeId: route.id, generation, dueAtMs: heldUntilMs }],
      'circuit_hold',
    );
  }
  const kind: DispatchKind = route.state === 'waiting_for_reset' ? 'reset_retry' : 'retry';
  return dispatchSameCandidate(route, kind, ctx, 'deadline');
}

/** The route's unacknowledged dispatch with this id, while an attempt is in flight (active, retrying, switching). */
function inFlight(route: Route, intentId: string): PendingDispatch | null {
  const d = route.dispatch;
  const flying = route.state === 'active' || route.state === 'retrying' || route.state === 'switching';
  return flying && d !== null && d.intentId === intentId && !d.acknowledged ? d : null;
}

function onAcknowledged(route: Route, intentId: string, ctx: TransitionContext): Transition {
  const dispatch = inFlight(route, intentId);
  if (dispatch === null) return refuse(route, 'stale_dispatch');
  const acknowledged = { ...dispatch, acknowledged: true };
  if (route.state === 'switching') {
    return change(route, ctx, 'successor_active', {
      ...base(route),
      state: 'active',
      candidate: route.nextCandidate,
      usage: freshUsage,
      dispatch: acknowledged,
    });
  }
  return changed(
    { ...route, dispatch: acknowledged, revision: route.revision + 1, updatedAtMs: ctx.nowMs },
    [],
    'dispatch_acknowledged',
  );
}

function onAction(route: Route, action: ManualAction, ctx: TransitionContext): Transition {
  const waiting = route.state === 'waiting_for_reset' || route.state === 'retry_wait';
  switch (action) {
    case 'retry_now':
      if (waiting) return dispatchSameCandidate(route, 'manual', ctx, 'retry_now');
      if (route.state === 'action_required') {
        // Leaving action_required starts a new cycle and a new generation.
        return dispatchSameCandidate(
          {
            ...route,
            generation: route.generation + 1,
            cycle: route.cycle + 1,
            excluded: [],
            usage: freshUsage,
          },
          'manual',
          ctx,
          'retry_now',
        );
      }
      return refuse(route, 'not_allowed');
    case 'skip_now': {
      if (waiting) {
        const switched = switchToNext(
          { ...base(route), excluded: [...route.excluded, route.candidate] },
          ctx,
        );
        return changed(switched.route, switched.effects, 'skip_now');
      }
      if (route.state === 'action_required') {
        const switched = switchToNext(
          { ...base(route), cycle: route.cycle + 1, excluded: [route.candidate], usage: freshUsage },
          ctx,
        );
        return changed(switched.route, switched.effects, 'skip_now');
      }
      return refuse(route, 'not_allowed');
    }
    case 'cancel':
    case 'stop':
      if (waiting) {
        return changed(
          actionRequired(
            base(route),
            action === 'cancel' ? 'cancelled' : 'stopped',
            `by a user (${action})`,
            recoveryOf(route),
            ctx,
          ),
          [],
          action,
        );
      }
      // Idempotent: cancelling or stopping a route that already needs action changes nothing.
      if (route.state === 'action_required') return { outcome: 'unchanged', route, effects: [] };
      return refuse(route, 'not_allowed');
  }
}

/** A same-candidate attempt: `retrying` with a dispatch intent written in the same transaction. */
function dispatchSameCandidate(
  route: RouteCommon,
  kind: DispatchKind,
  ctx: TransitionContext,
  decision: string,
): Transition {
  const intentId = ctx.newIntentId();
  const ordinal = 'retryOrdinal' in route && kind === 'retry' ? (route.retryOrdinal as number | null) : null;
  const next: Route = {
    ...base(route),
    state: 'retrying',
    retryOrdinal: ordinal,
    dispatch: { intentId, kind, candidate: route.candidate, acknowledged: false },
    revision: route.revision + 1,
    updatedAtMs: ctx.nowMs,
  };
  return changed(
    next,
    [
      {
        kind: 'dispatch',
        intent: {
          id: intentId,
          routeId: route.id,
          generation: next.generation,
          candidate: route.candidate,
          kind,
          createdAtMs: ctx.nowMs,
        },
      },
    ],
    decision,
  );
}

/** Moves to the next eligible candidate of this cycle (list order, after the current one, wrapping). */
function switchToNext(route: RouteCommon, ctx: TransitionContext): { route: Route; effects: RouteEffect[] } {
  const order = ctx.candidates.map((c) => c.profile_id);
  const start = order.indexOf(route.candidate);
  const excluded = new Set(route.excluded);
  let next: string | null = null;
  const behindCircuits: string[] = [];
  for (let i = 1; i <= order.length && next === null; i++) {
    const id = order[(start + i + order.length) % order.length]!;
    const candidate = ctx.candidates.find((c) => c.profile_id === id)!;
    if (id === route.candidate || excluded.has(id) || !candidate.enabled) continue;
    if (ctx.eligible(id)) next = id;
    else behindCircuits.push(id);
  }
  if (next === null) {
    // Say why, so a person knows whether waiting would help (a circuit expires) or the cycle is spent.
    const detail =
      behindCircuits.length > 0
        ? `no eligible candidate: ${behindCircuits.join(', ')} ${behindCircuits.length === 1 ? 'is' : 'are'} behind an open circuit`
        : 'every candidate of this cycle was skipped or is disabled';
    return { route: actionRequired(route, 'candidates_exhausted', detail, [], ctx), effects: [] };
  }
  const intentId = ctx.newIntentId();
  const generation = route.generation + 1;
  return {
    route: {
      ...base(route),
      state: 'switching',
      nextCandidate: next,
      generation,
      dispatch: { intentId, kind: 'successor', candidate: next, acknowledged: false },
      revision: route.revision + 1,
      updatedAtMs: ctx.nowMs,
    },
    effects: [
      {
        kind: 'dispatch',
        intent: {
          id: intentId,
          routeId: route.id,
          generation,
          candidate: next,
          kind: 'successor',
          createdAtMs: ctx.nowMs,
        },
      },
    ],
  };
}

function toActionRequired(
  route: Route,
  ctx: TransitionContext,
  reason: ActionReason,
  detail: string,
  recovery: readonly string[],
): Transition {
  return changed(
    actionRequired(base(route), reason, detail, recovery.length > 0 ? recovery : recoveryOf(route), ctx),
    [],
    reason,
  );
}

function actionRequired(
  route: RouteCommon,
  reason: ActionReason,
  detail: string | null,
  recovery: readonly string[],
  ctx: TransitionContext,
): Route {
  return {
    ...base(route),
    state: 'action_required',
    reason,
    detail,
    recoveryActions: recovery,
    dispatch: route.dispatch,
    revision: route.revision + 1,
    updatedAtMs: ctx.nowMs,
  };
}

function recoveryOf(route: RouteCommon): readonly string[] {
  return route.mode === 'interactive' ? [...manualRecoveryActions] : [];
}

/** A provider answer for an attempt is proof its dispatch was delivered. */
function delivered(dispatch: PendingDispatch | null): PendingDispatch | null {
  return dispatch === null || dispatch.acknowledged ? dispatch : { ...dispatch, acknowledged: true };
}

/** The fields every state shares, with the state-specific ones dropped. */
function base(route: RouteCommon): RouteCommon {
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
    updatedAtMs: route.updatedAtMs,
  };
}

function change(route: RouteCommon, ctx: TransitionContext, decision: string, next: Route): Transition {
  return changed({ ...next, revision: route.revision + 1, updatedAtMs: ctx.nowMs }, [], decision);
}

function changed(route: Route, effects: readonly RouteEffect[], decision: string): Transition {
  return { outcome: 'changed', route, effects, decision };
}

function refuse(route: Route, reason: RefusalReason): Transition {
  return { outcome: 'refused', route, reason };
}

function summarize(c: Classification): FailureSummary {
  return {
    code: c.code,
    provider_id: c.provider_id,
    model_id: c.model_id,
    scope: c.scope,
    class: c.class,
    catalogue_version: c.catalogue_version,
    classifier_rule: c.classifier_rule,
    safe_excerpt: c.safe_excerpt,
    retry_after: c.retry_after,
    reset_at: c.reset_at,
  };
}
