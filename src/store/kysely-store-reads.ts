import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import {
  circuitStates,
  routeStates,
  type Circuit,
  type CircuitState,
  type DispatchIntent,
  type DueClaim,
  type DynamicProfile,
  type IntentOutcome,
  type Plan,
  type PlanErrorRecord,
  type PlanPageQuery,
  type PlanSummary,
  type ProfileSummary,
  type Route,
  type RouteQuery,
  type RouteState,
  type ScheduledRoute,
  type Store,
  type StoredAttempt,
  type StoredIntent,
  type StoreTransaction,
} from '../core/index.js';
import { attemptOfRow, circuitOfRow, intentOfRow, ProfileDocuments } from './row-codecs.js';
import { planOfRow } from './plan-rows.js';
import { rowToRoute } from './route-rows.js';
import type { Database } from './schema.js';

/**
 * The Store port's reads outside transactions, written once in Kysely for SQLite and PostgreSQL. An adapter adds
 * how it migrates, closes and runs a transaction, and the one test its dialects spell differently: whether a
 * route's stored dispatch (JSON text) says the attempt finished.
 */
export abstract class KyselyStoreReads implements Store {
  protected readonly profiles = new ProfileDocuments();

  constructor(
    protected readonly db: Kysely<Database>,
    /** True for a route whose stored dispatch has this flag set (the dialect reads inside its JSON). */
    private readonly dispatchFlag: (flag: 'acknowledged' | 'finished' | 'orphaned') => Expression<SqlBool>,
  ) {}

  abstract migrate(): Promise<readonly string[]>;
  abstract close(): Promise<void>;
  abstract transact<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T>;
  abstract claimDueRoutes(claim: DueClaim): Promise<readonly ScheduledRoute[]>;

  async readRoute(id: string): Promise<Route | null> {
    return readRoute(this.db, id);
  }

  async readProfile(id: string): Promise<DynamicProfile | null> {
    return readProfile(this.db, id, this.profiles);
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
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, generation: r.generation, deadlineMs: r.deadline_ms! }));
  }

  async routesWaitingUntil(instantsMs: readonly number[]): Promise<readonly ScheduledRoute[]> {
    if (instantsMs.length === 0) return [];
    const rows = await this.db
      .selectFrom('routes')
      .select(['id', 'generation', 'deadline_ms'])
      .where('deadline_ms', 'in', [...instantsMs])
      .orderBy('id')
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

  async listRoutes(query: RouteQuery): Promise<readonly Route[]> {
    let q = this.db.selectFrom('routes').selectAll().orderBy('id').limit(query.limit);
    if (query.state !== undefined) q = q.where('state', '=', query.state);
    if (query.profileId !== undefined) q = q.where('profile_id', '=', query.profileId);
    if (query.after !== undefined) q = q.where('id', '>', query.after);
    return (await q.execute()).map(rowToRoute);
  }

  async finishedRoutes(beforeMs: number, limit: number): Promise<readonly string[]> {
    const rows = await this.db
      .selectFrom('routes')
      .select('id')
      .where('updated_at_ms', '<', beforeMs)
      .where((eb) =>
        // Exactly the routes the purge deletes: one whose attempt may still run stays, so it must not take a place
        // in the batch either (enough of them, oldest first, would fill every batch and stop the purge for good).
        eb.or([
          eb.and([
            eb('state', '=', 'action_required'),
            eb.or([
              eb('dispatch', 'is', null),
              this.dispatchFlag('finished'),
              this.dispatchFlag('orphaned'),
              eb('reason', '=', 'ambiguous_dispatch'),
            ]),
          ]),
          eb.and([
            eb('state', '=', 'active'),
            eb.or([eb('dispatch', 'is', null), this.dispatchFlag('finished')]),
          ]),
        ]),
      )
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('task_sessions')
              .select('route_id')
              .whereRef('task_sessions.route_id', '=', 'routes.id'),
          ),
        ),
      )
      .orderBy('updated_at_ms')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  async awaitingRoutes(): Promise<readonly { readonly id: string; readonly generation: number }[]> {
    return this.db
      .selectFrom('routes')
      .select(['id', 'generation'])
      .where((eb) =>
        eb.or([
          eb('state', 'in', ['active', 'retrying', 'switching']),
          // Stopped while an accepted attempt ran: its answer still counts, but after a restart none may come.
          eb.and([
            eb('state', '=', 'action_required'),
            this.dispatchFlag('acknowledged'),
            eb.not(this.dispatchFlag('finished')),
          ]),
        ]),
      )
      .orderBy('id')
      .execute();
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

  async storedIntents(intentIds: readonly string[]): Promise<readonly string[]> {
    if (intentIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('dispatch_intents')
      .select('id')
      .where('id', 'in', [...intentIds])
      .execute();
    return rows.map((r) => r.id);
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
    const row = await this.db.selectFrom('circuits').selectAll().where('key', '=', key).executeTakeFirst();
    return row === undefined ? null : circuitOfRow(row);
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
    return readPlanErrors(this.db, planId);
  }

  async readPlan(id: string): Promise<Plan | null> {
    return readPlan(this.db, id);
  }

  async listPlans(query: PlanPageQuery): Promise<readonly PlanSummary[]> {
    const before = query.before;
    let select = this.db
      .selectFrom('plans as p')
      .selectAll('p')
      .select([
        sql<number>`(SELECT count(*) FROM plan_errors e WHERE e.plan_id = p.id)`.as('error_count'),
        sql<number | null>`(SELECT max(e.at_ms) FROM plan_errors e WHERE e.plan_id = p.id)`.as(
          'last_error_at_ms',
        ),
      ]);
    if (before !== undefined) {
      select = select.where((eb) =>
        eb.or([
          eb('p.updated_at_ms', '<', before.updatedAtMs),
          eb.and([eb('p.updated_at_ms', '=', before.updatedAtMs), eb('p.id', '<', before.id)]),
        ]),
      );
    }
    const rows = await select
      .orderBy('p.updated_at_ms', 'desc')
      .orderBy('p.id', 'desc')
      .limit(query.limit)
      .execute();
    return rows.map(({ error_count, last_error_at_ms, ...row }) => ({
      plan: planOfRow(row),
      errorCount: Number(error_count),
      lastErrorAtMs: last_error_at_ms === null ? null : Number(last_error_at_ms),
    }));
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

  async listProfiles(): Promise<readonly ProfileSummary[]> {
    const rows = await this.db
      .selectFrom('profiles as p')
      .select(['p.id', 'p.name', 'p.version'])
      .where('p.version', '=', sql<number>`(SELECT max(q.version) FROM profiles q WHERE q.id = p.id)`)
      .orderBy('p.id')
      .execute();
    return rows.map((r) => ({ id: r.id, name: r.name, version: Number(r.version) }));
  }

  async countCircuits(): Promise<Readonly<Record<CircuitState, number>>> {
    const rows = await this.db
      .selectFrom('circuits')
      .select(['state', sql<number>`count(*)`.as('n')])
      .groupBy('state')
      .execute();
    const counts = Object.fromEntries(circuitStates.map((s) => [s, 0])) as Record<CircuitState, number>;
    for (const r of rows) counts[r.state as CircuitState] = Number(r.n);
    return counts;
  }
}

/** One route by id, or null: the store's read and its transactions' (on the transaction's connection). */
export async function readRoute(db: Kysely<Database>, id: string): Promise<Route | null> {
  const row = await db.selectFrom('routes').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? null : rowToRoute(row);
}

/** A plan's error history, oldest first: the store's read and its transactions'. */
export async function readPlanErrors(
  db: Kysely<Database>,
  planId: string,
): Promise<readonly PlanErrorRecord[]> {
  const rows = await db
    .selectFrom('plan_errors')
    .select('record')
    .where('plan_id', '=', planId)
    .orderBy('seq')
    .execute();
  return rows.map((r) => JSON.parse(r.record) as PlanErrorRecord);
}

/** One plan by id, or null: the store's read and its transactions'. */
export async function readPlan(db: Kysely<Database>, id: string): Promise<Plan | null> {
  const row = await db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? null : planOfRow(row);
}

/** The latest version of a dynamic profile, validated; null when none is stored. */
export async function readProfile(
  db: Kysely<Database>,
  id: string,
  profiles: ProfileDocuments,
): Promise<DynamicProfile | null> {
  const row = await db
    .selectFrom('profiles')
    .select(['version', 'document'])
    .where('id', '=', id)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? null : profiles.parse(id, row.version, row.document);
}
