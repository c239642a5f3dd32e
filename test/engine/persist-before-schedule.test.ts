import { describe, expect, it } from 'vitest';
import { envelopes, harness, profileDocument, replayOf } from './harness.js';
import type { Store, StoreTransaction } from '../../src/core/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import { off, retries, standardPolicy, t0 } from '../core/route/route-fixtures.js';

/**
 * Fault injection: a real SQLite store whose transaction fails in a chosen write, or at commit (the work ran,
 * the commit did not land), or whose commit landed but its answer was lost (`commit-reply`: a PostgreSQL
 * connection cut by a restart just after the server applied COMMIT). The store is real; only the failure is
 * injected, because a full disk or a connection cut at that very instant cannot be produced on demand here.
 */
function faulty(faults: Set<string>) {
  return (store: Store): Store => ({
    ...store,
    migrate: () => store.migrate(),
    close: () => store.close(),
    readRoute: (id) => store.readRoute(id),
    readProfile: (id) => store.readProfile(id),
    earliestDeadline: () => store.earliestDeadline(),
    dueRoutes: (now, limit) => store.dueRoutes(now, limit),
    scheduledRoutes: () => store.scheduledRoutes(),
    awaitingRoutes: () => store.awaitingRoutes(),
    unresolvedIntents: () => store.unresolvedIntents(),
    storedIntents: (ids) => store.storedIntents(ids),
    listIntents: (id) => store.listIntents(id),
    listAttempts: (id) => store.listAttempts(id),
    readCircuit: (key) => store.readCircuit(key),
    listPlanErrors: (id) => store.listPlanErrors(id),
    countRoutes: () => store.countRoutes(),
    countCircuits: () => store.countCircuits(),
    transact: async (work) => {
      const committed = await store.transact(async (tx) => {
        const proxied = new Proxy(tx, {
          get(target, property: keyof StoreTransaction) {
            if (faults.has(property)) return () => Promise.reject(new Error(`injected fault: ${property}`));
            return (target[property] as (...a: unknown[]) => unknown).bind(target);
          },
        });
        const result = await work(proxied);
        if (faults.has('commit')) throw new Error('injected fault: commit');
        return result;
      });
      // Once: the commit landed, its answer did not.
      if (faults.delete('commit-reply')) throw new Error('injected fault: connection lost after COMMIT');
      return committed;
    },
  });
}

async function started(faults: Set<string>, policy: object) {
  const h = await harness({ wrapStore: faulty(faults) });
  await h.engine.saveProfile(profileDocument(policy));
  await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
  await h.engine.idle();
  return h;
}

describe('persist before scheduling (fault injection on a real SQLite store)', () => {
  for (const fault of ['appendAttempt', 'updateRoute', 'commit']) {
    it(`[DUR-03][DUR-04] a retry decision whose write fails (${fault}) arms no timer and changes nothing`, async () => {
      const faults = new Set<string>();
      const h = await started(faults, standardPolicy);
      try {
        const before = await h.route('r1');
        faults.add(fault);
        await expect(h.fail('r1', envelopes.overloaded)).rejects.toThrow(/injected fault/);
        expect(h.clock.pending()).toBe(0);
        expect(h.engine.armedFor()).toBeNull();
        expect(await h.route('r1')).toEqual(before);
        expect(await h.store.listAttempts('r1')).toEqual([]);
        await h.advance(3600);
        expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);

        // Once the store works again the same failure is decided exactly once: nothing was half-done.
        faults.clear();
        expect((await h.fail('r1', envelopes.overloaded)).route.state).toBe('retry_wait');
        expect(await h.store.listAttempts('r1')).toHaveLength(1);
        expect(h.engine.armedFor()).toBe(t0 + 3600_000 + 5000);
      } finally {
        await h.close();
      }
    });
  }

  for (const fault of ['insertIntent', 'appendAttempt', 'commit']) {
    it(`[DUR-04] a skip whose write fails (${fault}) launches no successor`, async () => {
      const faults = new Set<string>();
      const h = await started(faults, { version: 1, transient: { ...off, on_exhausted: 'skip' }, hard: off });
      try {
        faults.add(fault);
        await expect(h.fail('r1', envelopes.overloaded)).rejects.toThrow(/injected fault/);
        await h.advance(600);
        expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);
        expect(await h.route('r1')).toMatchObject({ state: 'active', candidate: 'a', generation: 1 });
        expect((await h.store.listIntents('r1')).map((i) => i.kind)).toEqual(['initial']);
      } finally {
        await h.close();
      }
    });
  }

  it('[DUR-04] a deadline whose dispatch write fails repeats nothing and retries the firing later', async () => {
    const faults = new Set<string>();
    const h = await started(faults, { version: 1, transient: retries(2, 5, 'stop'), hard: off });
    try {
      await h.fail('r1', envelopes.overloaded);
      faults.add('insertIntent');
      await h.advance(5);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);
      expect(await h.route('r1')).toMatchObject({ state: 'retry_wait', retryOrdinal: 1 });
      expect(h.events.some((e) => e.type === 'error')).toBe(true);
      faults.clear();
      await h.advance(7);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'retry:a:1']);
    } finally {
      await h.close();
    }
  });

  it('[DUR-04][DUR-06] a firing whose COMMIT landed but whose answer was lost is sent once, as committed', async () => {
    const faults = new Set<string>();
    const h = await started(faults, { version: 1, transient: retries(2, 5, 'stop'), hard: off });
    try {
      await h.fail('r1', envelopes.overloaded);
      faults.add('commit-reply');
      await h.advance(5);
      expect(faults.has('commit-reply')).toBe(false);
      // Taken for undone, the committed retry was never sent and its intent waited unanswered for good.
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'retry:a:1']);
      const intents = await h.store.listIntents('r1');
      expect(intents.map((i) => [i.kind, i.outcome])).toEqual([
        ['initial', 'acknowledged'],
        ['retry', 'acknowledged'],
      ]);
      expect(await h.route('r1')).toMatchObject({ state: 'retrying', retryOrdinal: 1 });
      await h.advance(600);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'retry:a:1']);
    } finally {
      await h.close();
    }
  });

  it('[DUR-03][DUR-04] a wait whose COMMIT landed but whose answer was lost still fires at its deadline', async () => {
    const faults = new Set<string>();
    const h = await started(faults, { version: 1, transient: retries(2, 5, 'stop'), hard: off });
    try {
      faults.add('commit-reply');
      // No intent tells whether it landed: the caller hears the error (its repeat is refused as stale) ...
      await expect(h.fail('r1', envelopes.overloaded)).rejects.toThrow(/connection lost after COMMIT/);
      await h.engine.idle();
      expect(await h.route('r1')).toMatchObject({ state: 'retry_wait', deadlineMs: t0 + 5000 });
      // ... but the deadline it stored is armed from the store, not left without a timer until a restart.
      expect(h.engine.armedFor()).toBe(t0 + 5000);
      await h.advance(5);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'retry:a:1']);
    } finally {
      await h.close();
    }
  });

  it('[DUR-04] a report whose COMMIT landed but whose answer was lost answers its caller and launches the successor once', async () => {
    const faults = new Set<string>();
    const h = await started(faults, { version: 1, transient: { ...off, on_exhausted: 'skip' }, hard: off });
    try {
      faults.add('commit-reply');
      const outcome = await h.fail('r1', envelopes.overloaded);
      // The caller hears what was decided, not an error for a decision that landed.
      expect(outcome.outcome).toBe('changed');
      await h.advance(600);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'successor:b:2']);
      expect((await h.store.listIntents('r1')).map((i) => i.kind).sort()).toEqual(['initial', 'successor']);
    } finally {
      await h.close();
    }
  });

  it('[DUR-03] the decision, attempt, deadline and intent are committed before a timer is armed or a dispatch sent', async () => {
    const h = await started(new Set(), { version: 1, transient: retries(1, 5, 'skip'), hard: off });
    // A second connection reads what is committed, at the instant the engine arms and dispatches.
    const observer = openSqliteStore({ file: h.file });
    const seenAtArm: unknown[] = [];
    const seenAtDispatch: unknown[] = [];
    const schedule = h.clock.schedule.bind(h.clock);
    h.clock.schedule = (atMs, fire) => {
      seenAtArm.push(
        observer.readRoute('r1').then((r) => ({
          atMs,
          state: r?.state,
          deadline: r?.state === 'retry_wait' ? r.deadlineMs : null,
        })),
      );
      return schedule(atMs, fire);
    };
    h.dispatcher.onDispatch = async (intent) => {
      const intents = await observer.listIntents('r1');
      seenAtDispatch.push({ kind: intent.kind, committed: intents.some((i) => i.id === intent.id) });
    };
    try {
      await h.fail('r1', envelopes.overloaded);
      expect(await Promise.all(seenAtArm)).toEqual([
        { atMs: t0 + 5000, state: 'retry_wait', deadline: t0 + 5000 },
      ]);
      expect((await observer.listAttempts('r1')).map((a) => a.decision)).toEqual(['retry']);
      await h.advance(5);
      await h.fail('r1', envelopes.overloaded);
      expect(seenAtDispatch).toEqual([
        { kind: 'retry', committed: true },
        { kind: 'successor', committed: true },
      ]);
    } finally {
      await observer.close();
      await h.close();
    }
  });

  it('[SAF-02][EVL-01] a replay snapshot of another attempt is stale: refused, kept only as sanitized history', async () => {
    const h = await started(new Set(), standardPolicy);
    try {
      const r = await h.route('r1');
      const old = replayOf({ ...r, dispatch: { ...r.dispatch!, intentId: 'an-earlier-attempt' } });
      const outcome = await h.engine.reportFailure({
        routeId: 'r1',
        generation: 1,
        evidence: envelopes.overloaded,
        replay: old,
      });
      expect(outcome).toMatchObject({
        outcome: 'refused',
        reason: 'stale_evidence',
        route: { state: 'active' },
      });
      expect(await h.route('r1')).toEqual(r);
      expect(await h.store.listAttempts('r1')).toMatchObject([
        { decision: 'stale: the replay evidence belongs to another attempt', code: 'provider_overloaded' },
      ]);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);
    } finally {
      await h.close();
    }
  });
});
