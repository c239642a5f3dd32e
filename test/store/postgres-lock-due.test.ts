import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { Route, Store, StoreTransaction, TransactionPlan } from '../../src/core/index.js';
import { routesInEveryState, t0 } from '../core/route/route-fixtures.js';
import { openPostgresDatabase } from '../../src/store/postgres/postgres-store.js';
import { dropSchemas, schemaLocation, testDatabaseUrl } from '../helpers/postgres.js';
import { twoSharedNodes } from '../helpers/shared-node.js';

// The real PostgreSQL at 127.0.0.1:5432, database `test`, a fresh schema per test, dropped at the end. Two stores
// on one schema stand for two nodes (each store runs its own transactions one at a time). `t0` lies in the past:
// routes due at `t0 + i` are overdue by the database's clock.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

const waiting = (id: string, deadlineMs: number): Route =>
  ({ ...routesInEveryState().retry_wait, id, deadlineMs }) as Route;

async function twoNodes(routes: readonly Route[]) {
  const nodes = await twoSharedNodes(schemas, routes);
  /** Runs SQL on its own connection, `$schema` standing for the nodes' schema. */
  const sqlOn = async (text: string): Promise<pg.QueryResult> => {
    const client = new pg.Client({ connectionString: testDatabaseUrl });
    await client.connect();
    try {
      return await client.query(text.replaceAll('$schema', nodes.schema));
    } finally {
      await client.end();
    }
  };
  return {
    schema: nodes.schema,
    a: nodes.a.store,
    b: nodes.b.store,
    clusterA: nodes.a.cluster!,
    sqlOn,
    close: nodes.close,
  };
}

const lockDue = async (tx: StoreTransaction, owner: string, limit = 100) =>
  (await tx.lockDueRoutes!({ owner, limit })).due;
const ids = (due: readonly { id: string }[]) => due.map((d) => d.id);

/** A third node on the schema whose store transactions the database ends after 300 ms idle. */
const stallingNode = (schema: string) =>
  openPostgresDatabase({
    location: schemaLocation(schema),
    nodeId: 'node-c',
    pollMs: 3_600_000,
    holdMs: 300,
  });

/**
 * Runs `work` in a transaction of `store`, then stalls it (no statement for 1.5 s, as a frozen process with its
 * connection open) before one more read: `locked` once `work` is done, `outcome` how the transaction ended.
 */
function stallInTransaction(
  store: Store,
  work: (tx: StoreTransaction) => Promise<void>,
  plan?: TransactionPlan,
) {
  let done!: () => void;
  const locked = new Promise<void>((resolve) => (done = resolve));
  const outcome = store
    .transact(async (tx) => {
      await work(tx);
      done();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      return tx.readRoute('d0');
    }, plan)
    .then(
      () => 'committed',
      () => 'ended by the database',
    );
  return { locked, outcome };
}

describe('[DUR-01] due routes locked and fired in one transaction on shared nodes', () => {
  it('locks the overdue routes earliest first, not a future one nor one another node holds a live lease on, and writes no lease', async () => {
    const nodes = await twoNodes([
      waiting('late', t0 + 2),
      waiting('early', t0 + 1),
      waiting('leased-elsewhere', t0),
      waiting('leased-here', t0 + 3),
      waiting('lease-ended', t0 + 4),
      waiting('future', Date.now() + 3_600_000),
    ]);
    try {
      await nodes.sqlOn(`UPDATE $schema.routes SET lease_owner = 'node-b',
          lease_until_ms = (extract(epoch FROM now()) * 1000)::bigint + 3600000 WHERE id = 'leased-elsewhere';
        UPDATE $schema.routes SET lease_owner = 'node-a',
          lease_until_ms = (extract(epoch FROM now()) * 1000)::bigint + 3600000 WHERE id = 'leased-here';
        UPDATE $schema.routes SET lease_owner = 'node-b', lease_until_ms = 1 WHERE id = 'lease-ended'`);
      const due = await nodes.a.transact((tx) => lockDue(tx, 'node-a'));
      expect(ids(due)).toEqual(['early', 'late', 'leased-here', 'lease-ended']);
      expect(due[0]).toMatchObject({ id: 'early', deadlineMs: t0 + 1 });
      const leases = await nodes.sqlOn(`SELECT id, lease_owner FROM $schema.routes ORDER BY id`);
      expect(leases.rows).toEqual(
        [
          { id: 'early', lease_owner: null },
          { id: 'late', lease_owner: null },
          { id: 'lease-ended', lease_owner: 'node-b' },
          { id: 'leased-elsewhere', lease_owner: 'node-b' },
          { id: 'leased-here', lease_owner: 'node-a' },
          { id: 'future', lease_owner: null },
        ].sort((x, y) => (x.id < y.id ? -1 : 1)),
      );
      expect(ids(await nodes.a.transact((tx) => lockDue(tx, 'node-a', 2)))).toEqual(['early', 'late']);
    } finally {
      await nodes.close();
    }
  });

  it('passes over the routes another node holds locked, which become due to others when its transaction dies', async () => {
    const nodes = await twoNodes(Array.from({ length: 6 }, (_, i) => waiting(`d${i}`, t0 + i)));
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let lockedByA!: () => void;
      const aLocked = new Promise<void>((resolve) => (lockedByA = resolve));
      // Node A locks the first three and dies before committing (its work throws, so its transaction rolls back).
      const a = nodes.a
        .transact(async (tx) => {
          expect(ids(await lockDue(tx, 'node-a', 3))).toEqual(['d0', 'd1', 'd2']);
          lockedByA();
          await held;
          throw new Error('node A died mid-fire');
        })
        .catch((error: Error) => error.message);
      await aLocked;
      // Node B, meanwhile, does not wait for A's rows: it takes the rest at once.
      expect(ids(await nodes.b.transact((tx) => lockDue(tx, 'node-b')))).toEqual(['d3', 'd4', 'd5']);
      release();
      expect(await a).toBe('node A died mid-fire');
      expect(ids(await nodes.b.transact((tx) => lockDue(tx, 'node-b')))).toEqual([
        'd0',
        'd1',
        'd2',
        'd3',
        'd4',
        'd5',
      ]);
    } finally {
      await nodes.close();
    }
  });

  it('reads the routes as its own transaction left them: one it moved out of waiting is not due', async () => {
    const nodes = await twoNodes([waiting('moved', t0), waiting('stays', t0 + 1)]);
    try {
      const due = await nodes.a.transact(
        async (tx) => {
          const moved = (await tx.readRoute('moved'))!;
          const fence = { generation: moved.generation, state: moved.state, revision: moved.revision };
          const next = {
            ...routesInEveryState().action_required,
            id: 'moved',
            generation: moved.generation,
            revision: moved.revision + 1,
          } as Route;
          expect(await tx.updateRoute(next, fence)).toBe(true);
          return lockDue(tx, 'node-a');
        },
        { routeIds: ['moved'] },
      );
      expect(ids(due)).toEqual(['stays']);
    } finally {
      await nodes.close();
    }
  });

  it("after a claim, names as next neither an overdue route another transaction held, but a route due since and a foreign lease's end", async () => {
    const nodes = await twoNodes([waiting('held-elsewhere', t0), waiting('leased-elsewhere', t0 + 1)]);
    try {
      const leaseEnd = Date.now() + 3_600_000;
      await nodes.sqlOn(`UPDATE $schema.routes SET lease_owner = 'node-b', lease_until_ms = ${leaseEnd}
        WHERE id = 'leased-elsewhere'`);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let lockedByB!: () => void;
      const bLocked = new Promise<void>((resolve) => (lockedByB = resolve));
      const b = nodes.b.transact(async (tx) => {
        expect(await lockDue(tx, 'node-b')).toHaveLength(2);
        lockedByB();
        await held;
      });
      await bLocked;
      const claim = await nodes.a.transact((tx) => tx.lockDueRoutes!({ owner: 'node-a', limit: 100 }));
      expect(claim.due).toEqual([]);
      // Without the claim's clock both overdue routes look claimable now: a node would claim again at once and
      // spin while node B fires.
      expect((await nodes.clusterA.nextClaimable([])).nextMs).toBe(t0);
      expect((await nodes.clusterA.nextClaimable([], claim.nowMs)).nextMs).toBe(leaseEnd);
      // A route that came due after the claim is claimable now.
      await nodes.a.transact(async (tx) => tx.insertRoute(waiting('due-since', claim.nowMs + 1)));
      expect((await nodes.clusterA.nextClaimable([], claim.nowMs)).nextMs).toBe(claim.nowMs + 1);
      release();
      await b;
    } finally {
      await nodes.close();
    }
  });

  it('a node that stalls while it holds due routes locked loses them once its transaction has idled holdMs', async () => {
    const nodes = await twoNodes([waiting('d0', t0), waiting('d1', t0 + 1)]);
    const stalling = await stallingNode(nodes.schema);
    try {
      // Node C locks both, then stalls (a frozen process keeps its connection open).
      const c = stallInTransaction(stalling.store, async (tx) => {
        const locked = await tx.lockDueRoutes!({ owner: 'node-a', limit: 10 });
        expect(ids(locked.due)).toEqual(['d0', 'd1']);
      });
      await c.locked;
      expect(ids(await nodes.b.transact((tx) => lockDue(tx, 'node-b')))).toEqual([]);
      expect(await c.outcome).toBe('ended by the database');
      expect(ids(await nodes.b.transact((tx) => lockDue(tx, 'node-b')))).toEqual(['d0', 'd1']);
    } finally {
      await stalling.store.close();
      await nodes.close();
    }
  });

  it('a leased claim, too, leaves an overdue route another transaction holds to it instead of naming it as next', async () => {
    const nodes = await twoNodes([waiting('held-elsewhere', t0)]);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let lockedByB!: () => void;
    const bLocked = new Promise<void>((resolve) => (lockedByB = resolve));
    const b = nodes.b.transact(async (tx) => {
      expect(ids(await lockDue(tx, 'node-b'))).toEqual(['held-elsewhere']);
      lockedByB();
      await held;
    });
    try {
      await bLocked;
      // Before, the claim named the held route's past deadline as next: the node claimed again at once, over and
      // over, until node B committed.
      const claim = await nodes.clusterA.claimDue(30_000, 5);
      expect(claim.due).toEqual([]);
      expect(claim.nextMs).toBeNull();
    } finally {
      release();
      await b;
      await nodes.close();
    }
  });

  it("a stalled node's other transactions lose their row locks too once idle holdMs: any transaction of a shared store", async () => {
    const nodes = await twoNodes([waiting('d0', t0)]);
    const stalling = await stallingNode(nodes.schema);
    try {
      // An ordinary transaction (a Cancel, a report) that locks the due route, then stalls.
      const c = stallInTransaction(
        stalling.store,
        async (tx) => {
          expect(await tx.readRoute('d0')).not.toBeNull();
        },
        { routeIds: ['d0'] },
      );
      await c.locked;
      expect(ids(await nodes.b.transact((tx) => lockDue(tx, 'node-b')))).toEqual([]);
      expect(await c.outcome).toBe('ended by the database');
      expect(ids(await nodes.b.transact((tx) => lockDue(tx, 'node-b')))).toEqual(['d0']);
    } finally {
      await stalling.store.close();
      await nodes.close();
    }
  });

  it("a session lock's transaction stays open through its work past holdMs; the node's other transactions do not", async () => {
    const nodes = await twoNodes([waiting('d0', t0)]);
    const stalling = await stallingNode(nodes.schema);
    try {
      // The limit is the connection's: a session lock lifts it for its own transaction, which waits on its work
      // (reads and writes through the rest of the pool) on purpose.
      const held = await stalling.sessionLocks!.withSession('s1', async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        return { result: 'done', lifecycle: null };
      });
      expect(held).toBe('done');
      // Lifted for that transaction only: the next one on the same pool is ended once idle.
      const c = stallInTransaction(stalling.store, async (tx) => {
        expect(ids((await tx.lockDueRoutes!({ owner: 'node-c', limit: 10 })).due)).toEqual(['d0']);
      });
      await c.locked;
      expect(await c.outcome).toBe('ended by the database');
    } finally {
      await stalling.store.close();
      await nodes.close();
    }
  });
});
