import { afterAll, describe, expect, it } from 'vitest';
import { openCircuit, type Circuit, type ClusterTimers, type Store } from '../../src/core/index.js';
import { Engine, systemClock, type EngineEvent } from '../../src/engine/index.js';
import { dropSchemas } from '../helpers/postgres.js';
import { failOverloaded, replacingInTransaction, twoSharedNodes } from '../helpers/shared-node.js';
import { until } from '../helpers/until.js';
import { doc, off, retries, waitsUpTo } from '../core/route/route-fixtures.js';
import { profileDocument } from './harness.js';

// Two shared nodes on the real PostgreSQL at 127.0.0.1:5432 (database `test`, a fresh schema dropped at the end), on
// the system clock: due times are the database's. Their poll is an hour: only their own timers fire routes.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

const provider = 'provider:anthropic';
const onAnthropic = {
  a: { provider: 'anthropic', model: 'sonnet' },
  b: { provider: 'anthropic', model: 'opus' },
};

/** A shared engine on the system clock whose dispatcher accepts everything, its events pushed to `events`. */
function sharedEngine(store: Store, cluster: ClusterTimers, events: EngineEvent[]): Engine {
  return new Engine({
    store,
    clock: systemClock(),
    dispatcher: { dispatch: () => Promise.resolve() },
    shared: { cluster, leaseMs: 3_600_000, pollMs: 3_600_000 },
    onEvent: (e) => events.push(e),
  });
}

/**
 * Node B's engine, only for the time `act` takes (run inside node A's firing, whose routes A holds locked): alive
 * longer, B's own timer raced A's for the route under test (B learns every deadline), and fired it half the time on
 * a loaded machine, unwatched.
 */
async function onNodeB(nodeB: { store: Store; cluster?: ClusterTimers }, act: (b: Engine) => Promise<void>) {
  const engine = sharedEngine(nodeB.store, nodeB.cluster!, []);
  try {
    await engine.reconcile();
    await act(engine);
    await engine.idle();
  } finally {
    await engine.close();
  }
}

describe('[CIR-03][CIR-05] a shared node never commits a decision made on a circuit another node changed meanwhile', () => {
  it('a route held behind a probe that another node closes while the firing decides goes at once', async () => {
    const nodes = await twoSharedNodes(schemas, []);
    const { a, b } = nodes;
    // Node A's transactions as they are, but once armed: right after a read finds the provider's circuit open, node
    // B records the probe's success (closing it, and waking whatever it held) before A's decision goes on.
    let closeDuringRead: (() => Promise<void>) | null = null;
    const watched = replacingInTransaction(a.store, (tx) => ({
      readCircuits: async (keys: readonly string[]) => {
        const read = await tx.readCircuits(keys);
        const close = closeDuringRead;
        if (close !== null && read.get(provider)?.state === 'half_open') {
          closeDuringRead = null;
          await close();
        }
        return read;
      },
    }));
    const eventsA: EngineEvent[] = [];
    const engineA = sharedEngine(watched, a.cluster!, eventsA);
    try {
      await engineA.reconcile();
      // Reset waiting up to 10 min: a route behind a live probe lease waits for it rather than leave its candidate.
      // Retries 3 s apart: time enough, on a loaded machine, to set the circuit up before r2 comes due.
      await engineA.saveProfile(
        profileDocument(doc(waitsUpTo(600, retries(3, 3, 'stop')), off), onAnthropic),
      );
      for (const id of ['r1', 'r2']) await engineA.startRoute({ routeId: id, profileId: 'p' });
      await engineA.idle();
      // Armed from here on, it fires at the first read of the circuit half-open: r2's firing.
      const r1 = (await a.store.readRoute('r1'))!;
      closeDuringRead = () =>
        onNodeB(b, async (engineB) => {
          await engineB.reportSuccess({ routeId: 'r1', generation: r1.generation });
        });
      // r2 fails first and opens the provider's circuit: as its opener it retries on its own cadence, in 3 s.
      const r2 = await failOverloaded(engineA, a.store, 'r2');
      expect(r2).toMatchObject({ state: 'retry_wait' });
      const opened = (await a.store.readCircuit(provider))!;
      expect(opened).toMatchObject({ state: 'open', openedBy: 'r2', version: 1 });
      // Meanwhile the circuit moved on: r1 reopened it and now probes it, its lease live for a minute.
      const probing: Circuit = {
        ...opened,
        state: 'half_open',
        openedBy: 'r1',
        probeOwner: 'r1',
        probeLeaseUntilMs: Date.now() + 60_000,
        version: 2,
      };
      expect(await b.store.transact((tx) => tx.writeCircuit(probing, 1))).toBe(true);

      // r2 comes due: node A claims it and reads the circuit half-open behind r1's probe; before A decides, B closes
      // it. Decided on the circuit A read, r2 was held until the lease ended, a minute on: B's wake had looked for
      // the routes held behind the probe before A committed r2 as one of them, so nothing woke it.
      await until(async () => (await a.store.readRoute('r2'))!.revision !== r2.revision);
      await engineA.idle();
      expect(closeDuringRead).toBeNull();
      expect(await a.store.readCircuit(provider)).toMatchObject({ state: 'closed', version: 3 });
      expect(await a.store.readRoute('r2')).toMatchObject({
        state: 'retrying',
        candidate: 'a',
        retryOrdinal: 1,
      });
      expect(eventsA.filter((e) => e.type === 'dispatch' && e.intent.routeId === 'r2')).toHaveLength(2);
    } finally {
      await engineA.close();
      await nodes.close();
    }
  });

  it('a route held by a circuit that another node extends between its instant and its read of it is held, not switched', async () => {
    const nodes = await twoSharedNodes(schemas, []);
    const { a, b } = nodes;
    // Node A's transactions as they are, but once armed: the first read of the provider's circuit waits until the
    // clock has moved past the instant the piece could have taken, and node B extends the circuit by a failure of
    // its own (to B's now + 60 s) before the read goes to the database.
    let extendBeforeRead: (() => Promise<void>) | null = null;
    const watched = replacingInTransaction(a.store, (tx) => ({
      readCircuits: async (keys: readonly string[]) => {
        const extend = extendBeforeRead;
        if (extend !== null && keys.includes(provider)) {
          extendBeforeRead = null;
          const entered = Date.now();
          await until(() => Date.now() > entered);
          await extend();
        }
        return tx.readCircuits(keys);
      },
    }));
    const eventsA: EngineEvent[] = [];
    const engineA = sharedEngine(watched, a.cluster!, eventsA);
    try {
      await engineA.reconcile();
      // No reset waiting: a circuit open longer than its 60 s minimum makes the route leave its candidate (c sits
      // behind no provider circuit); one open no longer than that holds it. Retries 3 s apart, as above.
      await engineA.saveProfile(profileDocument(doc(retries(3, 3, 'stop'), off), onAnthropic));
      for (const id of ['r2', 'r3']) await engineA.startRoute({ routeId: id, profileId: 'p' });
      await engineA.idle();
      // The circuit is open, opened by a route that is not r2 (its opener would not be held).
      const opened = openCircuit(null, provider, 'provider', 'r1', Date.now(), null);
      expect(await b.store.transact((tx) => tx.writeCircuit(opened, 0))).toBe(true);
      // r2 fails behind it (extending it a little) and waits 3 s; its firing then finds the circuit open 57 s more.
      const r2 = await failOverloaded(engineA, a.store, 'r2');
      expect(r2).toMatchObject({ state: 'retry_wait', candidate: 'a' });
      extendBeforeRead = () =>
        onNodeB(b, async (engineB) => {
          expect(await failOverloaded(engineB, b.store, 'r3')).toMatchObject({ state: 'retry_wait' });
        });

      // r2 comes due on node A, which takes the piece's instant; B extends the circuit to its own now + 60 s before
      // A reads it. Decided at the instant taken before the read, the circuit looked open a few ms longer than its
      // 60 s minimum, and r2 left its candidate for c instead of waiting out the herd guard with everyone else.
      await until(async () => (await a.store.readRoute('r2'))!.revision !== r2.revision);
      await engineA.idle();
      expect(extendBeforeRead).toBeNull();
      const extended = (await a.store.readCircuit(provider))!;
      expect(extended).toMatchObject({ state: 'open', openedBy: 'r1', version: 3 });
      expect(await a.store.readRoute('r2')).toMatchObject({
        state: 'retry_wait',
        candidate: 'a',
        heldByCircuit: true,
        deadlineMs: extended.openUntilMs,
      });
      expect(eventsA.filter((e) => e.type === 'dispatch' && e.intent.routeId === 'r2')).toHaveLength(1);
    } finally {
      await engineA.close();
      await nodes.close();
    }
  });
});
