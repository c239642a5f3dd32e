import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { DueLock, Store } from '../../src/core/index.js';
import type { EngineEvent } from '../../src/engine/index.js';
import { dropSchemas } from '../helpers/postgres.js';
import {
  failOverloaded,
  openSharedNodeDatabase,
  replacingLockDueRoutes,
  sharedEngineWithTwoRoutes,
} from '../helpers/shared-node.js';
import { until } from '../helpers/until.js';

// A shared node on the real PostgreSQL at 127.0.0.1:5432 (database `test`, a fresh schema dropped at the end), on
// the system clock: due times are the database's. Its poll is an hour, so only its own timer fires a route here.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

describe('[DUR-01] a shared node whose claim-and-fire transaction fails claims with leases instead', () => {
  it('fires every due route once, through leased claims, and says why', async () => {
    const db = await openSharedNodeDatabase(schemas);
    const events: EngineEvent[] = [];
    let refusals = 0;
    // The store as it is, but the first lock of due routes inside a transaction fails (as a statement the
    // database refuses would): the whole transaction rolls back, and nothing of it may fire.
    const failingOnce = replacingLockDueRoutes(db.store, (tx) => async (lock: DueLock) => {
      if (refusals++ === 0) throw new Error('could not lock the due routes');
      return tx.lockDueRoutes!(lock);
    });

    const engine = await sharedEngineWithTwoRoutes(failingOnce, db.cluster!, events);
    try {
      const fail = (id: string) => failOverloaded(engine, db.store, id);
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

/**
 * The store as it is, but a claim transaction that locked route r1 has its connection ended by the server (for
 * real: its backend terminated by a statement on the transaction's own connection, as a restart or a watchdog
 * would) the first `drops` times: the row locks go with it, and r1 is due again.
 */
function droppingClaimsOfR1(store: Store, drops: number) {
  const seen = { locks: 0, dropped: 0, errors: [] as unknown[] };
  const dropping = replacingLockDueRoutes(store, (tx) => async (lock: DueLock) => {
    seen.locks++;
    const locked = await tx.lockDueRoutes!(lock);
    if (seen.dropped < drops && locked.due.some((d) => d.id === 'r1')) {
      seen.dropped++;
      // The transaction's connection (a private field: nothing public names this backend).
      const own = (tx as unknown as { db: Kysely<unknown> }).db;
      try {
        await sql`SELECT pg_terminate_backend(pg_backend_pid())`.execute(own);
      } catch (error) {
        seen.errors.push(error);
        throw error;
      }
    }
    return locked;
  });
  return { dropping, seen };
}

const errorsOf = (events: readonly EngineEvent[]) =>
  events.filter((e) => e.type === 'error').map((e) => (e as { message: string }).message);

/** Route `id` was fired by its deadline exactly once, and its retry dispatched exactly once. */
function firedOnce(events: readonly EngineEvent[], id: string): void {
  expect(
    events.filter((e) => e.type === 'transition' && e.route.id === id && e.decision === 'deadline'),
  ).toHaveLength(1);
  expect(
    events.filter((e) => e.type === 'dispatch' && e.intent.routeId === id && e.intent.kind !== 'initial'),
  ).toHaveLength(1);
}

describe('[DUR-01] a shared node whose claim transaction loses its connection', () => {
  it('once: does not fall back to leases; the next pass fires the route in a transaction, once', async () => {
    const db = await openSharedNodeDatabase(schemas);
    const events: EngineEvent[] = [];
    const { dropping, seen } = droppingClaimsOfR1(db.store, 1);
    const engine = await sharedEngineWithTwoRoutes(dropping, db.cluster!, events);
    try {
      expect((await failOverloaded(engine, db.store, 'r1')).state).toBe('retry_wait');
      await until(async () => (await db.store.readRoute('r1'))!.state === 'retrying');
      await engine.idle();
      expect(seen.dropped).toBe(1);
      expect(db.store.connectionLoss!(seen.errors[0])).toBe('dropped');
      expect(errorsOf(events).some((m) => m.startsWith('timer pass failed:'))).toBe(true);
      expect(errorsOf(events).filter((m) => m.includes('claiming them with leases'))).toEqual([]);
      firedOnce(events, 'r1');

      // The next route due is fired in a transaction too: no cool-down was set.
      const before = seen.locks;
      expect((await failOverloaded(engine, db.store, 'r2')).state).toBe('retry_wait');
      await until(async () => (await db.store.readRoute('r2'))!.state === 'retrying');
      // The state is read on another connection, which can see the commit before the engine has emitted its
      // events: wait for the engine's own work, as for r1.
      await engine.idle();
      expect(seen.locks).toBeGreaterThan(before);
      firedOnce(events, 'r2');
    } finally {
      await engine.close();
      await db.store.close();
    }
  });

  it('twice in a row: takes the claim itself for the cause and claims with leases; the route fires once', async () => {
    const db = await openSharedNodeDatabase(schemas);
    const events: EngineEvent[] = [];
    const { dropping, seen } = droppingClaimsOfR1(db.store, 2);
    const engine = await sharedEngineWithTwoRoutes(dropping, db.cluster!, events);
    try {
      expect((await failOverloaded(engine, db.store, 'r1')).state).toBe('retry_wait');
      await until(async () => (await db.store.readRoute('r1'))!.state === 'retrying');
      await engine.idle();
      expect(seen.dropped).toBe(2);
      const errors = errorsOf(events);
      expect(errors.filter((m) => m.startsWith('timer pass failed:'))).toHaveLength(1);
      expect(errors.filter((m) => m.includes('claiming them with leases for 60 s'))).toHaveLength(1);
      firedOnce(events, 'r1');
    } finally {
      await engine.close();
      await db.store.close();
    }
  });
});
