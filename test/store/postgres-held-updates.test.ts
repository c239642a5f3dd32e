import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Route } from '../../src/core/index.js';
import { routesInEveryState } from '../core/route/route-fixtures.js';
import { dropSchemas, testDatabaseUrl } from '../helpers/postgres.js';
import { openSharedNodeDatabase } from '../helpers/shared-node.js';

// The real PostgreSQL at 127.0.0.1:5432, database `test`, a fresh schema per test, dropped at the end. A planned
// route is locked when its transaction opens and its updates are held, then sent with only the columns that differ
// from the row as stored: these tests read every route back from the database after the commit.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

const fenceOf = (r: Route) => ({ generation: r.generation, state: r.state, revision: r.revision });
const next = (r: Route, change: Partial<Route>): Route =>
  ({ ...r, ...change, revision: r.revision + 1, updatedAtMs: r.updatedAtMs + 1 }) as Route;

async function storeWith(routes: readonly Route[]) {
  const db = await openSharedNodeDatabase(schemas);
  await db.store.transact(async (tx) => {
    for (const r of routes) await tx.insertRoute(r);
  });
  return db;
}

describe('[DUR-01] a shared store sends only the changed columns of a held route update', () => {
  it('stores every column as the route ends up, in one batch of routes changing different columns', async () => {
    const every = routesInEveryState();
    const routes = Object.values(every).map((r, i) => ({ ...r, id: `r${i}` }));
    const db = await storeWith(routes);
    try {
      // Each route moves differently: one only acknowledged, one to another state, one stopped with its reason.
      const moved = routes.map((r, i) =>
        i % 3 === 0
          ? next(r, { dispatch: r.dispatch === null ? null : { ...r.dispatch, acknowledged: true } })
          : i % 3 === 1
            ? next(r, { candidate: 'other-candidate', cycle: r.cycle + 1 })
            : { ...next(every.action_required, {}), id: r.id, generation: r.generation + 1 },
      );
      await db.store.transact(
        async (tx) => {
          for (const [i, m] of moved.entries())
            expect(await tx.updateRoute(m, fenceOf(routes[i]!))).toBe(true);
        },
        { routeIds: routes.map((r) => r.id) },
      );
      for (const m of moved) {
        const stored = await db.store.readRoute(m.id);
        expect(stored).toEqual({ ...m, payload: stored!.payload });
      }
    } finally {
      await db.store.close();
    }
  });

  it('a value changed, sent, and changed back in one transaction is stored as it ends up', async () => {
    const route = { ...routesInEveryState().active, id: 'back' } as Route;
    const db = await storeWith([route]);
    try {
      const away = next(route, { candidate: 'other-candidate' });
      const back = next(away, { candidate: route.candidate });
      await db.store.transact(
        async (tx) => {
          expect(await tx.updateRoute(away, fenceOf(route))).toBe(true);
          // A read of a route the transaction does not hold sends the held writes first.
          expect(await tx.readRoute('not-held')).toBeNull();
          expect(await tx.updateRoute(back, fenceOf(away))).toBe(true);
        },
        { routeIds: [route.id] },
      );
      // Told apart from the row as first locked, the second update would have sent nothing: 'other-candidate'.
      expect((await db.store.readRoute(route.id))!.candidate).toBe(route.candidate);
    } finally {
      await db.store.close();
    }
  });

  it('a route inserted, sent, and updated in one transaction is stored as it ends up', async () => {
    const db = await storeWith([]);
    try {
      const route = { ...routesInEveryState().active, id: 'fresh' } as Route;
      const moved = next(route, { candidate: 'other-candidate' });
      const back = next(moved, { candidate: route.candidate });
      await db.store.transact(
        async (tx) => {
          await tx.insertRoute(route);
          expect(await tx.updateRoute(moved, fenceOf(route))).toBe(true);
          expect(await tx.readRoute('not-held')).toBeNull();
          expect(await tx.updateRoute(back, fenceOf(moved))).toBe(true);
        },
        { routeIds: [route.id] },
      );
      const stored = await db.store.readRoute(route.id);
      expect(stored).toEqual({ ...back, payload: stored!.payload });
    } finally {
      await db.store.close();
    }
  });

  it('an update clears the lease a claim wrote, though the route itself does not say it has one', async () => {
    const due = { ...routesInEveryState().retry_wait, id: 'leased', deadlineMs: 1_000 } as Route;
    const db = await storeWith([due]);
    try {
      const claimed = await db.cluster!.claimDue(60_000, 10);
      expect(claimed.due.map((d) => d.id)).toEqual(['leased']);
      const moved = next(due, { candidate: 'other-candidate' });
      await db.store.transact(
        async (tx) => {
          expect(await tx.updateRoute(moved, fenceOf(due))).toBe(true);
        },
        { routeIds: [due.id] },
      );
      // Unleased again, as every write of a route leaves it: claimable by any node at once.
      const client = new pg.Client({ connectionString: testDatabaseUrl });
      await client.connect();
      try {
        const row = await client.query(
          `SELECT lease_owner, lease_until_ms FROM ${schemas.at(-1)!}.routes WHERE id = 'leased'`,
        );
        expect(row.rows).toEqual([{ lease_owner: null, lease_until_ms: null }]);
      } finally {
        await client.end();
      }
    } finally {
      await db.store.close();
    }
  });
});
