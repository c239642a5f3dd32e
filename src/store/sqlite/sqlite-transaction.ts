import type { StatementCache } from './statement-cache.js';
import type {
  AttemptRecord,
  Circuit,
  DispatchIntent,
  DynamicProfile,
  IntentOutcome,
  Plan,
  PlanErrorRecord,
  ReplayEvidence,
  Route,
  RouteFence,
  StoreTransaction,
} from '../../core/index.js';
import type { ProfileDocuments } from '../row-codecs.js';
import { circuitOfRow, circuitToRow, intentToRow } from '../row-codecs.js';
import { planColumns, planOfRow, planToRow } from '../plan-rows.js';
import { attemptToRow, replayToRow, rowToRoute, routeToRow } from '../route-rows.js';
import type { AttemptRow, CircuitRow, Database, IntentRow, PlanRow, RouteRow } from '../schema.js';

const routeColumns = [
  'id',
  'mode',
  'profile_id',
  'caller',
  'candidate',
  'state',
  'generation',
  'revision',
  'cycle',
  'excluded',
  'usage',
  'last_failure',
  'dispatch',
  'deadline_ms',
  'failure_class',
  'retry_ordinal',
  'max_retries',
  'pending_outcome',
  'next_candidate',
  'reason',
  'detail',
  'recovery_actions',
  'payload',
  'created_at_ms',
  'updated_at_ms',
  'lease_owner',
  'lease_until_ms',
] as const satisfies readonly (keyof RouteRow)[];

const attemptColumns = [
  'route_id',
  'candidate',
  'generation',
  'code',
  'failure_class',
  'catalogue_version',
  'rule',
  'policy_snapshot',
  'decision',
  'retry_ordinal',
  'deadline_ms',
  'pending_outcome',
  'safe_excerpt',
  'note',
  'at_ms',
  'delay_source',
] as const satisfies readonly (keyof AttemptRow)[];

const intentColumns = [
  'id',
  'route_id',
  'generation',
  'candidate',
  'kind',
  'created_at_ms',
  'outcome',
  'resolved_at_ms',
] as const satisfies readonly (keyof IntentRow)[];

const circuitColumns = [
  'key',
  'scope',
  'state',
  'open_until_ms',
  'opened_by',
  'probe_owner',
  'probe_lease_until_ms',
  'version',
] as const satisfies readonly (keyof CircuitRow)[];

const insert = (table: keyof Database, columns: readonly string[]) =>
  `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`;

/** The SQL of the transaction path, written once from the typed column lists of the shared schema. */
const statements = {
  readRoute: 'SELECT * FROM routes WHERE id = ?',
  insertRoute: insert('routes', routeColumns),
  // The fence: the generation, state and revision the writer read. Zero rows changed means another writer won.
  // The payload is written once, with the route: it never changes, and may be 64 KiB.
  updateRoute: `UPDATE routes SET ${routeColumns
    .filter((c) => c !== 'id' && c !== 'created_at_ms' && c !== 'payload')
    .map((c) => `${c} = @${c}`)
    .join(
      ', ',
    )} WHERE id = @id AND generation = @fence_generation AND state = @fence_state AND revision = @fence_revision`,
  appendAttempt: insert('attempts', attemptColumns),
  deleteRoute:
    'DELETE FROM routes WHERE id = @id AND generation = @fence_generation AND state = @fence_state AND revision = @fence_revision',
  retireRoute:
    'INSERT INTO retired_routes (id, last_generation, retired_at_ms) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET last_generation = max(last_generation, excluded.last_generation), retired_at_ms = excluded.retired_at_ms',
  forgetRetiredRoutes: 'DELETE FROM retired_routes WHERE retired_at_ms < ?',
  retiredRouteGeneration: 'SELECT last_generation FROM retired_routes WHERE id = ?',
  deleteAttempts: 'DELETE FROM attempts WHERE route_id = ?',
  deleteIntents: 'DELETE FROM dispatch_intents WHERE route_id = ?',
  deleteReplay: 'DELETE FROM replay_snapshots WHERE route_id = ?',
  insertIntent: insert('dispatch_intents', intentColumns),
  resolveIntent:
    'UPDATE dispatch_intents SET outcome = @outcome, resolved_at_ms = @at WHERE id = @id AND outcome IS NULL',
  saveProfile: `${insert('profiles', ['id', 'version', 'name', 'document', 'created_at_ms'])} ON CONFLICT (id, version) DO UPDATE SET name = excluded.name, document = excluded.document`,
  readProfile: 'SELECT version, document FROM profiles WHERE id = ? ORDER BY version DESC LIMIT 1',
  deleteProfile: 'DELETE FROM profiles WHERE id = ? RETURNING version',
  retireProfile:
    'INSERT INTO retired_profiles (id, last_version, retired_at_ms) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET last_version = max(last_version, excluded.last_version), retired_at_ms = excluded.retired_at_ms',
  retiredProfileVersion: 'SELECT last_version FROM retired_profiles WHERE id = ?',
  countProfileRoutes: 'SELECT count(*) AS n FROM routes WHERE profile_id = ?',
  readCircuits: (n: number) => `SELECT * FROM circuits WHERE key IN (${Array(n).fill('?').join(', ')})`,
  insertCircuit: `${insert('circuits', circuitColumns)} ON CONFLICT (key) DO NOTHING`,
  updateCircuit: `UPDATE circuits SET ${circuitColumns
    .filter((c) => c !== 'key')
    .map((c) => `${c} = @${c}`)
    .join(', ')} WHERE key = @key AND version = @expected_version`,
  saveReplaySnapshot: insert('replay_snapshots', [
    'route_id',
    'generation',
    'session_id',
    'execution_id',
    'prompt_generation',
    'counts',
    'assistant_excerpt',
    'at_ms',
  ]),
  lastPlanErrorSeq: 'SELECT max(seq) AS seq FROM plan_errors WHERE plan_id = ?',
  appendPlanError: insert('plan_errors', ['plan_id', 'seq', 'record', 'at_ms']),
  listPlanErrors: 'SELECT record FROM plan_errors WHERE plan_id = ? ORDER BY seq',
  readPlan: 'SELECT * FROM plans WHERE id = ?',
  insertPlan: insert('plans', planColumns),
  // The fence: the revision the writer read. Zero rows changed means another writer won.
  updatePlan: `UPDATE plans SET ${planColumns
    .filter((c) => c !== 'id' && c !== 'created_at_ms')
    .map((c) => `${c} = @${c}`)
    .join(', ')} WHERE id = @id AND revision = @expected_revision`,
};

/**
 * A transaction's reads and writes, run synchronously on better-sqlite3 with cached prepared statements. The
 * transaction is single-connection and SQLite work is synchronous anyway: going through Kysely's async driver
 * for each statement cost most of a decision (see docs/ARCHITECTURE.md). Kysely still owns the schema, the
 * migrations and the store's reads outside transactions.
 */
export class SqliteTransaction implements StoreTransaction {
  /** A circuit write of this transaction lost: what it read of that circuit was not current. */
  private circuitLost = false;

  constructor(
    private readonly cache: StatementCache,
    private readonly profiles: ProfileDocuments,
  ) {}

  readRoute(id: string): Promise<Route | null> {
    const row = this.cache.prepare(statements.readRoute).get(id) as RouteRow | undefined;
    return Promise.resolve(row === undefined ? null : rowToRoute(row));
  }

  insertRoute(route: Route): Promise<void> {
    this.cache.prepare(statements.insertRoute).run(routeToRow(route, route.updatedAtMs));
    return Promise.resolve();
  }

  updateRoute(next: Route, fence: RouteFence): Promise<boolean> {
    const result = this.cache.prepare(statements.updateRoute).run({
      // The update statement leaves the payload as inserted: do not serialize it again.
      ...routeToRow({ ...next, payload: null }, next.updatedAtMs),
      fence_generation: fence.generation,
      fence_state: fence.state,
      fence_revision: fence.revision,
    });
    return Promise.resolve(result.changes === 1);
  }

  deleteRoute(id: string, fence: RouteFence, atMs: number): Promise<boolean> {
    const result = this.cache.prepare(statements.deleteRoute).run({
      id,
      fence_generation: fence.generation,
      fence_state: fence.state,
      fence_revision: fence.revision,
    });
    if (result.changes !== 1) return Promise.resolve(false);
    for (const statement of [statements.deleteAttempts, statements.deleteIntents, statements.deleteReplay])
      this.cache.prepare(statement).run(id);
    this.cache.prepare(statements.retireRoute).run(id, fence.generation, atMs);
    return Promise.resolve(true);
  }

  forgetRetiredRoutes(beforeMs: number): Promise<number> {
    return Promise.resolve(this.cache.prepare(statements.forgetRetiredRoutes).run(beforeMs).changes);
  }

  retiredRouteGeneration(id: string): Promise<number> {
    const row = this.cache.prepare(statements.retiredRouteGeneration).get(id) as
      { last_generation: number } | undefined;
    return Promise.resolve(row === undefined ? 0 : Number(row.last_generation));
  }

  appendAttempt(a: AttemptRecord): Promise<void> {
    this.cache.prepare(statements.appendAttempt).run(attemptToRow(a));
    return Promise.resolve();
  }

  insertIntent(i: DispatchIntent): Promise<void> {
    this.cache.prepare(statements.insertIntent).run(intentToRow(i));
    return Promise.resolve();
  }

  resolveIntent(id: string, outcome: IntentOutcome, atMs: number): Promise<boolean> {
    const result = this.cache.prepare(statements.resolveIntent).run({ id, outcome, at: atMs });
    return Promise.resolve(result.changes === 1);
  }

  saveProfile(profile: DynamicProfile, atMs: number): Promise<void> {
    this.cache.prepare(statements.saveProfile).run({
      id: profile.id,
      version: profile.version,
      name: profile.name,
      document: JSON.stringify(profile),
      created_at_ms: atMs,
    });
    return Promise.resolve();
  }

  readProfile(id: string): Promise<DynamicProfile | null> {
    const row = this.cache.prepare(statements.readProfile).get(id) as
      { version: number; document: string } | undefined;
    return Promise.resolve(row === undefined ? null : this.profiles.parse(id, row.version, row.document));
  }

  deleteProfile(id: string, atMs: number): Promise<boolean> {
    const versions = this.cache.prepare(statements.deleteProfile).all(id) as Array<{ version: number }>;
    if (versions.length === 0) return Promise.resolve(false);
    const last = Math.max(...versions.map((row) => Number(row.version)));
    this.cache.prepare(statements.retireProfile).run(id, last, atMs);
    return Promise.resolve(true);
  }

  lockProfiles(): Promise<void> {
    return Promise.resolve();
  }

  shareProfiles(): Promise<void> {
    return Promise.resolve();
  }

  retiredProfileVersion(id: string): Promise<number> {
    const row = this.cache.prepare(statements.retiredProfileVersion).get(id) as
      { last_version: number } | undefined;
    return Promise.resolve(row === undefined ? 0 : Number(row.last_version));
  }

  countProfileRoutes(id: string): Promise<number> {
    const row = this.cache.prepare(statements.countProfileRoutes).get(id) as { n: number };
    return Promise.resolve(Number(row.n));
  }

  readCircuits(keys: readonly string[]): Promise<ReadonlyMap<string, Circuit>> {
    const circuits = new Map<string, Circuit>();
    if (keys.length > 0) {
      const rows = this.cache.prepare(statements.readCircuits(keys.length)).all(...keys) as CircuitRow[];
      for (const row of rows) circuits.set(row.key, circuitOfRow(row));
    }
    return Promise.resolve(circuits);
  }

  writeCircuit(c: Circuit, expectedVersion: number): Promise<boolean> {
    const row = circuitToRow(c);
    const result =
      expectedVersion === 0
        ? this.cache.prepare(statements.insertCircuit).run(row)
        : this.cache.prepare(statements.updateCircuit).run({ ...row, expected_version: expectedVersion });
    if (result.changes !== 1) this.circuitLost = true;
    return Promise.resolve(result.changes === 1);
  }

  /**
   * True unless a circuit write of this transaction lost: BEGIN IMMEDIATE holds the database's write lock from the
   * first read, so no other writer moves a circuit it read.
   */
  confirmCircuitReads(): Promise<boolean> {
    return Promise.resolve(!this.circuitLost);
  }

  saveReplaySnapshot(routeId: string, generation: number, s: ReplayEvidence, atMs: number): Promise<void> {
    this.cache.prepare(statements.saveReplaySnapshot).run(replayToRow(routeId, generation, s, atMs));
    return Promise.resolve();
  }

  appendPlanError(record: PlanErrorRecord): Promise<void> {
    const last = this.cache.prepare(statements.lastPlanErrorSeq).get(record.plan_id) as {
      seq: number | null;
    };
    this.cache.prepare(statements.appendPlanError).run({
      plan_id: record.plan_id,
      seq: (last.seq ?? 0) + 1,
      record: JSON.stringify(record),
      at_ms: Date.parse(record.occurred_at),
    });
    return Promise.resolve();
  }

  listPlanErrors(planId: string): Promise<readonly PlanErrorRecord[]> {
    const rows = this.cache.prepare(statements.listPlanErrors).all(planId) as { record: string }[];
    return Promise.resolve(rows.map((r) => JSON.parse(r.record) as PlanErrorRecord));
  }

  readPlan(id: string): Promise<Plan | null> {
    const row = this.cache.prepare(statements.readPlan).get(id) as PlanRow | undefined;
    return Promise.resolve(row === undefined ? null : planOfRow(row));
  }

  insertPlan(plan: Plan): Promise<void> {
    this.cache.prepare(statements.insertPlan).run(planToRow(plan));
    return Promise.resolve();
  }

  updatePlan(next: Plan, expectedRevision: number): Promise<boolean> {
    const result = this.cache
      .prepare(statements.updatePlan)
      .run({ ...planToRow(next), expected_revision: expectedRevision });
    return Promise.resolve(result.changes === 1);
  }
}
