import { sql, type Kysely } from 'kysely';
import type {
  AttemptRecord,
  Circuit,
  DispatchIntent,
  DueLock,
  DynamicProfile,
  IntentOutcome,
  Plan,
  PlanErrorRecord,
  ReplayEvidence,
  Route,
  LockedDueRoutes,
  RouteFence,
  StoreTransaction,
} from '../../core/index.js';
import { readPlan, readPlanErrors, readProfile, readRoute } from '../kysely-store-reads.js';
import { circuitOfRow, circuitToRow, intentToRow, type ProfileDocuments } from '../row-codecs.js';
import { planToRow } from '../plan-rows.js';
import { attemptToRow, replayToRow, rowToRoute, routeToRow } from '../route-rows.js';
import type { Database, RouteRow } from '../schema.js';
import { databaseNow } from './database-clock.js';
import { DeferredWrites, type Flushed } from './deferred-writes.js';

/** SQLSTATE of a NOWAIT lock that another transaction holds. */
const lockNotAvailable = '55P03';

/** A stored route as the codec gives it back: what a read after a write would return. */
const asStored = (route: Route, payload: Route['payload']): Route =>
  rowToRoute(routeToRow({ ...route, payload }, route.updatedAtMs));

/**
 * A transaction's reads and writes on one pooled PostgreSQL client, inside the BEGIN that `transact` opened.
 * Every fenced write states its fence in the UPDATE's (or DELETE's) WHERE, as the SQLite statements do: PostgreSQL
 * re-checks that WHERE against the newest committed row, so zero rows changed means another writer won.
 *
 * Round trips are what PostgreSQL costs per decision, so a batch's routes (and their unresolved intents) are read
 * in one statement when the transaction opens and stay locked (FOR UPDATE) until it ends: no other writer can move
 * them, so their fences are checked against the locked rows in memory and their writes wait in `DeferredWrites`,
 * sent in one statement at the end (still fenced). Profiles and circuits are read once per transaction; the
 * circuits read and not written are confirmed unchanged, and share-locked, in that last statement before COMMIT
 * (`confirmCircuitReads`). Anything else runs
 * at once, after the held writes.
 */
export class PostgresTransaction implements StoreTransaction {
  /** The planned routes, as locked and as this transaction has written them since (null: not stored). */
  private readonly locked = new Map<string, Route | null>();
  /** The rows of the locked routes as stored: a held update sends only the columns that differ from them. */
  private readonly storedRows = new Map<string, RouteRow>();
  /** Unresolved intents of the planned routes, locked with them. */
  private readonly openIntents = new Set<string>();
  private readonly profileReads = new Map<string, Promise<DynamicProfile | null>>();
  private readonly circuitReads = new Map<string, Circuit | null>();
  /**
   * The version each circuit had when this transaction read it from the database (0: not stored), for those it has
   * not written since: what `confirmCircuitReads` checks before COMMIT.
   */
  private readonly circuitVersions = new Map<string, number>();
  /** A circuit write of this transaction lost to another writer: what it read is stale. */
  private circuitLost = false;
  private readonly held = new DeferredWrites();

  private constructor(
    private readonly db: Kysely<Database>,
    private readonly profiles: ProfileDocuments,
  ) {}

  /** Opens on a client inside BEGIN: locks the planned routes (in id order, so two nodes never deadlock on them). */
  static async open(
    db: Kysely<Database>,
    profiles: ProfileDocuments,
    routeIds: readonly string[],
  ): Promise<PostgresTransaction> {
    const tx = new PostgresTransaction(db, profiles);
    if (routeIds.length === 0) return tx;
    // One round trip: the routes, then (reading the locked ones, so always after all of them) their unresolved
    // intents, which are resolved in memory. The routes come back as rows (as JSON they cost twice the time), the
    // intents' ids on the first row only. One array parameter, not one per id.
    const { rows } = await sql<RouteRow & { open_intent_ids: string[] | null }>`
      WITH locked AS (
        SELECT * FROM routes WHERE id = ANY(${[...routeIds]}::text[]) ORDER BY id FOR UPDATE),
      open_intents AS (
        SELECT i.id FROM dispatch_intents i
        WHERE i.route_id IN (SELECT id FROM locked) AND i.outcome IS NULL ORDER BY i.id FOR UPDATE OF i)
      SELECT l.*, CASE WHEN l.id = (SELECT min(id) FROM locked)
        THEN (SELECT coalesce(json_agg(o.id), '[]'::json) FROM open_intents o) END AS open_intent_ids
      FROM locked l`.execute(db);
    for (const id of routeIds) tx.locked.set(id, null);
    for (const { open_intent_ids: intents, ...row } of rows) {
      tx.lock(row);
      for (const id of intents ?? []) tx.openIntents.add(id);
    }
    return tx;
  }

  async lockDueRoutes({ owner, limit }: DueLock): Promise<LockedDueRoutes> {
    // The due rows as this transaction left them: a route it moved out of waiting is not due any more.
    await this.flush();
    // The clock is read once, and answered even when nothing is due (the outer row). The locks do not outlive a
    // node that stalls: a shared store's transaction is ended by the database once idle (`PostgresStore.transact`).
    const rows = await sql<RouteRow & { now_ms: number }>`
      WITH clock AS (SELECT ${databaseNow} AS ms)
      SELECT d.*, clock.ms AS now_ms FROM clock LEFT JOIN LATERAL (
        SELECT r.* FROM routes r
        WHERE r.deadline_ms IS NOT NULL AND r.deadline_ms <= clock.ms
          AND (r.lease_until_ms IS NULL OR r.lease_until_ms <= clock.ms OR r.lease_owner = ${owner})
        ORDER BY r.deadline_ms, r.id
        LIMIT ${limit}
        FOR UPDATE OF r SKIP LOCKED) d ON true`.execute(this.db);
    const due = rows.rows.filter((row) => row.id !== null);
    // A waiting route has no unresolved intent (its last one was answered before it could wait), so there is
    // nothing of theirs to lock; an intent found all the same is resolved by a statement of its own.
    for (const row of due) {
      if (!this.locked.has(row.id)) {
        const { now_ms: _now, ...route } = row;
        this.lock(route);
      }
    }
    return {
      due: due.map((row) => ({ id: row.id, generation: row.generation, deadlineMs: row.deadline_ms! })),
      nowMs: Number(rows.rows[0]!.now_ms),
    };
  }

  /** Holds a row this transaction read FOR UPDATE: reads and fenced writes of its route are answered in memory. */
  private lock(row: RouteRow): void {
    this.locked.set(row.id, rowToRoute(row));
    this.storedRows.set(row.id, row);
  }

  /** Sends the held writes: before any statement that might read them, and when the work is done. */
  async flush(): Promise<void> {
    // What is stored now is what the next held update of these routes is told apart from.
    for (const row of (await this.held.flush(this.db)).written) this.storedRows.set(row.id, row);
  }

  async readRoute(id: string): Promise<Route | null> {
    const locked = this.locked.get(id);
    if (locked !== undefined) return locked;
    await this.flush();
    return readRoute(this.db, id);
  }

  async insertRoute(route: Route): Promise<void> {
    if (this.locked.get(route.id) === null) {
      // Not stored when locked: a route another writer inserts meanwhile fails the held INSERT (primary key).
      this.held.insertRoute(route);
      this.locked.set(route.id, asStored(route, route.payload));
      return;
    }
    await this.flush();
    await this.db.insertInto('routes').values(routeToRow(route, route.updatedAtMs)).execute();
  }

  async updateRoute(next: Route, fence: RouteFence): Promise<boolean> {
    const locked = this.locked.get(next.id);
    if (locked === null) return false;
    if (locked !== undefined) {
      if (!fenceHolds(locked, fence)) return false;
      const stored = this.storedRows.get(next.id);
      if (stored === undefined) this.held.updateInsertedRoute(next);
      else this.held.updateRoute(next, fence, stored);
      // The payload is written once, with the route: an update keeps the stored one.
      this.locked.set(next.id, asStored(next, locked.payload));
      return true;
    }
    await this.flush();
    // The payload is written once, with the route: it never changes, and may be 64 KiB.
    const {
      id: routeId,
      created_at_ms: _created,
      payload: _payload,
      ...columns
    } = routeToRow({ ...next, payload: null }, next.updatedAtMs);
    const result = await this.db
      .updateTable('routes')
      .set(columns)
      .where('id', '=', routeId)
      .where('generation', '=', fence.generation)
      .where('state', '=', fence.state)
      .where('revision', '=', fence.revision)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async deleteRoute(routeId: string, fence: RouteFence, atMs: number): Promise<boolean> {
    await this.flush();
    // Read from the database from now on: the route and its intents are gone or stay as they are.
    this.locked.delete(routeId);
    this.storedRows.delete(routeId);
    const result = await this.db
      .deleteFrom('routes')
      .where('id', '=', routeId)
      .where('generation', '=', fence.generation)
      .where('state', '=', fence.state)
      .where('revision', '=', fence.revision)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) !== 1) return false;
    await this.db.deleteFrom('attempts').where('route_id', '=', routeId).execute();
    await this.db.deleteFrom('dispatch_intents').where('route_id', '=', routeId).execute();
    await this.db.deleteFrom('replay_snapshots').where('route_id', '=', routeId).execute();
    await this.db
      .insertInto('retired_routes')
      .values({ id: routeId, last_generation: fence.generation, retired_at_ms: atMs })
      .onConflict((c) =>
        c.column('id').doUpdateSet((eb) => ({
          last_generation: sql<number>`greatest(${eb.ref('retired_routes.last_generation')}, ${eb.ref('excluded.last_generation')})`,
          retired_at_ms: eb.ref('excluded.retired_at_ms'),
        })),
      )
      .execute();
    return true;
  }

  async forgetRetiredRoutes(beforeMs: number): Promise<number> {
    await this.flush();
    const result = await this.db
      .deleteFrom('retired_routes')
      .where('retired_at_ms', '<', beforeMs)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async retiredRouteGeneration(routeId: string): Promise<number> {
    await this.flush();
    const row = await this.db
      .selectFrom('retired_routes')
      .select('last_generation')
      .where('id', '=', routeId)
      .executeTakeFirst();
    return row === undefined ? 0 : Number(row.last_generation);
  }

  appendAttempt(a: AttemptRecord): Promise<void> {
    this.held.appendAttempt(attemptToRow(a));
    return Promise.resolve();
  }

  insertIntent(i: DispatchIntent): Promise<void> {
    // A duplicate id fails the held INSERT at the end, and the transaction with it.
    this.held.insertIntent(intentToRow(i));
    return Promise.resolve();
  }

  async resolveIntent(intentId: string, outcome: IntentOutcome, atMs: number): Promise<boolean> {
    if (this.held.resolveHeldIntent(intentId, outcome, atMs)) return true;
    if (this.openIntents.delete(intentId)) {
      this.held.resolveStoredIntent(intentId, outcome, atMs);
      return true;
    }
    await this.flush();
    const result = await this.db
      .updateTable('dispatch_intents')
      .set({ outcome, resolved_at_ms: atMs })
      .where('id', '=', intentId)
      .where('outcome', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async saveProfile(profile: DynamicProfile, atMs: number): Promise<void> {
    await this.flush();
    this.profileReads.delete(profile.id);
    await this.db
      .insertInto('profiles')
      .values({
        id: profile.id,
        version: profile.version,
        name: profile.name,
        document: JSON.stringify(profile),
        created_at_ms: atMs,
      })
      .onConflict((c) =>
        c.columns(['id', 'version']).doUpdateSet((eb) => ({
          name: eb.ref('excluded.name'),
          document: eb.ref('excluded.document'),
        })),
      )
      .execute();
  }

  /** Read once per transaction: a batch of decisions on one profile asks for it once per decision. */
  readProfile(id: string): Promise<DynamicProfile | null> {
    let read = this.profileReads.get(id);
    if (read === undefined) {
      read = readProfile(this.db, id, this.profiles);
      this.profileReads.set(id, read);
    }
    return read;
  }

  async deleteProfile(id: string, atMs: number): Promise<boolean> {
    await this.flush();
    this.profileReads.delete(id);
    const versions = await this.db.deleteFrom('profiles').where('id', '=', id).returning('version').execute();
    if (versions.length === 0) return false;
    const last = Math.max(...versions.map((row) => Number(row.version)));
    await this.db
      .insertInto('retired_profiles')
      .values({ id, last_version: last, retired_at_ms: atMs })
      .onConflict((c) =>
        c.column('id').doUpdateSet((eb) => ({
          last_version: sql<number>`greatest(${eb.ref('retired_profiles.last_version')}, ${eb.ref('excluded.last_version')})`,
          retired_at_ms: eb.ref('excluded.retired_at_ms'),
        })),
      )
      .execute();
    return true;
  }

  async lockProfiles(): Promise<void> {
    await this.flush();
    // One lock for every profile of the schema: profile writes are rare, and a batch that writes two profiles can
    // then never wait for another that holds them in the other order. The statements after it see what the
    // previous holder committed (read committed).
    await sql`SELECT pg_advisory_xact_lock(hashtext('recourse.profiles:' || current_schema()))`.execute(
      this.db,
    );
    this.profileReads.clear();
  }

  async shareProfiles(): Promise<void> {
    await this.flush();
    // The same lock as `lockProfiles`, shared: starts go on side by side, a save or delete waits for them (and
    // they for it). A profile this batch read before is read again: a delete may have committed meanwhile.
    await sql`SELECT pg_advisory_xact_lock_shared(hashtext('recourse.profiles:' || current_schema()))`.execute(
      this.db,
    );
    this.profileReads.clear();
  }

  async retiredProfileVersion(id: string): Promise<number> {
    await this.flush();
    const row = await this.db
      .selectFrom('retired_profiles')
      .select('last_version')
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? 0 : Number(row.last_version);
  }

  async countProfileRoutes(id: string): Promise<number> {
    await this.flush();
    const row = await this.db
      .selectFrom('routes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('profile_id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Each circuit is read once per transaction and then kept as this transaction writes it. Circuits are not locked
   * when read: a write is fenced by the version read, so a circuit another node moved meanwhile fails the write; a
   * decision that only read one is fenced by `confirmCircuitReads` at the end.
   */
  async readCircuits(keys: readonly string[]): Promise<ReadonlyMap<string, Circuit>> {
    const missing = keys.filter((k) => !this.circuitReads.has(k));
    if (missing.length > 0) {
      const rows = await this.db.selectFrom('circuits').selectAll().where('key', 'in', missing).execute();
      for (const k of missing) {
        this.circuitReads.set(k, null);
        this.circuitVersions.set(k, 0);
      }
      for (const row of rows) {
        const circuit = circuitOfRow(row);
        this.circuitReads.set(row.key, circuit);
        this.circuitVersions.set(row.key, circuit.version);
      }
    }
    const circuits = new Map<string, Circuit>();
    for (const k of keys) {
      const circuit = this.circuitReads.get(k);
      if (circuit !== null && circuit !== undefined) circuits.set(k, circuit);
    }
    return circuits;
  }

  async writeCircuit(c: Circuit, expectedVersion: number): Promise<boolean> {
    const written = await this.storeCircuit(c, expectedVersion);
    // Written, the row is this transaction's (locked until it ends): nothing to confirm. A lost race leaves the
    // stored circuit unknown here: the next read asks the database, and nothing read so far may be confirmed.
    if (written) this.circuitReads.set(c.key, c);
    else {
      this.circuitReads.delete(c.key);
      this.circuitLost = true;
    }
    this.circuitVersions.delete(c.key);
    return written;
  }

  /**
   * One statement, the last before COMMIT (the held writes are sent first): the circuits this transaction read and
   * did not write, locked FOR SHARE so that no writer can change them until it ends, and compared with the versions
   * read. NOWAIT: a circuit another transaction is writing now fails the check at once rather than wait, so this
   * transaction never waits on a circuit while holding its routes, and no deadlock can form; a writer that meets
   * the share lock waits only for this COMMIT. The failed statement aborts the transaction: it is rolled back.
   */
  async confirmCircuitReads(): Promise<boolean> {
    if (this.circuitLost) return false;
    const keys = [...this.circuitVersions.keys()];
    if (keys.length === 0) return true;
    // In the statement that sends the held writes: one round trip for both, still the last before COMMIT.
    let flushed: Flushed;
    try {
      flushed = await this.held.flush(this.db, keys);
    } catch (error) {
      if ((error as { code?: unknown }).code === lockNotAvailable) return false;
      throw error;
    }
    for (const row of flushed.written) this.storedRows.set(row.id, row);
    const stored = flushed.circuitVersions;
    return keys.every((k) => (stored.get(k) ?? 0) === this.circuitVersions.get(k));
  }

  private async storeCircuit(c: Circuit, expectedVersion: number): Promise<boolean> {
    const row = circuitToRow(c);
    if (expectedVersion === 0) {
      const result = await this.db
        .insertInto('circuits')
        .values(row)
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows) === 1;
    }
    const { key, ...columns } = row;
    const result = await this.db
      .updateTable('circuits')
      .set(columns)
      .where('key', '=', key)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  saveReplaySnapshot(routeId: string, generation: number, s: ReplayEvidence, atMs: number): Promise<void> {
    this.held.saveReplay(replayToRow(routeId, generation, s, atMs));
    return Promise.resolve();
  }

  async appendPlanError(record: PlanErrorRecord): Promise<void> {
    await this.flush();
    const last = await this.db
      .selectFrom('plan_errors')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('plan_id', '=', record.plan_id)
      .executeTakeFirst();
    await this.db
      .insertInto('plan_errors')
      .values({
        plan_id: record.plan_id,
        seq: Number(last?.seq ?? 0) + 1,
        record: JSON.stringify(record),
        at_ms: Date.parse(record.occurred_at),
      })
      .execute();
  }

  async listPlanErrors(planId: string): Promise<readonly PlanErrorRecord[]> {
    await this.flush();
    return readPlanErrors(this.db, planId);
  }

  async readPlan(id: string): Promise<Plan | null> {
    await this.flush();
    // Every plan write reads its plan first, in its transaction: a lock on the id, held to COMMIT, makes the writes
    // of one plan take turns across nodes, as SQLite's one writer does, so the second reads what the first wrote.
    // Without it two nodes creating one plan met a duplicate key, and two changes on one revision failed the fence
    // (both a 500). The lock is on the id, so it holds before the plan exists.
    await sql`SELECT pg_advisory_xact_lock(hashtext('recourse.plans:' || current_schema() || ':' || ${id}))`.execute(
      this.db,
    );
    return readPlan(this.db, id);
  }

  async insertPlan(plan: Plan): Promise<void> {
    await this.flush();
    await this.db.insertInto('plans').values(planToRow(plan)).execute();
  }

  async updatePlan(next: Plan, expectedRevision: number): Promise<boolean> {
    await this.flush();
    const { id, created_at_ms: _created, ...columns } = planToRow(next);
    const result = await this.db
      .updateTable('plans')
      .set(columns)
      .where('id', '=', id)
      .where('revision', '=', expectedRevision)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}

/** The fence a decision was made on still holds for the route as this transaction has it. */
function fenceHolds(route: Route, fence: RouteFence): boolean {
  return (
    route.generation === fence.generation && route.state === fence.state && route.revision === fence.revision
  );
}
