import { describe, expect, it } from 'vitest';
import {
  candidates,
  context,
  doc,
  evidence,
  expectChanged,
  failure,
  fresh,
  off,
  retries,
  routesInEveryState,
  safe,
  standardPolicy,
  step,
  t0,
  waitsUpTo,
} from './route-fixtures.js';
import { routeStates, transition, type Route, type RouteEvent } from '../../../src/core/index.js';

describe('route state machine: each row of the table', () => {
  const states = routesInEveryState();

  it('[RTE-01] has exactly the six states of the seed', () => {
    expect([...routeStates]).toEqual([
      'active',
      'waiting_for_reset',
      'retry_wait',
      'retrying',
      'switching',
      'action_required',
    ]);
    expect(Object.keys(states).sort()).toEqual([...routeStates].sort());
  });

  it('[RTE-02][EVL-13] active -> waiting_for_reset on a classified, safe failure with an eligible reset wait', () => {
    const t = expectChanged(transition(states.active, failure(evidence.quotaResetIn(60, 1)), context(1)));
    expect(t.route).toMatchObject({
      state: 'waiting_for_reset',
      deadlineMs: t0 + 61_000,
      failureClass: 'hard',
      pendingOutcome: 'stop',
      generation: 1,
    });
    expect(t.route.usage.resetWaitUsed.hard).toBe(true);
    expect(t.effects.map((e) => e.kind)).toEqual(['record_attempt', 'arm_timer']);
    expect(t.effects[1]).toEqual({ kind: 'arm_timer', routeId: 'r1', generation: 1, dueAtMs: t0 + 61_000 });
  });

  it('[RTE-03][DUR-03] active -> retry_wait with budget; the attempt row carries every decision field', () => {
    const t = expectChanged(transition(states.active, failure(evidence.overloaded), context(1)));
    expect(t.route).toMatchObject({
      state: 'retry_wait',
      retryOrdinal: 1,
      maxRetries: 3,
      deadlineMs: t0 + 6000,
      pendingOutcome: 'skip',
    });
    const attempt = t.effects.find((e) => e.kind === 'record_attempt');
    expect(attempt).toMatchObject({
      kind: 'record_attempt',
      attempt: {
        routeId: 'r1',
        candidate: 'a',
        generation: 1,
        code: 'provider_overloaded',
        failureClass: 'transient',
        catalogueVersion: evidence.overloaded.catalogue_version,
        rule: 'anthropic.overloaded_error.v1',
        policySnapshot: standardPolicy.transient,
        decision: 'retry',
        retryOrdinal: 1,
        deadlineMs: t0 + 6000,
        pendingOutcome: 'skip',
        atMs: t0 + 1000,
      },
    });
  });

  it('[RTE-04][SCN-04] active -> switching when recovery is exhausted with skip: a successor dispatch, a new generation', () => {
    const ctx = context(1, { candidates: candidates(doc({ ...off, on_exhausted: 'skip' }, off)) });
    const t = expectChanged(transition(states.active, failure(evidence.overloaded), ctx));
    expect(t.route).toMatchObject({
      state: 'switching',
      nextCandidate: 'b',
      generation: 2,
      candidate: 'a',
      excluded: ['a'],
    });
    const dispatch = t.effects.find((e) => e.kind === 'dispatch');
    expect(dispatch).toMatchObject({ intent: { candidate: 'b', generation: 2, kind: 'successor' } });
  });

  it('[RTE-05][SCN-05] active -> action_required when recovery is exhausted with stop, without trying another candidate', () => {
    const t = expectChanged(
      transition(
        states.active,
        failure(evidence.credits),
        context(1, { candidates: candidates(doc(off, off)) }),
      ),
    );
    expect(t.route).toMatchObject({
      state: 'action_required',
      reason: 'exhausted',
      candidate: 'a',
      generation: 1,
    });
    expect(t.effects.some((e) => e.kind === 'dispatch')).toBe(false);
  });

  it('[RTE-06][SCN-06][SCN-07] active -> action_required on an unclassified or an unsafe failure, whatever the policy says', () => {
    const unclassified = expectChanged(transition(states.active, failure(evidence.unknown), context(1)));
    expect(unclassified.route).toMatchObject({ state: 'action_required', reason: 'unclassified' });
    const unsafe = expectChanged(
      transition(
        states.active,
        failure(evidence.overloaded, { safe: false, reason: 'tool_activity' }),
        context(1),
      ),
    );
    expect(unsafe.route).toMatchObject({
      state: 'action_required',
      reason: 'unsafe',
      detail: 'tool_activity',
    });
    expect(unsafe.effects.map((e) => e.kind)).toEqual(['record_attempt']);
  });

  it('[RTE-07][EVL-13] waiting_for_reset -> retrying at the deadline of the current generation: one reset_retry dispatch', () => {
    const w = states.waiting_for_reset as Extract<Route, { state: 'waiting_for_reset' }>;
    const t = expectChanged(
      transition(w, { type: 'deadline', generation: 1 }, context((w.deadlineMs - t0) / 1000)),
    );
    expect(t.route).toMatchObject({
      state: 'retrying',
      generation: 1,
      dispatch: { kind: 'reset_retry', candidate: 'a', acknowledged: false },
    });
    expect(t.effects.filter((e) => e.kind === 'dispatch')).toHaveLength(1);
  });

  it('[RTE-08] retry_wait -> retrying at the deadline of the current generation, carrying the retry ordinal', () => {
    const t = expectChanged(transition(states.retry_wait, { type: 'deadline', generation: 1 }, context(6)));
    expect(t.route).toMatchObject({ state: 'retrying', retryOrdinal: 1, dispatch: { kind: 'retry' } });
  });

  it('[RTE-09] a deadline for a generation that is no longer current changes nothing', () => {
    const t = transition(states.retry_wait, { type: 'deadline', generation: 0 }, context(6));
    expect(t).toEqual({ outcome: 'refused', route: states.retry_wait, reason: 'stale_timer' });
  });

  it('[RTE-09] an early firing (the clock stepped back) changes nothing and arms the same absolute deadline again', () => {
    const t = transition(states.retry_wait, { type: 'deadline', generation: 1 }, context(3));
    expect(t).toEqual({
      outcome: 'unchanged',
      route: states.retry_wait,
      effects: [{ kind: 'arm_timer', routeId: 'r1', generation: 1, dueAtMs: t0 + 6000 }],
    });
  });

  it('[CIR-05] a deadline held by a shared circuit keeps waiting, durably, until the hold', () => {
    const t = expectChanged(
      transition(
        states.retry_wait,
        { type: 'deadline', generation: 1, heldUntilMs: t0 + 40_000 },
        context(6),
      ),
    );
    expect(t.route).toMatchObject({ state: 'retry_wait', deadlineMs: t0 + 40_000, retryOrdinal: 1 });
    expect(t.decision).toBe('circuit_hold');
    expect(t.effects).toEqual([{ kind: 'arm_timer', routeId: 'r1', generation: 1, dueAtMs: t0 + 40_000 }]);
  });

  it('[RTE-10][RTE-18] waiting_for_reset or retry_wait -> switching on Skip now', () => {
    for (const from of [states.retry_wait, states.waiting_for_reset]) {
      const t = expectChanged(
        transition(from, { type: 'action', action: 'skip_now', expectedGeneration: 1 }, context(2)),
      );
      expect(t.route).toMatchObject({
        state: 'switching',
        nextCandidate: 'b',
        generation: 2,
        excluded: ['a'],
      });
    }
  });

  it('[RTE-11][RTE-18] waiting_for_reset or retry_wait -> action_required on Cancel or Stop', () => {
    for (const from of [states.retry_wait, states.waiting_for_reset]) {
      for (const action of ['cancel', 'stop'] as const) {
        const t = expectChanged(
          transition(from, { type: 'action', action, expectedGeneration: 1 }, context(2)),
        );
        expect(t.route).toMatchObject({
          state: 'action_required',
          reason: action === 'cancel' ? 'cancelled' : 'stopped',
          generation: 1,
        });
        expect(t.effects).toEqual([]);
      }
    }
  });

  it('[RTE-12][EVL-09] retrying -> active on success; the route cycle ends (exclusions and budgets cleared)', () => {
    const t = expectChanged(transition(states.retrying, { type: 'success' }, context(7)));
    expect(t.route).toMatchObject({ state: 'active', cycle: 2, excluded: [], lastFailure: null });
    expect(t.route.usage.retriesUsed).toEqual({ transient: 0, hard: 0 });
  });

  it('[RTE-13] retrying -> retry_wait or waiting_for_reset, as the evaluation order decides', () => {
    const again = expectChanged(transition(states.retrying, failure(evidence.overloaded), context(7)));
    expect(again.route).toMatchObject({ state: 'retry_wait', retryOrdinal: 2, deadlineMs: t0 + 17_000 });
    const quota = expectChanged(
      transition(states.retrying, failure(evidence.quotaResetIn(60, 7)), context(7)),
    );
    expect(quota.route).toMatchObject({ state: 'waiting_for_reset', deadlineMs: t0 + 67_000 });
  });

  it('[RTE-14] retrying -> switching with skip, or action_required with stop, when recovery is exhausted', () => {
    let r = states.retrying;
    for (let s = 7; r.state !== 'switching' && s < 10_000; s += 100) {
      r = step(r, failure(evidence.overloaded), context(s));
      if (r.state === 'retry_wait')
        r = step(r, { type: 'deadline', generation: r.generation }, context((r.deadlineMs - t0) / 1000));
    }
    expect(r).toMatchObject({ state: 'switching', nextCandidate: 'b', generation: 2 });
    const stopping = expectChanged(
      transition(
        states.retrying,
        failure(evidence.overloaded),
        context(7, { candidates: candidates(doc({ ...off, on_exhausted: 'stop' }, off)) }),
      ),
    );
    expect(stopping.route).toMatchObject({ state: 'action_required', reason: 'exhausted' });
  });

  it('[RTE-14] an unsafe or unclassified failure while retrying -> action_required', () => {
    const t = expectChanged(
      transition(
        states.retrying,
        failure(evidence.overloaded, { safe: false, reason: 'assistant_output' }),
        context(7),
      ),
    );
    expect(t.route).toMatchObject({ state: 'action_required', reason: 'unsafe' });
  });

  it('[RTE-15][SCN-04] switching -> active on the successor once its dispatch is acknowledged; the same logical route', () => {
    const s = states.switching;
    const t = expectChanged(
      transition(s, { type: 'dispatch_acknowledged', intentId: s.dispatch!.intentId }, context(3)),
    );
    expect(t.route).toMatchObject({
      id: 'r1',
      state: 'active',
      candidate: 'b',
      generation: 2,
      dispatch: { acknowledged: true },
    });
    expect(t.route.usage.retriesUsed.transient).toBe(0);
  });

  it('[RTE-14] switching -> action_required when the successor dispatch is ambiguous', () => {
    const s = states.switching;
    const t = expectChanged(
      transition(s, { type: 'dispatch_ambiguous', intentId: s.dispatch!.intentId }, context(3)),
    );
    expect(t.route).toMatchObject({ state: 'action_required', reason: 'ambiguous_dispatch', generation: 2 });
  });

  it('[RTE-15] skip leaves no eligible candidate (excluded, disabled, behind an open circuit): candidates_exhausted', () => {
    const ctx = context(2, {
      candidates: [
        ...candidates(standardPolicy, ['a', 'b']),
        { profile_id: 'c', enabled: false, policy: standardPolicy },
      ],
      eligible: (id) => id !== 'b',
    });
    const t = expectChanged(
      transition(states.retry_wait, { type: 'action', action: 'skip_now', expectedGeneration: 1 }, ctx),
    );
    expect(t.route).toMatchObject({
      state: 'action_required',
      reason: 'candidates_exhausted',
      detail: 'no eligible candidate: b is behind an open circuit',
    });
    expect(t.effects).toEqual([]);
  });

  it('[RTE-14][RTE-18] Retry now from a wait -> retrying (a manual dispatch, same generation)', () => {
    const t = expectChanged(
      transition(
        states.retry_wait,
        { type: 'action', action: 'retry_now', expectedGeneration: 1 },
        context(2),
      ),
    );
    expect(t.route).toMatchObject({ state: 'retrying', generation: 1, dispatch: { kind: 'manual' } });
  });

  it('[RTE-14][RTE-16] leaving action_required (Retry now, Skip now) starts a new cycle and a new generation', () => {
    const ar = states.action_required;
    const retry = expectChanged(
      transition(ar, { type: 'action', action: 'retry_now', expectedGeneration: 1 }, context(2)),
    );
    expect(retry.route).toMatchObject({
      state: 'retrying',
      generation: 2,
      cycle: 2,
      candidate: 'a',
      dispatch: { kind: 'manual' },
    });
    const skip = expectChanged(
      transition(ar, { type: 'action', action: 'skip_now', expectedGeneration: 1 }, context(2)),
    );
    expect(skip.route).toMatchObject({
      state: 'switching',
      generation: 2,
      cycle: 2,
      nextCandidate: 'b',
      excluded: ['a'],
    });
  });

  it('[RTE-16] the generation advances only when a new candidate attempt begins', () => {
    const s = routesInEveryState();
    expect(fresh().generation).toBe(1);
    expect(
      [s.active, s.retry_wait, s.waiting_for_reset, s.retrying, s.action_required].map((r) => r.generation),
    ).toEqual([1, 1, 1, 1, 1]);
    expect(s.switching.generation).toBe(2);
  });

  it('[RTE-21] cancelling or stopping a route that already needs action changes nothing and does not fail', () => {
    const cancelled = step(
      states.retry_wait,
      { type: 'action', action: 'cancel', expectedGeneration: 1 },
      context(2),
    );
    for (const action of ['cancel', 'stop'] as const) {
      const again = transition(cancelled, { type: 'action', action, expectedGeneration: 1 }, context(3));
      expect(again).toEqual({ outcome: 'unchanged', route: cancelled, effects: [] });
    }
  });

  it('[RTE-19][RTE-20] an action with a stale expected generation is refused in every state, with the snapshot', () => {
    for (const route of Object.values(states)) {
      for (const action of ['retry_now', 'skip_now', 'cancel', 'stop'] as const) {
        const t = transition(
          route,
          { type: 'action', action, expectedGeneration: route.generation + 1 },
          context(2),
        );
        expect(t).toEqual({ outcome: 'refused', route, reason: 'stale_generation' });
      }
    }
  });

  it('[CUR-34] a failure while the agent prompt call is still open schedules nothing', () => {
    const event: RouteEvent = {
      type: 'failure',
      classification: evidence.overloaded,
      safety: safe,
      promptOpen: true,
    };
    const t = transition(states.active, event, context(1));
    expect(t).toEqual({ outcome: 'refused', route: states.active, reason: 'prompt_open' });
  });

  it('[EVL-09] reset waiting is used once per candidate and class in a cycle: the second reset hint retries or stops', () => {
    const policy = doc(off, waitsUpTo(300, retries(1, 30, 'stop')));
    const ctx = (s: number) => context(s, { candidates: candidates(policy) });
    let r = step(states.active, failure(evidence.quotaResetIn(60, 1)), ctx(1));
    r = step(r, { type: 'deadline', generation: 1 }, ctx(61));
    r = step(r, failure(evidence.quotaResetIn(60, 62)), ctx(62));
    expect(r).toMatchObject({ state: 'retry_wait', failureClass: 'hard', retryOrdinal: 1 });
  });
});

describe('route state machine: every (state, trigger) pair the table does not allow is refused and changes nothing', () => {
  const states = routesInEveryState();
  const triggers = (route: Route): Record<string, RouteEvent> => ({
    failure: failure(evidence.overloaded),
    success: { type: 'success' },
    deadline: { type: 'deadline', generation: route.generation },
    acknowledged: { type: 'dispatch_acknowledged', intentId: route.dispatch?.intentId ?? 'none' },
    ambiguous: { type: 'dispatch_ambiguous', intentId: route.dispatch?.intentId ?? 'none' },
    retry_now: { type: 'action', action: 'retry_now', expectedGeneration: route.generation },
    skip_now: { type: 'action', action: 'skip_now', expectedGeneration: route.generation },
    cancel: { type: 'action', action: 'cancel', expectedGeneration: route.generation },
    stop: { type: 'action', action: 'stop', expectedGeneration: route.generation },
  });
  // Which triggers each state accepts (any outcome but refused); every other pair must be refused.
  const allowed: Record<Route['state'], readonly string[]> = {
    active: ['failure', 'success'],
    waiting_for_reset: ['deadline', 'retry_now', 'skip_now', 'cancel', 'stop'],
    retry_wait: ['deadline', 'retry_now', 'skip_now', 'cancel', 'stop'],
    retrying: ['failure', 'success', 'acknowledged', 'ambiguous'],
    switching: ['acknowledged', 'ambiguous'],
    action_required: ['retry_now', 'skip_now', 'cancel', 'stop'],
  };

  for (const state of routeStates) {
    for (const name of Object.keys(triggers(states[state]))) {
      const accepted = allowed[state].includes(name);
      it(`[RTE-14] ${state} + ${name}: ${accepted ? 'accepted' : 'refused, nothing changes'}`, () => {
        const route = states[state];
        const snapshot = structuredClone(route);
        const t = transition(route, triggers(route)[name]!, context(400));
        if (accepted) {
          expect(t.outcome).not.toBe('refused');
        } else {
          expect(t.outcome).toBe('refused');
          expect(t.route).toBe(route);
        }
        expect(route).toEqual(snapshot);
      });
    }
  }
});

describe('concrete-profile interactive retry (the single orchestrator-owned entry)', () => {
  const start = () =>
    step(fresh('interactive'), { type: 'dispatch_acknowledged', intentId: 'intent-start' }, context(0));

  it('[CUR-36] five retries at 5, 10, 20, 40 and 60 s; exhaustion goes to manual recovery with Resume and Start fresh [CUR-37][CUR-33]', () => {
    let r = start();
    let now = 0;
    const delays: number[] = [];
    for (;;) {
      r = step(r, failure(evidence.overloaded), context(now, { candidates: [] }));
      if (r.state !== 'retry_wait') break;
      delays.push((r.deadlineMs - (t0 + now * 1000)) / 1000);
      now = (r.deadlineMs - t0) / 1000;
      r = step(r, { type: 'deadline', generation: r.generation }, context(now, { candidates: [] }));
      now += 1;
    }
    expect(delays).toEqual([5, 10, 20, 40, 60]);
    expect(r).toMatchObject({
      state: 'action_required',
      reason: 'exhausted',
      recoveryActions: ['resume', 'start_fresh'],
      generation: 1,
    });
  });

  it('[CUR-36][CAL-07] a trusted hint within 60 s replaces the delay; the class and timing come from the shared classifier', () => {
    const r = step(start(), failure(evidence.shortHint), context(0, { candidates: [] }));
    expect(r).toMatchObject({ state: 'retry_wait', deadlineMs: t0 + 7000, retryOrdinal: 1, maxRetries: 5 });
  });

  it('[CUR-29][CUR-33] an unsafe turn goes to manual recovery at once, offering Resume and Start fresh', () => {
    const r = step(
      start(),
      failure(evidence.overloaded, { safe: false, reason: 'thought' }),
      context(0, { candidates: [] }),
    );
    expect(r).toMatchObject({
      state: 'action_required',
      reason: 'unsafe',
      recoveryActions: ['resume', 'start_fresh'],
    });
  });

  it('[CUR-31] a hard failure is not retried by the interactive entry: manual recovery, never another provider', () => {
    const t = expectChanged(transition(start(), failure(evidence.credits), context(0, { candidates: [] })));
    expect(t.route).toMatchObject({ state: 'action_required', reason: 'not_retriable', candidate: 'a' });
    expect(t.effects.some((e) => e.kind === 'dispatch')).toBe(false);
  });
});
