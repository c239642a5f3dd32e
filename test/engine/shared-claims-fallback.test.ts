import { afterAll, describe, expect, it } from 'vitest';
import type { DueLock, Route, Store, StoreTransaction, TransactionPlan } from '../../src/core/index.js';
import { Engine, systemClock, type EngineEvent } from '../../src/engine/index.js';
import { openPostgresDatabase } from '../../src/store/postgres/postgres-store.js';
import { off, retries } from '../core/route/route-fixtures.js';
import { dropSchemas, freshSchemaName, schemaLocation } from '../helpers/postgres.js';
import { envelopes, profileDocument, replayOf } from './harness.js';
import { until } from '../helpers/until.js';

// A shared node on the real PostgreSQL at 127.0.0.1:5432 (database `test`, a fresh schema dropped at the end), on
// the system clock: due times are the database's. Its poll is an hour, so only its own timer fires a route here.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

describe('[DUR-01] a shared node whose claim-and-fire transaction fails claims with leases instead', () => {
  it('fires every due route once, through leased claims, and says why', async () => {
    const schema = freshSchemaName();
    schemas.push(schema);
    const db = await openPostgresDatabase({
      location: schemaLocation(schema),
      nodeId: 'node-a',
      pollMs: 3_600_000,
    });
    await db.store.migrate();
    const events: EngineEvent[] = [];
    let refusals = 0;
    // The store as it is, but the first lock of due routes inside a transaction fails (as a statement the
    // database refuses would): the whole transaction rolls back, and nothing of it may fire.
    const failingOnce: Store = Object.assign(Object.create(db.store) as Store, {
      transact: <T>(work: (tx: StoreTransaction) => Promise<T>, plan?: TransactionPlan) =>
        db.store.transact((tx) => {
          const lockDueRoutes = async (lock: DueLock) => {
            if (refusals++ === 0) throw new Error('could not lock the due routes');
            return tx.lockDueRoutes!(lock);
          };
          return work(Object.assign(Object.create(tx) as StoreTransaction, { lockDueRoutes }));
        }, plan),
    });
    const engine = new Engine({
      store: failingOnce,
      clock: systemClock(),
      dispatcher: { dispatch: () => Promise.resolve() },
      shared: { cluster: db.cluster!, leaseMs: 3_600_000, pollMs: 3_600_000 },
      onEvent: (e) => events.push(e),
    });
    try {
      await engine.reconcile();
      await engine.saveProfile(profileDocument({ version: 1, transient: retries(3, 1, 'stop'), hard: off }));
      for (const id of ['r1', 'r2']) await engine.startRoute({ routeId: id, profileId: 'p' });
      await engine.idle();
      const fail = async (id: string): Promise<Route> => {
        const r = (await db.store.readRoute(id))!;
        return (
          await engine.reportFailure({
            routeId: id,
            generation: r.generation,
            invocationId: r.dispatch!.intentId,
            evidence: envelopes.overloaded,
            replay: replayOf(r),
          })
        ).route;
      };
      const retrying = async (id: string) => (await db.store.readRoute(id))!.state === 'retrying';
      // r1 fires in the pass whose claim transaction fails; r2 comes due in a later pass, still with leases: a
      // route that cannot fire would fail every claim transaction, so none is tried for a while.
      expect((await fail('r1')).state).toBe('retry_wait');
      await until(() => retrying('r1'));
      expect((await fail('r2')).state).toBe('retry_wait');
      await until(() => retrying('r2'));
      await engine.idle();
      expect(refusals).toBe(1);
      expect(
        events.filter((e) => e.type === 'error').map((e) => (e as { message: string }).message),
      ).toContain(
        'firing due routes in one transaction failed (claiming them with leases for 60 s): could not lock the due routes',
      );
      for (const id of ['r1', 'r2']) {
        const fired = events.filter(
          (e) => e.type === 'transition' && e.route.id === id && e.decision === 'deadline',
        );
        expect(fired).toHaveLength(1);
        expect(
          events.filter(
            (e) => e.type === 'dispatch' && e.intent.routeId === id && e.intent.kind !== 'initial',
          ),
        ).toHaveLength(1);
      }
    } finally {
      await engine.close();
      await db.store.close();
    }
  });
});
