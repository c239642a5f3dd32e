import { describe, expect, it } from 'vitest';
import { envelopes, harness, profileDocument, replayOf } from './harness.js';
import { deadlineOf, type EvidenceEnvelope, type Store } from '../../src/core/index.js';
import { standardPolicy, t0 } from '../core/route/route-fixtures.js';

/**
 * The engine's state machine and timers as a hostile reviewer drives them: reads and commits interleaved at the
 * worst moment, on a real SQLite file. Each case failed before its fix.
 */

/** The store with its `earliestDeadline` read held open until `release` (a slow read: a PostgreSQL round trip). */
function slowDeadlineReads() {
  const gate = { held: null as Promise<void> | null, release: () => undefined as void, reads: 0 };
  const hold = () => {
    gate.held = new Promise<void>((resolve) => {
      gate.release = () => {
        gate.held = null;
        resolve();
      };
    });
  };
  const wrap = (store: Store): Store =>
    new Proxy(store, {
      get(target, property, receiver) {
        if (property !== 'earliestDeadline') {
          const value = Reflect.get(target, property, receiver) as unknown;
          return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
        }
        return async () => {
          const read = await target.earliestDeadline();
          const held = gate.held;
          if (held !== null) {
            gate.reads++;
            await held;
          }
          return read;
        };
      },
    });
  return { gate, hold, wrap };
}

describe('timers are never lost', () => {
  it('[DUR-01][RTE-08] a retry committed while the timer is re-armed after a cancel still fires', async () => {
    const slow = slowDeadlineReads();
    const h = await harness({ wrapStore: slow.wrap });
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.startRoute({ routeId: 'r2', profileId: 'p' });
      await h.engine.idle();
      await h.fail('r1', envelopes.overloaded);
      // Cancelling r1's wait re-arms the timer from the stored deadlines; that read sees none and is held open...
      slow.hold();
      await h.engine.act({ routeId: 'r1', action: 'cancel', expectedGeneration: 1 });
      while (slow.gate.reads === 0) await new Promise((resolve) => setImmediate(resolve));
      // ...while r2's failure commits a retry 5 s away and arms the timer for it.
      const r2 = await h.route('r2');
      const failed = await h.engine.reportFailure({
        routeId: 'r2',
        generation: 1,
        invocationId: r2.dispatch!.intentId,
        evidence: envelopes.overloaded,
        replay: replayOf(r2),
      });
      expect(failed.route).toMatchObject({ state: 'retry_wait', deadlineMs: r2.updatedAtMs + 5000 });
      // The read answers with what it saw before r2's retry: the timer must still fire for r2.
      slow.gate.release();
      await h.engine.idle();
      expect(h.engine.armedFor()).toBe(r2.updatedAtMs + 5000);
      await h.advance(3600);
      expect((await h.route('r2')).state).toBe('retrying');
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'initial:a:1', 'retry:a:1']);
    } finally {
      slow.gate.release();
      await h.close();
    }
  });
});

/** A route r1 on profile p (candidates a, b, c), failed once with a transient overload: retry_wait, due in 5 s. */
async function waitingRoute(document: object = profileDocument(standardPolicy)) {
  const h = await harness();
  await h.engine.saveProfile(document as Parameters<typeof h.engine.saveProfile>[0]);
  await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
  await h.engine.idle();
  await h.fail('r1', envelopes.overloaded);
  return h;
}

describe('every action in every state', () => {
  it('[RTE-15][RTE-18] Stop during a switch names the successor; its late answers schedule nothing; Retry now re-sends there', async () => {
    const h = await waitingRoute();
    try {
      h.dispatcher.mode = 'lose';
      const skipped = await h.engine.act({ routeId: 'r1', action: 'skip_now', expectedGeneration: 1 });
      expect(skipped.route).toMatchObject({ state: 'switching', nextCandidate: 'b', generation: 2 });
      const stopped = await h.engine.act({ routeId: 'r1', action: 'stop', expectedGeneration: 2 });
      expect(stopped.route).toMatchObject({ state: 'action_required', reason: 'stopped', candidate: 'b' });
      const successor = stopped.route.dispatch!.intentId;
      const acked = await h.engine.acknowledgeDispatch({ routeId: 'r1', intentId: successor });
      expect(acked.route).toMatchObject({ state: 'action_required', generation: 2 });
      const late = await h.engine.reportFailure({
        routeId: 'r1',
        generation: 2,
        invocationId: successor,
        evidence: envelopes.overloaded,
        replay: replayOf(await h.route('r1')),
      });
      expect(late).toMatchObject({ outcome: 'refused', reason: 'route_stopped' });
      h.dispatcher.mode = 'ack';
      const again = await h.engine.act({ routeId: 'r1', action: 'retry_now', expectedGeneration: 2 });
      expect(again.route).toMatchObject({ state: 'retrying', candidate: 'b', generation: 3 });
      await h.advance(3600);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'successor:b:2', 'manual:b:3']);
    } finally {
      await h.close();
    }
  });

  it('[RTE-15] Skip now with no candidate left: from a wait it stops (candidates_exhausted); again, it is refused and nothing moves', async () => {
    const h = await waitingRoute({
      id: 'p',
      name: 'P',
      candidates: [{ profile_id: 'a', policy: standardPolicy }],
    });
    try {
      const first = await h.engine.act({ routeId: 'r1', action: 'skip_now', expectedGeneration: 1 });
      expect(first.route).toMatchObject({ state: 'action_required', reason: 'candidates_exhausted' });
      const second = await h.engine.act({ routeId: 'r1', action: 'skip_now', expectedGeneration: 1 });
      expect(second).toMatchObject({
        outcome: 'refused',
        reason: 'not_allowed',
        route: { state: 'action_required', generation: 1, revision: first.route.revision },
      });
      await h.advance(3600);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);
    } finally {
      await h.close();
    }
  });

  it('[RTE-14][RTE-20] every action on a finished route is refused with its snapshot; on a purged route it is not_found', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.idle();
      const r = await h.route('r1');
      await h.engine.reportSuccess({ routeId: 'r1', generation: 1, invocationId: r.dispatch!.intentId });
      for (const action of ['retry_now', 'skip_now', 'cancel', 'stop'] as const) {
        const outcome = await h.engine.act({ routeId: 'r1', action, expectedGeneration: 1 });
        expect(outcome, action).toMatchObject({
          outcome: 'refused',
          reason: 'not_allowed',
          route: { state: 'active' },
        });
      }
      expect(await h.engine.purgeRoutes({ beforeMs: h.clock.now() + 1 })).toBe(1);
      await expect(
        h.engine.act({ routeId: 'r1', action: 'cancel', expectedGeneration: 1 }),
      ).rejects.toMatchObject({ code: 'not_found' });
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);
    } finally {
      await h.close();
    }
  });

  it('[RTE-18][DUR-05] Retry now on a waiting route, then a restart: the old deadline never fires and the manual attempt is not sent again', async () => {
    const h = await waitingRoute();
    try {
      const now = await h.engine.act({ routeId: 'r1', action: 'retry_now', expectedGeneration: 1 });
      expect(now.route).toMatchObject({ state: 'retrying', generation: 1 });
      await h.engine.idle();
      const report = await h.restart();
      expect(report.rearmed).toEqual([]);
      expect(report.orphaned.map((o) => o.kind)).toEqual(['manual']);
      await h.advance(3600);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'manual:a:1']);
    } finally {
      await h.close();
    }
  });
});

describe('times in the future and in the past, policies at their bounds', () => {
  const waits = (maxWait: number) => ({
    version: 1,
    transient: {
      retry: { enabled: true, max_retries: 1, initial_interval_seconds: 1 },
      wait_for_reset: { enabled: true, max_wait_seconds: maxWait },
      on_exhausted: 'stop',
    },
    hard: {
      retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
      wait_for_reset: { enabled: true, max_wait_seconds: maxWait },
      on_exhausted: 'stop',
    },
  });
  const cases: [string, number, EvidenceEnvelope, string, number | null][] = [
    [
      '[EVL-02] a Retry-After of exactly max_wait_seconds waits',
      300,
      envelopes.unavailableRetryAfter(300),
      'waiting_for_reset',
      300,
    ],
    [
      '[EVL-11] one second beyond max_wait_seconds retries on the policy instead',
      300,
      envelopes.unavailableRetryAfter(301),
      'retry_wait',
      1,
    ],
    [
      '[EVL-10] a Retry-After of 0 is a reset already passed: the policy retries',
      300,
      envelopes.unavailableRetryAfter(0),
      'retry_wait',
      1,
    ],
    [
      '[EVL-02] a reset exactly 7 days away (the largest max_wait_seconds) waits',
      604_800,
      envelopes.quotaResetAt(t0 + 604_800_000),
      'waiting_for_reset',
      604_800,
    ],
    [
      '[EVL-11] a reset 7 days and a second away is not waited for',
      604_800,
      envelopes.quotaResetAt(t0 + 604_801_000),
      'action_required',
      null,
    ],
    [
      '[EVL-10] a reset at the current instant is not waited for',
      604_800,
      envelopes.quotaResetAt(t0),
      'action_required',
      null,
    ],
    [
      'a Retry-After observed a year ahead counts from the engine’s clock',
      300,
      { ...envelopes.unavailableRetryAfter(60), observed_at: '2027-06-01T12:00:00Z' },
      'waiting_for_reset',
      60,
    ],
  ];
  for (const [title, maxWait, evidence, state, afterSeconds] of cases) {
    it(title, async () => {
      const h = await harness();
      try {
        await h.engine.saveProfile(profileDocument(waits(maxWait)));
        await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
        await h.engine.idle();
        const failed = await h.fail('r1', evidence);
        expect(failed.route.state).toBe(state);
        expect(deadlineOf(failed.route)).toBe(afterSeconds === null ? null : t0 + afterSeconds * 1000);
        await h.advance(afterSeconds ?? 3600);
        expect(h.dispatcher.sent).toHaveLength(afterSeconds === null ? 1 : 2);
      } finally {
        await h.close();
      }
    });
  }

  it('[EVL-17] ten retries from an hour: each delay doubles and is clamped to 24 hours, then the route stops', async () => {
    const h = await harness();
    try {
      const policy = {
        ...waits(1),
        transient: {
          retry: { enabled: true, max_retries: 10, initial_interval_seconds: 3600 },
          wait_for_reset: { enabled: false, max_wait_seconds: 0 },
          on_exhausted: 'stop',
        },
      };
      await h.engine.saveProfile(profileDocument(policy));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.idle();
      const delays: number[] = [];
      for (;;) {
        const failed = await h.fail('r1', envelopes.overloaded);
        const due = deadlineOf(failed.route);
        if (due === null) {
          expect(failed.route).toMatchObject({ state: 'action_required', reason: 'exhausted' });
          break;
        }
        delays.push((due - h.clock.now()) / 1000);
        await h.advance((due - t0) / 1000);
      }
      expect(delays).toEqual([3600, 7200, 14_400, 28_800, 57_600, 86_400, 86_400, 86_400, 86_400, 86_400]);
    } finally {
      await h.close();
    }
  });
});

/**
 * Starts `routeId` with a dispatch that is never delivered: the route stops as ambiguous, waits for nothing and can be
 * purged at once. The dispatcher acknowledges again afterwards.
 */
async function startUndeliveredRoute(h: Awaited<ReturnType<typeof harness>>, routeId: string): Promise<void> {
  h.dispatcher.mode = 'reject';
  await h.engine.startRoute({ routeId, profileId: 'p' });
  await h.engine.idle();
  h.dispatcher.mode = 'ack';
}

describe('retention', () => {
  it('[RTE-16][RTE-17] a route started again under a purged id goes on from its generation: an action fenced on the purged one is stale', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await startUndeliveredRoute(h, 'r1');
      const stopped = await h.route('r1');
      expect(stopped).toMatchObject({ state: 'action_required', reason: 'ambiguous_dispatch' });
      expect(await h.engine.purgeRoutes({ beforeMs: h.clock.now() + 1 })).toBe(1);
      // A restart between: the generation is stored, not remembered in memory.
      await h.restart();
      const again = await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      expect(again.generation).toBe(stopped.generation + 1);
      await h.engine.idle();
      // An operator acting on the generation they saw of the purged route: refused, nothing moves.
      const late = await h.engine.act({
        routeId: 'r1',
        action: 'stop',
        expectedGeneration: stopped.generation,
      });
      expect(late).toMatchObject({ outcome: 'refused', reason: 'stale_generation' });
      expect(await h.route('r1')).toMatchObject({ state: 'active', generation: stopped.generation + 1 });
      // The initial dispatch of the new route carries its generation.
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', `initial:a:${stopped.generation + 1}`]);
    } finally {
      await h.close();
    }
  });

  it("a purged route's generation is forgotten by a purge 30 days later: retention leaves no row per route for good", async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await startUndeliveredRoute(h, 'r1');
      expect(await h.engine.purgeRoutes({ beforeMs: h.clock.now() + 1 })).toBe(1);
      await h.advance(29 * 86_400); // day 29
      expect(await h.engine.purgeRoutes({ beforeMs: h.clock.now() })).toBe(0);
      expect((await h.engine.startRoute({ routeId: 'r1', profileId: 'p' })).generation).toBe(2);
      await h.engine.idle();
      await startUndeliveredRoute(h, 'r2');
      expect(await h.engine.purgeRoutes({ beforeMs: h.clock.now() + 1 })).toBe(1);
      // `advance` sets the clock to t0 plus its seconds: day 60, 31 days after r2 was purged.
      await h.advance(60 * 86_400);
      // This purge finds nothing to delete, and forgets r2's generation.
      expect(await h.engine.purgeRoutes({ beforeMs: h.clock.now() - 86_400_000 * 40 })).toBe(0);
      expect((await h.engine.startRoute({ routeId: 'r2', profileId: 'p' })).generation).toBe(1);
    } finally {
      await h.close();
    }
  });

  it('a route stopped for an ambiguous dispatch waits for nothing: it is purged, and then its profile can go', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      h.dispatcher.mode = 'reject';
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.idle();
      expect(await h.route('r1')).toMatchObject({
        state: 'action_required',
        reason: 'ambiguous_dispatch',
        dispatch: { acknowledged: false, finished: false },
      });
      // A restart changes nothing about it: before, such a route stayed for good and kept its profile in use.
      await h.restart();
      expect(await h.engine.purgeRoutes({ beforeMs: h.clock.now() + 1 })).toBe(1);
      await h.engine.deleteProfile('p');
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);
    } finally {
      await h.close();
    }
  });

  it('a route stopped while its attempt is still being delivered stays until the dispatcher answers', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      let deliver!: () => void;
      h.dispatcher.onDispatch = () => new Promise<void>((resolve) => (deliver = resolve));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      const stopped = await h.engine.act({ routeId: 'r1', action: 'stop', expectedGeneration: 1 });
      expect(stopped.route).toMatchObject({ state: 'action_required', reason: 'stopped' });
      expect(await h.engine.purgeRoutes({ beforeMs: h.clock.now() + 1 })).toBe(0);
      deliver();
      await h.engine.idle();
      // Delivered: the attempt runs on and its answer still counts, so the route stays.
      expect(await h.engine.purgeRoutes({ beforeMs: h.clock.now() + 1 })).toBe(0);
    } finally {
      await h.close();
    }
  });
});

describe('a route stopped while its attempt ran, then a restart', () => {
  it('[DUR-06] the restart reports the attempt orphaned; the route can then be purged, and a late answer before that still counts', async () => {
    const h = await waitingRoute();
    try {
      await h.advance(5);
      const retrying = await h.route('r1');
      expect(retrying).toMatchObject({ state: 'retrying', dispatch: { acknowledged: true } });
      await h.engine.act({ routeId: 'r1', action: 'cancel', expectedGeneration: 1 });
      expect(await h.engine.purgeRoutes({ beforeMs: h.clock.now() + 1 })).toBe(0);
      const report = await h.restart();
      expect(report.orphaned).toEqual([
        expect.objectContaining({ routeId: 'r1', intentId: retrying.dispatch!.intentId, kind: 'retry' }),
      ]);
      expect(await h.route('r1')).toMatchObject({
        state: 'action_required',
        reason: 'cancelled',
        dispatch: { orphaned: true, finished: false },
      });
      // Every restart reports it again until it is purged.
      expect((await h.restart()).orphaned).toHaveLength(1);
      expect(await h.engine.purgeRoutes({ beforeMs: h.clock.now() + 1 })).toBe(1);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'retry:a:1']);
    } finally {
      await h.close();
    }
  });

  it('[DUR-06] a late success of the orphaned attempt of a stopped route still makes it active', async () => {
    const h = await waitingRoute();
    try {
      await h.advance(5);
      const retrying = await h.route('r1');
      await h.engine.act({ routeId: 'r1', action: 'stop', expectedGeneration: 1 });
      await h.restart();
      const late = await h.engine.reportSuccess({
        routeId: 'r1',
        generation: 1,
        invocationId: retrying.dispatch!.intentId,
      });
      expect(late).toMatchObject({ outcome: 'changed', route: { state: 'active' } });
    } finally {
      await h.close();
    }
  });
});
