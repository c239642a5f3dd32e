import type { ClusterTimers, Route, Store, StoreTransaction, TransactionPlan } from '../../src/core/index.js';
import { Engine, systemClock, type EngineEvent } from '../../src/engine/index.js';
import { off, retries } from '../core/route/route-fixtures.js';
import { openPostgresDatabase } from '../../src/store/postgres/postgres-store.js';
import { envelopes, profileDocument, replayOf } from '../engine/harness.js';
import { freshSchemaName, schemaLocation } from './postgres.js';

/**
 * A shared node's ports on a fresh, migrated schema of the test PostgreSQL; the schema's name is pushed to
 * `schemas` for `dropSchemas`. Its poll is an hour: only its own timer, or what a test does, fires anything.
 */
export async function openSharedNodeDatabase(schemas: string[], nodeId = 'node-a') {
  const schema = freshSchemaName();
  schemas.push(schema);
  const db = await openPostgresDatabase({ location: schemaLocation(schema), nodeId, pollMs: 3_600_000 });
  await db.store.migrate();
  return db;
}

/** The route's current attempt fails with an overloaded 529 before any output; the route as the engine left it. */
export async function failOverloaded(engine: Engine, store: Store, routeId: string): Promise<Route> {
  const route = (await store.readRoute(routeId))!;
  const outcome = await engine.reportFailure({
    routeId,
    generation: route.generation,
    invocationId: route.dispatch!.intentId,
    evidence: envelopes.overloaded,
    replay: replayOf(route),
  });
  return outcome.route;
}

/**
 * Two shared nodes' ports on one fresh, migrated schema (its name pushed to `schemas`), `routes` stored through
 * the first. Each store runs its own transactions one at a time, as a node does.
 */
export async function twoSharedNodes(schemas: string[], routes: readonly Route[]) {
  const a = await openSharedNodeDatabase(schemas, 'node-a');
  const schema = schemas.at(-1)!;
  const b = await openPostgresDatabase({
    location: schemaLocation(schema),
    nodeId: 'node-b',
    pollMs: 3_600_000,
  });
  await a.store.transact(async (tx) => {
    for (const r of routes) await tx.insertRoute(r);
  });
  return {
    schema,
    a,
    b,
    close: async () => {
      await a.store.close();
      await b.store.close();
    },
  };
}

/**
 * A shared engine on the system clock (due times are the database's) over `store` and `cluster`, its events pushed
 * to `events`, with a dispatcher that accepts everything; profile `p` retries transient failures three times a
 * second apart, and routes r1 and r2 are started on it and dispatched.
 */
export async function sharedEngineWithTwoRoutes(
  store: Store,
  cluster: ClusterTimers,
  events: EngineEvent[],
): Promise<Engine> {
  const engine = new Engine({
    store,
    clock: systemClock(),
    dispatcher: { dispatch: () => Promise.resolve() },
    shared: { cluster, leaseMs: 3_600_000, pollMs: 3_600_000 },
    onEvent: (e) => events.push(e),
  });
  await engine.reconcile();
  await engine.saveProfile(profileDocument({ version: 1, transient: retries(3, 1, 'stop'), hard: off }));
  for (const id of ['r1', 'r2']) await engine.startRoute({ routeId: id, profileId: 'p' });
  await engine.idle();
  return engine;
}

/**
 * The store as it is, but each transaction's methods named by what `replace` returns for it (given the transaction
 * and the batch's plan) are those: how a test fails, drops, watches or interleaves a call inside its transaction.
 */
export function replacingInTransaction(
  store: Store,
  replace: (tx: StoreTransaction, plan: TransactionPlan | undefined) => Partial<StoreTransaction>,
): Store {
  return Object.assign(Object.create(store) as Store, {
    transact: <T>(work: (tx: StoreTransaction) => Promise<T>, plan?: TransactionPlan) =>
      store.transact(
        (tx) => work(Object.assign(Object.create(tx) as StoreTransaction, replace(tx, plan))),
        plan,
      ),
  });
}

/**
 * The store as it is, but each transaction's `lockDueRoutes` is the one `replace` makes for it (given the
 * transaction and the batch's plan): how a test fails, drops or watches a claim inside its transaction.
 */
export function replacingLockDueRoutes(
  store: Store,
  replace: (tx: StoreTransaction, plan: TransactionPlan | undefined) => StoreTransaction['lockDueRoutes'],
): Store {
  return replacingInTransaction(store, (tx, plan) => ({ lockDueRoutes: replace(tx, plan) }));
}

/**
 * The store as it is, but the first `method` read of its transactions waits, once it has read, until `release` is
 * called (or 1 s passes): how a test makes one node's write overlap another's. `paused` resolves at that read.
 */
export function pausingFirstRead(store: Store, method: 'readRoute' | 'readProfile' | 'readPlan') {
  let readDone!: () => void;
  const paused = new Promise<void>((resolve) => (readDone = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reads = 0;
  const watched = replacingInTransaction(store, (tx) => ({
    [method]: async (id: string) => {
      const read: unknown = await (tx[method] as (id: string) => Promise<unknown>).call(tx, id);
      if (reads++ > 0) return read;
      readDone();
      await Promise.race([released, new Promise((resolve) => setTimeout(resolve, 1_000))]);
      return read;
    },
  }));
  return { store: watched, paused, release };
}
