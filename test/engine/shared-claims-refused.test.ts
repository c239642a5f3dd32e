import { afterAll, describe, expect, it } from 'vitest';
import type { ClusterTimers, Store, StoreTransaction, TransactionPlan } from '../../src/core/index.js';
import type { Engine, EngineEvent } from '../../src/engine/index.js';
import { dropSchemas } from '../helpers/postgres.js';
import { failOverloaded, openSharedNodeDatabase, sharedEngineWithTwoRoutes } from '../helpers/shared-node.js';
import { until } from '../helpers/until.js';

// A shared node on the real PostgreSQL at 127.0.0.1:5432 (database `test`, a fresh schema dropped at the end), on
// the system clock: due times are the database's. Its poll is an hour, so only its own timer can fire a route here.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

describe('[DUR-01] a shared node claiming with leases whose claimed routes were all refused goes on claiming', () => {
  it('a batch that moved nothing (its route cancelled between claim and firing) is followed at once by the routes that came due meanwhile', async () => {
    const db = await openSharedNodeDatabase(schemas);
    const events: EngineEvent[] = [];
    let r2DueMs = Number.POSITIVE_INFINITY;
    let cancelled = false;
    // The cluster as it is, but for one moment: when r1 is claimed, a person cancels it, and the claim answers only
    // once r2 is due too: r1's firing is refused, and r2 came due while it was claimed.
    const cluster: ClusterTimers = Object.assign(Object.create(db.cluster!) as ClusterTimers, {
      claimDue: async (leaseMs: number, limit: number) => {
        const claim = await db.cluster!.claimDue(leaseMs, limit);
        if (!cancelled && claim.due.some((d) => d.id === 'r1')) {
          cancelled = true;
          const r1 = (await db.store.readRoute('r1'))!;
          await engine.act({ routeId: 'r1', action: 'cancel', expectedGeneration: r1.generation });
          await until(() => Promise.resolve(Date.now() > r2DueMs + 20));
        }
        return claim;
      },
    });
    // Claims that lock and fire in one transaction cannot be cancelled between claim and firing (the cancel waits
    // for the lock): this is the leased path, taken when a store cannot lock due routes inside a transaction.
    const leasedOnly: Store = Object.assign(Object.create(db.store) as Store, {
      transact: <T>(work: (tx: StoreTransaction) => Promise<T>, plan?: TransactionPlan) =>
        db.store.transact(
          (tx) => work(Object.assign(Object.create(tx) as StoreTransaction, { lockDueRoutes: undefined })),
          plan,
        ),
    });
    // Assigned before any claim: the cluster above cancels through it.
    const engine: Engine = await sharedEngineWithTwoRoutes(leasedOnly, cluster, events);
    try {
      const fail = (id: string) => failOverloaded(engine, db.store, id);
      await fail('r1');
      const r2 = await fail('r2');
      if (r2.state !== 'retry_wait') throw new Error(`r2 is ${r2.state}`);
      r2DueMs = r2.deadlineMs;
      // Before, a claim that moved nothing made the node wait a poll (here an hour) before claiming r2.
      await until(async () => (await db.store.readRoute('r2'))!.state !== 'retry_wait');
      expect(cancelled).toBe(true);
      expect(await db.store.readRoute('r1')).toMatchObject({ state: 'action_required', reason: 'cancelled' });
      expect(await db.store.readRoute('r2')).toMatchObject({ state: 'retrying', retryOrdinal: 1 });
      expect(
        events.filter((e) => e.type === 'transition' && e.route.id === 'r2' && e.decision === 'deadline'),
      ).toHaveLength(1);
    } finally {
      await engine.close();
      await db.store.close();
    }
  });
});
