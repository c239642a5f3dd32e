import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql, type Selectable } from 'kysely';
import { sqliteMigrations } from './migrations/index.js';
import {
  redactSecrets,
  routeStates,
  safeExcerpt,
  type AttemptRecord,
  type Circuit,
  type DispatchIntent,
  type DynamicProfile,
  type IntentOutcome,
  type PlanErrorRecord,
  type ReplayEvidence,
  type Route,
  type RouteFence,
  type RouteState,
  type ScheduledRoute,
  type Store,
  type StoredAttempt,
  type StoredIntent,
  type StoreTransaction,
} from '../../core/index.js';
import { rowToRoute, routeToRow } from '../route-rows.js';
import type { AttemptRow, Database, IntentRow } from '../schema.js';

export interface SqliteStoreOptions {
  /** A database file (created with its folder), or `:memory:`. */
  readonly file: string;
  /** SQLite durability: FULL (default) syncs every commit; NORMAL syncs at WAL checkpoints. */
  readonly synchronous?: 'FULL' | 'NORMAL';
}

/** The default database file of the embedded mode. */
export const defaultDatabaseFile = '.recourse/recourse.db';

/** The SQLite adapter of the Store port: Kysely over better-sqlite3, WAL, numbered migrations. */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
  const database = new BetterSqlite3(options.file);
  database.pragma('journal_mode = WAL');
  database.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  database.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return new SqliteStore(db);
}

class SqliteStore implements Store {
  constructor(private readonly db: Kysely<Database>) {}

  async migrate(): Promise<readonly string[]> {
    const migrator = new Migrator({
      db: this.db,
      provider: { getMigrations: () => Promise.resolve(sqliteMigrations) },
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw new Error(`migration failed: ${(error as Error).message}`, { cause: error });
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  /**
   * BEGIN IMMEDIATE takes the write lock before the first read: a transaction that reads a route and then writes
   * it can never meet a writer that committed in between (SQLite would fail it with SQLITE_BUSY_SNAPSHOT);
   * other connections wait for the lock instead (busy_timeout).
   */
  transact<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    return this.db.connection().execute(async (connection) => {
      await sql`begin immediate`.execute(connection);
      try {
        const result = await work(new SqliteTransaction(connection));
        await sql`commit`.execute(connection);
        return result;
      } catch (error) {
        // The work's error is the one worth reporting; a failed rollback leaves nothing committed either.
        await sql`rollback`.execute(connection).catch(() => undefined);
        throw error;
      }
    });
  }

  async readRoute(id: string): Promise<Route | null> {
    return readRoute(this.db, id);
  }

  async readProfile(id: string): Promise<DynamicProfile | null> {
    return readProfile(this.db, id);
  }

  async earliestDeadline(): Promise<number | null> {
    const row = await this.db
      .selectFrom('routes')
      .select(sql<number | null>`min(deadline_ms)`.as('due'))
      .where('deadline_ms', 'is not', null)
      .executeTakeFirst();
    return row?.due ?? null;
  }

  async dueRoutes(nowMs: number, limit: number): Promise<readonly ScheduledRoute[]> {
    const rows = await this.db
      .selectFrom('routes')
      .select(['id', 'generation', 'deadline_ms'])
      .where('deadline_ms', 'is not', null)
      .where('deadline_ms', '<=', nowMs)
      .orderBy('deadline_ms')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, generation: r.generation, deadlineMs: r.deadline_ms! }));
  }

  async scheduledRoutes(): Promise<readonly ScheduledRoute[]> {
    const rows = await this.db
      .selectFrom('routes')
      .select(['id', 'generation', 'deadline_ms'])
      .where('deadline_ms', 'is not', null)
      .execute();
    return rows.map((r) => ({ id: r.id, generation: r.generation, deadlineMs: r.deadline_ms! }));
  }

  async unresolvedIntents(): Promise<readonly DispatchIntent[]> {
    const rows = await this.db
      .selectFrom('dispatch_intents')
      .selectAll()
      .where('outcome', 'is', null)
      .orderBy('created_at_ms')
      .execute();
    return rows.map(intentOfRow);
  }

  async listIntents(routeId: string): Promise<readonly StoredIntent[]> {
    const rows = await this.db
      .selectFrom('dispatch_intents')
      .selectAll()
      .where('route_id', '=', routeId)
      .orderBy('created_at_ms')
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      ...intentOfRow(r),
      outcome: r.outcome as IntentOutcome | null,
      resolvedAtMs: r.resolved_at_ms,
    }));
  }

  async readCircuit(key: string): Promise<Circuit | null> {
    return (await readCircuits(this.db, [key])).get(key) ?? null;
  }

  async listAttempts(routeId: string): Promise<readonly StoredAttempt[]> {
    const rows = await this.db
      .selectFrom('attempts')
      .selectAll()
      .where('route_id', '=', routeId)
      .orderBy('seq')
      .execute();
    return rows.map(attemptOfRow);
  }

  async listPlanErrors(planId: string): Promise<readonly PlanErrorRecord[]> {
    const rows = await this.db
      .selectFrom('plan_errors')
      .select('record')
      .where('plan_id', '=', planId)
      .orderBy('seq')
      .execute();
    return rows.map((r) => JSON.parse(r.record) as PlanErrorRecord);
  }

  async countRoutes(): Promise<Readonly<Record<RouteState, number>>> {
    const rows = await this.db
      .selectFrom('routes')
      .select(['state', sql<number>`count(*)`.as('n')])
      .groupBy('state')
      .execute();
    const counts = Object.fromEntries(routeStates.map((s) => [s, 0])) as Record<RouteState, number>;
    for (const r of rows) counts[r.state as RouteState] = Number(r.n);
    return counts;
  }
}

class SqliteTransaction implements StoreTransaction {
  constructor(private readonly trx: Kysely<Database>) {}

  readRoute(id: string): Promise<Route | null> {
    return readRoute(this.trx, id);
  }

  async insertRoute(route: Route): Promise<void> {
    await this.trx.insertInto('routes').values(routeToRow(route, route.updatedAtMs)).execute();
  }

  async updateRoute(next: Route, fence: RouteFence): Promise<boolean> {
    const { id: _id, created_at_ms: _created, ...values } = routeToRow(next, next.updatedAtMs);
    const result = await this.trx
      .updateTable('routes')
      .set(values)
      .where('id', '=', next.id)
      .where('generation', '=', fence.generation)
      .where('state', '=', fence.state)
      .where('revision', '=', fence.revision)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async appendAttempt(a: AttemptRecord): Promise<void> {
    await this.trx
      .insertInto('attempts')
      .values({
        route_id: a.routeId,
        candidate: a.candidate,
        generation: a.generation,
        code: a.code,
        failure_class: a.failureClass,
        catalogue_version: a.catalogueVersion,
        rule: a.rule,
        policy_snapshot: a.policySnapshot === null ? null : JSON.stringify(a.policySnapshot),
        decision: a.decision,
        retry_ordinal: a.retryOrdinal,
        deadline_ms: a.deadlineMs,
        pending_outcome: a.pendingOutcome,
        safe_excerpt: a.safeExcerpt,
        at_ms: a.atMs,
      })
      .execute();
  }

  async insertIntent(i: DispatchIntent): Promise<void> {
    await this.trx
      .insertInto('dispatch_intents')
      .values({
        id: i.id,
        route_id: i.routeId,
        generation: i.generation,
        candidate: i.candidate,
        kind: i.kind,
        created_at_ms: i.createdAtMs,
        outcome: null,
        resolved_at_ms: null,
      })
      .execute();
  }

  async resolveIntent(id: string, outcome: IntentOutcome, atMs: number): Promise<boolean> {
    const r = await this.trx
      .updateTable('dispatch_intents')
      .set({ outcome, resolved_at_ms: atMs })
      .where('id', '=', id)
      .where('outcome', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async saveProfile(profile: DynamicProfile, atMs: number): Promise<void> {
    await this.trx
      .insertInto('profiles')
      .values({
        id: profile.id,
        version: profile.version,
        name: profile.name,
        document: JSON.stringify(profile),
        created_at_ms: atMs,
      })
      .onConflict((oc) =>
        oc.columns(['id', 'version']).doUpdateSet({ name: profile.name, document: JSON.stringify(profile) }),
      )
      .execute();
  }

  readProfile(id: string): Promise<DynamicProfile | null> {
    return readProfile(this.trx, id);
  }

  readCircuits(keys: readonly string[]): Promise<ReadonlyMap<string, Circuit>> {
    return readCircuits(this.trx, keys);
  }

  async writeCircuit(c: Circuit, expectedVersion: number): Promise<boolean> {
    const values = {
      scope: c.scope,
      state: c.state,
      open_until_ms: c.openUntilMs,
      opened_by: c.openedBy,
      probe_owner: c.probeOwner,
      probe_lease_until_ms: c.probeLeaseUntilMs,
      version: c.version,
    };
    if (expectedVersion === 0) {
      const r = await this.trx
        .insertInto('circuits')
        .values({ key: c.key, ...values })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
    }
    const r = await this.trx
      .updateTable('circuits')
      .set(values)
      .where('key', '=', c.key)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async saveReplaySnapshot(
    routeId: string,
    generation: number,
    s: ReplayEvidence,
    atMs: number,
  ): Promise<void> {
    await this.trx
      .insertInto('replay_snapshots')
      .values({
        route_id: routeId,
        generation,
        session_id: s.key.sessionId,
        execution_id: s.key.executionId,
        prompt_generation: s.key.promptGeneration,
        counts: JSON.stringify(s.counts),
        assistant_excerpt: safeExcerpt(redactSecrets(s.assistantText)),
        at_ms: atMs,
      })
      .execute();
  }

  async appendPlanError(record: PlanErrorRecord): Promise<void> {
    const last = await this.trx
      .selectFrom('plan_errors')
      .select(sql<number | null>`max(seq)`.as('seq'))
      .where('plan_id', '=', record.plan_id)
      .executeTakeFirst();
    await this.trx
      .insertInto('plan_errors')
      .values({
        plan_id: record.plan_id,
        seq: (last?.seq ?? 0) + 1,
        record: JSON.stringify(record),
        at_ms: Date.parse(record.occurred_at),
      })
      .execute();
  }
}

async function readRoute(db: Kysely<Database>, id: string): Promise<Route | null> {
  const row = await db.selectFrom('routes').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? null : rowToRoute(row);
}

async function readProfile(db: Kysely<Database>, id: string): Promise<DynamicProfile | null> {
  const row = await db
    .selectFrom('profiles')
    .select('document')
    .where('id', '=', id)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? null : (JSON.parse(row.document) as DynamicProfile);
}

async function readCircuits(
  db: Kysely<Database>,
  keys: readonly string[],
): Promise<ReadonlyMap<string, Circuit>> {
  const circuits = new Map<string, Circuit>();
  if (keys.length === 0) return circuits;
  const rows = await db.selectFrom('circuits').selectAll().where('key', 'in', keys).execute();
  for (const row of rows) {
    circuits.set(row.key, {
      key: row.key,
      scope: row.scope as Circuit['scope'],
      state: row.state as Circuit['state'],
      openUntilMs: row.open_until_ms,
      openedBy: row.opened_by,
      probeOwner: row.probe_owner,
      probeLeaseUntilMs: row.probe_lease_until_ms,
      version: row.version,
    });
  }
  return circuits;
}

function intentOfRow(r: IntentRow): DispatchIntent {
  return {
    id: r.id,
    routeId: r.route_id,
    generation: r.generation,
    candidate: r.candidate,
    kind: r.kind as DispatchIntent['kind'],
    createdAtMs: r.created_at_ms,
  };
}

function attemptOfRow(r: Selectable<AttemptRow>): StoredAttempt {
  return {
    seq: r.seq,
    routeId: r.route_id,
    candidate: r.candidate,
    generation: r.generation,
    code: r.code,
    failureClass: r.failure_class,
    catalogueVersion: r.catalogue_version,
    rule: r.rule,
    policySnapshot:
      r.policy_snapshot === null ? null : (JSON.parse(r.policy_snapshot) as StoredAttempt['policySnapshot']),
    decision: r.decision,
    retryOrdinal: r.retry_ordinal,
    deadlineMs: r.deadline_ms,
    pendingOutcome: r.pending_outcome,
    safeExcerpt: r.safe_excerpt,
    atMs: r.at_ms,
  };
}
