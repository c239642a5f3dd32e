import { afterAll, describe, expect, it } from 'vitest';
import type { DueLock, Store, StoreTransaction, TransactionPlan } from '../../src/core/index.js';
import { Engine, systemClock, type EngineEvent } from '../../src/engine/index.js';
import { dropSchemas } from '../helpers/postgres.js';
import { openSharedNodeDatabase } from '../helpers/shared-node.js';
import { profileDocument, replayOf } from './harness.js';
import { off, waitsUpTo } from '../core/route/route-fixtures.js';
import { until } from '../helpers/until.js';

// A shared node on the real PostgreSQL at 127.0.0.1:5432 (database `test`, a fresh schema dropped at the end), on
// the system clock: due times are the database's. Its poll is an hour: only its own timer fires the routes.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

/** What one transaction of the store did: whether it claimed due routes (and how many), and how many route pieces. */
interface Transaction {
  claimed: number | null;
  readonly routePieces: number;
}

/** The store as it is, each transaction noted: a claim's lock, and the route pieces the batch named. */
function recordingTransactions(store: Store) {
  const seen: Transaction[] = [];
  const recording: Store = Object.assign(Object.create(store) as Store, {
    transact: <T>(work: (tx: StoreTransaction) => Promise<T>, plan?: TransactionPlan) =>
      store.transact((tx) => {
        const noted: Transaction = { claimed: null, routePieces: plan?.routeIds?.length ?? 0 };
        seen.push(noted);
        const lockDueRoutes = async (lock: DueLock) => {
          const locked = await tx.lockDueRoutes!(lock);
          noted.claimed = (noted.claimed ?? 0) + locked.due.length;
          return locked;
        };
        return work(Object.assign(Object.create(tx) as StoreTransaction, { lockDueRoutes }));
      }, plan),
  });
  return { recording, seen };
}

describe('[DUR-01] a shared node firing claim after claim', () => {
  it('records the answers to one claim’s firings in the next claim’s transaction, not in one of their own', async () => {
    const db = await openSharedNodeDatabase(schemas);
    const { recording, seen } = recordingTransactions(db.store);
    const events: EngineEvent[] = [];
    const routes = 600;
    // The dispatcher answers each attempt a few milliseconds after it is sent: while the next claim's transaction
    // runs, as a provider's acceptance comes back over the network.
    const engine = new Engine({
      store: recording,
      clock: systemClock(),
      dispatcher: { dispatch: () => new Promise((resolve) => setTimeout(resolve, 3)) },
      shared: { cluster: db.cluster!, leaseMs: 3_600_000, pollMs: 3_600_000 },
      onEvent: (e) => events.push(e),
    });
    try {
      await engine.reconcile();
      await engine.saveProfile(profileDocument({ version: 1, transient: waitsUpTo(600, off), hard: off }));
      const ids = Array.from({ length: routes }, (_, i) => `r${i}`);
      const started = await Promise.all(ids.map((id) => engine.startRoute({ routeId: id, profileId: 'p' })));
      await engine.idle();
      // Every route waits for one reset instant, so they all come due at once and the claims come back full.
      const resetAtMs = Date.now() + 10_000;
      await Promise.all(
        started.map((route) =>
          engine.reportFailure({
            routeId: route.id,
            generation: route.generation,
            invocationId: route.dispatch!.intentId,
            evidence: {
              kind: 'http',
              status: 529,
              provider: 'anthropic',
              headers: { 'x-ratelimit-reset': String(resetAtMs) },
              body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
            },
            replay: replayOf(route),
          }),
        ),
      );
      await engine.idle();
      const waiting = await Promise.all(ids.map(async (id) => (await db.store.readRoute(id))!.state));
      expect(waiting.every((s) => s === 'waiting_for_reset')).toBe(true);
      const from = seen.length;
      const retried = (e: EngineEvent) => e.type === 'dispatch' && e.intent.kind !== 'initial';
      const retryIntents = () =>
        new Set(events.filter(retried).map((e) => (e as { intent: { id: string } }).intent.id));
      await until(
        () =>
          events.filter((e) => e.type === 'dispatch_acknowledged' && retryIntents().has(e.intentId))
            .length === routes,
      );
      await engine.idle();

      // Every route fired once and its retry was answered once.
      expect(events.filter(retried)).toHaveLength(routes);
      const firings = events.filter((e) => e.type === 'transition' && e.decision === 'deadline');
      expect(new Set(firings.map((e) => (e as { route: { id: string } }).route.id)).size).toBe(routes);
      expect(firings).toHaveLength(routes);

      const during = seen.slice(from);
      const claims = during.filter((t) => t.claimed !== null && t.claimed > 0);
      // 600 routes due at once: full claims of 128 and the rest.
      expect(claims.map((t) => t.claimed)).toEqual([128, 128, 128, 128, 88]);
      // The answers to a claim's firings ride with the next claim that comes after they arrive (here the one after
      // next: the next claim is queued the moment its predecessor commits, before any answer is back). Answers have
      // a transaction of their own only when no claim follows: those held when the pass ended, and the last claim's.
      // Queued at once, the answers to each claim took a transaction between it and the next (four here).
      expect(claims.slice(2).every((t) => t.routePieces === 128)).toBe(true);
      const answersAlone = during.filter((t) => t.claimed === null && t.routePieces > 0);
      expect(answersAlone.length).toBeLessThanOrEqual(2);
      expect(during.reduce((sum, t) => sum + t.routePieces, 0)).toBe(routes);
    } finally {
      await engine.close();
      await db.store.close();
    }
  });
});
