import type { Kysely } from 'kysely';
import {
  redactSecrets,
  safeExcerpt,
  type AttemptRecord,
  type Circuit,
  type DispatchIntent,
  type DynamicProfile,
  type IntentOutcome,
  type Plan,
  type PlanErrorRecord,
  type ReplayEvidence,
  type Route,
  type RouteFence,
  type StoreTransaction,
} from '../../core/index.js';
import { circuitOfRow, type ProfileDocuments } from '../row-codecs.js';
import { planOfRow, planToRow } from '../plan-rows.js';
import { rowToRoute, routeToRow } from '../route-rows.js';
import type { CircuitRow, Database } from '../schema.js';

/**
 * A transaction's reads and writes on one pooled PostgreSQL client, inside the BEGIN that `transact` opened.
 * Every fenced write states its fence in the UPDATE's (or DELETE's) WHERE, as the SQLite statements do: PostgreSQL
 * re-checks that WHERE against the newest committed row, so zero rows changed means another writer won.
 */
export class PostgresTransaction implements StoreTransaction {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly profiles: ProfileDocuments,
  ) {}

  async readRoute(id: string): Promise<Route | null> {
    const row = await this.db.selectFrom('routes').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? null : rowToRoute(row);
  }

  async insertRoute(route: Route): Promise<void> {
    await this.db.insertInto('routes').values(routeToRow(route, route.updatedAtMs)).execute();
  }

  async updateRoute(next: Route, fence: RouteFence): Promise<boolean> {
    // The payload is written once, with the route: it never changes, and may be 64 KiB.
    const {
      id,
      created_at_ms: _created,
      payload: _payload,
      ...columns
    } = routeToRow({ ...next, payload: null }, next.updatedAtMs);
    const result = await this.db
      .updateTable('routes')
      .set(columns)
      .where('id', '=', id)
      .where('generation', '=', fence.generation)
      .where('state', '=', fence.state)
      .where('revision', '=', fence.revision)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async deleteRoute(id: string, fence: RouteFence): Promise<boolean> {
    const result = await this.db
      .deleteFrom('routes')
      .where('id', '=', id)
      .where('generation', '=', fence.generation)
      .where('state', '=', fence.state)
      .where('revision', '=', fence.revision)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) !== 1) return false;
    await this.db.deleteFrom('attempts').where('route_id', '=', id).execute();
    await this.db.deleteFrom('dispatch_intents').where('route_id', '=', id).execute();
    await this.db.deleteFrom('replay_snapshots').where('route_id', '=', id).execute();
    return true;
  }

  async appendAttempt(a: AttemptRecord): Promise<void> {
    await this.db
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
        note: a.note,
        at_ms: a.atMs,
        delay_source: a.delaySource,
      })
      .execute();
  }

  async insertIntent(i: DispatchIntent): Promise<void> {
    await this.db
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
    const result = await this.db
      .updateTable('dispatch_intents')
      .set({ outcome, resolved_at_ms: atMs })
      .where('id', '=', id)
      .where('outcome', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async saveProfile(profile: DynamicProfile, atMs: number): Promise<void> {
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

  async readProfile(id: string): Promise<DynamicProfile | null> {
    const row = await this.db
      .selectFrom('profiles')
      .select(['version', 'document'])
      .where('id', '=', id)
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row === undefined ? null : this.profiles.parse(id, row.version, row.document);
  }

  async deleteProfile(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('profiles').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async countProfileRoutes(id: string): Promise<number> {
    const row = await this.db
      .selectFrom('routes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('profile_id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async readCircuits(keys: readonly string[]): Promise<ReadonlyMap<string, Circuit>> {
    const circuits = new Map<string, Circuit>();
    if (keys.length === 0) return circuits;
    const rows = await this.db.selectFrom('circuits').selectAll().where('key', 'in', keys).execute();
    for (const row of rows) circuits.set(row.key, circuitOfRow(row));
    return circuits;
  }

  async writeCircuit(c: Circuit, expectedVersion: number): Promise<boolean> {
    const row: CircuitRow = {
      key: c.key,
      scope: c.scope,
      state: c.state,
      open_until_ms: c.openUntilMs,
      opened_by: c.openedBy,
      probe_owner: c.probeOwner,
      probe_lease_until_ms: c.probeLeaseUntilMs,
      version: c.version,
    };
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

  async saveReplaySnapshot(
    routeId: string,
    generation: number,
    s: ReplayEvidence,
    atMs: number,
  ): Promise<void> {
    await this.db
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
    const rows = await this.db
      .selectFrom('plan_errors')
      .select('record')
      .where('plan_id', '=', planId)
      .orderBy('seq')
      .execute();
    return rows.map((r) => JSON.parse(r.record) as PlanErrorRecord);
  }

  async readPlan(id: string): Promise<Plan | null> {
    const row = await this.db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? null : planOfRow(row);
  }

  async insertPlan(plan: Plan): Promise<void> {
    await this.db.insertInto('plans').values(planToRow(plan)).execute();
  }

  async updatePlan(next: Plan, expectedRevision: number): Promise<boolean> {
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
