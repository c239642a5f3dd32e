import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { IntentOutcome, Route, RouteFence } from '../../core/index.js';
import { routeToRow } from '../route-rows.js';
import type { AttemptRow, Database, IntentRow, ReplaySnapshotRow, RouteRow } from '../schema.js';

/** The route columns an update writes, with their PostgreSQL types (the id is the key; payload and creation stay). */
const updatedColumns = {
  mode: 'text',
  profile_id: 'text',
  caller: 'text',
  candidate: 'text',
  state: 'text',
  generation: 'bigint',
  revision: 'bigint',
  cycle: 'bigint',
  excluded: 'text',
  usage: 'text',
  last_failure: 'text',
  dispatch: 'text',
  deadline_ms: 'bigint',
  failure_class: 'text',
  retry_ordinal: 'bigint',
  max_retries: 'bigint',
  pending_outcome: 'text',
  next_candidate: 'text',
  reason: 'text',
  detail: 'text',
  recovery_actions: 'text',
  updated_at_ms: 'bigint',
  lease_owner: 'text',
  lease_until_ms: 'bigint',
} as const satisfies Record<Exclude<keyof RouteRow, 'id' | 'payload' | 'created_at_ms'>, ColumnType>;

type ColumnType = 'text' | 'bigint';
type UpdatedColumn = keyof typeof updatedColumns;
const columnNames = Object.keys(updatedColumns) as UpdatedColumn[];

/** Every column of each table a held INSERT writes, with its type (a dispatch intent's `node_id` is its default). */
const insertedColumns = {
  routes: {
    id: 'text',
    ...updatedColumns,
    payload: 'text',
    created_at_ms: 'bigint',
  } satisfies Record<keyof RouteRow, ColumnType>,
  dispatch_intents: {
    id: 'text',
    route_id: 'text',
    generation: 'bigint',
    candidate: 'text',
    kind: 'text',
    created_at_ms: 'bigint',
    outcome: 'text',
    resolved_at_ms: 'bigint',
  } satisfies Record<keyof IntentRow, ColumnType>,
  attempts: {
    route_id: 'text',
    candidate: 'text',
    generation: 'bigint',
    code: 'text',
    failure_class: 'text',
    catalogue_version: 'text',
    rule: 'text',
    policy_snapshot: 'text',
    decision: 'text',
    retry_ordinal: 'bigint',
    deadline_ms: 'bigint',
    pending_outcome: 'text',
    safe_excerpt: 'text',
    note: 'text',
    at_ms: 'bigint',
    delay_source: 'text',
  } satisfies Record<Exclude<keyof AttemptRow, 'seq'>, ColumnType>,
  replay_snapshots: {
    route_id: 'text',
    generation: 'bigint',
    session_id: 'text',
    execution_id: 'text',
    prompt_generation: 'bigint',
    counts: 'text',
    assistant_excerpt: 'text',
    at_ms: 'bigint',
  } satisfies Record<keyof ReplaySnapshotRow, ColumnType>,
} as const;

/** The SET list and record type of an update that writes `columns` (in `columnNames` order). */
function updateShape(columns: readonly UpdatedColumn[]) {
  return {
    setList: sql.raw(columns.map((c) => `${c} = v.${c}`).join(', ')),
    recordType: sql.raw(
      [
        'id text COLLATE "C"',
        ...columns.map((c) => `${c} ${updatedColumns[c]}`),
        'fence_generation bigint',
        'fence_state text',
        'fence_revision bigint',
      ].join(', '),
    ),
  };
}

/**
 * The writes of one transaction that nothing in it reads back, held until the transaction ends and then sent in
 * one statement, a part per table: routes inserted and updated (each update still fenced in its WHERE), dispatch intents
 * with how they were resolved, attempts and replay snapshots. The transaction decides what may wait (the rows it
 * holds locked); a write that cannot wait flushes these first, so the statements keep their order.
 */
export class DeferredWrites {
  private readonly inserted = new Map<string, { route: Route; createdAtMs: number }>();
  private readonly updated = new Map<string, HeldUpdate>();
  private readonly intents = new Map<string, IntentRow>();
  private readonly resolved = new Map<string, { outcome: IntentOutcome; atMs: number }>();
  private attempts: Omit<AttemptRow, 'seq'>[] = [];
  private replays: ReplaySnapshotRow[] = [];

  /** How many statements the writes held so far take (0: nothing to send). */
  get pending(): number {
    return (
      this.inserted.size +
      this.updated.size +
      this.intents.size +
      this.resolved.size +
      this.attempts.length +
      this.replays.length
    );
  }

  insertRoute(route: Route): void {
    this.inserted.set(route.id, { route, createdAtMs: route.updatedAtMs });
  }

  /** A route this transaction inserted and still holds: it is written once, as it ends up. */
  updateInsertedRoute(next: Route): void {
    const inserted = this.inserted.get(next.id);
    if (inserted === undefined) throw new Error(`route ${next.id} is neither stored nor held for insertion`);
    this.inserted.set(next.id, {
      route: { ...next, payload: inserted.route.payload },
      createdAtMs: inserted.createdAtMs,
    });
  }

  /**
   * A stored route: `fence` is its row's as the transaction locked it, and `stored` that row as stored now. A
   * second update of the route before they are sent keeps the first one's.
   */
  updateRoute(next: Route, fence: RouteFence, stored: RouteRow): void {
    const first = this.updated.get(next.id);
    this.updated.set(next.id, {
      route: next,
      fence: first?.fence ?? fence,
      stored: first?.stored ?? stored,
    });
  }

  insertIntent(row: IntentRow): void {
    this.intents.set(row.id, row);
  }

  /** True when the intent is one held here and still unresolved (then it is resolved here). */
  resolveHeldIntent(id: string, outcome: IntentOutcome, atMs: number): boolean {
    const row = this.intents.get(id);
    if (row === undefined || row.outcome !== null) return false;
    this.intents.set(id, { ...row, outcome, resolved_at_ms: atMs });
    return true;
  }

  /** Resolves a stored intent the transaction holds locked and unresolved. */
  resolveStoredIntent(id: string, outcome: IntentOutcome, atMs: number): void {
    this.resolved.set(id, { outcome, atMs });
  }

  appendAttempt(row: Omit<AttemptRow, 'seq'>): void {
    this.attempts.push(row);
  }

  saveReplay(row: ReplaySnapshotRow): void {
    this.replays.push(row);
  }

  /**
   * Sends everything held in one statement (a data-modifying WITH part per table and per set of changed route
   * columns; each part's rows one JSON parameter), and forgets it. The parts see the same snapshot and none reads
   * another's rows: an intent inserted and resolved here is inserted resolved, a route inserted and updated here is
   * inserted as it ends up. An update or resolution that changes fewer rows than held means a locked row moved under
   * the transaction: that throws, and the transaction rolls back. `confirm` adds the circuits to lock FOR SHARE
   * NOWAIT and read back, in the same statement (`PostgresTransaction.confirmCircuitReads`): their versions are
   * returned. Returns the route rows as now stored (inserted or updated), for the next updates to be told apart from.
   */
  async flush(db: Kysely<Database>, confirm: readonly string[] = []): Promise<Flushed> {
    if (this.pending === 0 && confirm.length === 0) return { written: [], circuitVersions: new Map() };
    const inserted = [...this.inserted.values()].map((i) => routeToRow(i.route, i.createdAtMs));
    const updated = [...this.updated.values()];
    const intents = [...this.intents.values()];
    const resolved = [...this.resolved];
    const { attempts, replays } = this;
    this.inserted.clear();
    this.updated.clear();
    this.intents.clear();
    this.resolved.clear();
    this.attempts = [];
    this.replays = [];
    const parts: RawBuilder<unknown>[] = [];
    /** Parts whose rows must all be changed: their names, and how many rows each must change. */
    const counted: { name: string; rows: number; what: string }[] = [];
    if (inserted.length > 0) parts.push(insertPart('ins_routes', 'routes', inserted));
    const { parts: updates, written } = routeUpdateParts(updated);
    for (const u of updates) {
      parts.push(u.part);
      counted.push({ name: u.name, rows: u.rows, what: 'locked route(s)' });
    }
    if (intents.length > 0) parts.push(insertPart('ins_intents', 'dispatch_intents', intents));
    if (resolved.length > 0) {
      parts.push(resolvePart(resolved));
      counted.push({ name: 'resolved', rows: resolved.length, what: 'locked intent(s)' });
    }
    if (attempts.length > 0) parts.push(insertPart('ins_attempts', 'attempts', attempts));
    if (replays.length > 0) parts.push(insertPart('ins_replays', 'replay_snapshots', replays));
    // Only writes of rows as they are (no column differs) and no circuit to confirm: no statement to send (a WITH
    // without parts is a syntax error).
    if (parts.length === 0 && confirm.length === 0)
      return { written: [...inserted, ...written], circuitVersions: new Map() };
    const selected: RawBuilder<unknown>[] = counted.map(
      (c) => sql`(SELECT count(*) FROM ${sql.raw(c.name)})::bigint AS ${sql.raw(c.name)}`,
    );
    if (confirm.length > 0) {
      // Read by the main query, so it runs (a plain SELECT in WITH runs only when read).
      parts.push(sql`confirmed AS (
        SELECT key, version FROM circuits WHERE key = ANY(${[...confirm]}::text[]) FOR SHARE NOWAIT)`);
      selected.push(sql`(SELECT coalesce(json_agg(json_build_array(key, version)), '[]'::json)
        FROM confirmed) AS circuits`);
    }
    if (selected.length === 0) selected.push(sql`1 AS done`);
    const result = await sql<Record<string, unknown>>`
      WITH ${sql.join(parts, sql`, `)} SELECT ${sql.join(selected, sql`, `)}`.execute(db);
    const row = result.rows[0]!;
    for (const c of counted) {
      const changed = Number(row[c.name]);
      if (changed !== c.rows) throw new Error(`${c.rows - changed} ${c.what} changed under the transaction`);
    }
    const circuits = (row['circuits'] ?? []) as [string, number][];
    return {
      written: [...inserted, ...written],
      circuitVersions: new Map(circuits.map(([key, version]) => [key, Number(version)])),
    };
  }
}

/** What a flush sent: the route rows as now stored, and the versions of the circuits it was asked to confirm. */
export interface Flushed {
  readonly written: readonly RouteRow[];
  /** Each confirmed circuit's stored version, locked FOR SHARE until the transaction ends (absent: not stored). */
  readonly circuitVersions: ReadonlyMap<string, number>;
}

/** A held update: the route as it ends up, and the stored row (with its fence) it was decided on. */
interface HeldUpdate {
  readonly route: Route;
  readonly fence: RouteFence;
  /** The row as stored when the transaction held its first update: only the columns that differ are sent. */
  readonly stored: RouteRow;
}

/** A column's value as the database compares it: bigint columns come back as numbers, are written as numbers. */
const asCompared = (value: string | number | null | undefined): string | null =>
  // A value left undefined is written as null (left out of the JSON record): compared so.
  value === null || value === undefined ? null : String(value);

/**
 * Rows as one JSON parameter. A string that is not well-formed UTF-16 (a lone surrogate) is sent with U+FFFD in its
 * place, as a text parameter's UTF-8 encoding sends it: the JSON parser would refuse its escape (`\uD800`).
 */
const recordsParameter = (records: readonly object[]): string =>
  JSON.stringify(records, (_key, value: unknown) =>
    typeof value === 'string' && loneSurrogate.test(value) ? value.replace(loneSurrogates, '\ufffd') : value,
  );
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const loneSurrogates = new RegExp(loneSurrogate.source, 'g');

/** The record type of `jsonb_to_recordset` for these columns, with `ord` (the rows' order) last. */
const recordType = (columns: Readonly<Record<string, ColumnType>>): RawBuilder<unknown> =>
  sql.raw([...Object.entries(columns).map(([c, t]) => `${c} ${t}`), 'ord bigint'].join(', '));

/** A WITH part that inserts `rows` into `table`, in their order (an attempt's `seq` follows it). */
function insertPart(
  name: string,
  table: keyof typeof insertedColumns,
  rows: readonly object[],
): RawBuilder<unknown> {
  const columns: Readonly<Record<string, ColumnType>> = insertedColumns[table];
  const names = sql.raw(Object.keys(columns).join(', '));
  const records = rows.map((r, ord) => ({ ...r, ord }));
  return sql`${sql.raw(name)} AS (
    INSERT INTO ${sql.raw(table)} (${names})
    SELECT ${names} FROM jsonb_to_recordset(${recordsParameter(records)}::jsonb) AS v(${recordType(columns)})
    ORDER BY v.ord)`;
}

/**
 * The held updates as few WITH parts as their changed columns allow (one per set of changed columns: a batch of
 * firings, or of acknowledgements, changes the same ones), each row fenced by the generation, state and revision it
 * was decided on; each part returns the rows it changed, to be counted. Only changed columns are sent: a route's
 * last failure and usage (most of a row's bytes) stay as stored through a firing and its acknowledgement, and
 * sending every column made the update the largest write of a firing (about 1 KiB a row).
 */
function routeUpdateParts(updates: readonly HeldUpdate[]): {
  parts: { name: string; rows: number; part: RawBuilder<unknown> }[];
  written: RouteRow[];
} {
  const byColumns = new Map<string, { columns: UpdatedColumn[]; records: Record<string, unknown>[] }>();
  const written: RouteRow[] = [];
  for (const { route, fence, stored } of updates) {
    const row = routeToRow(route, route.updatedAtMs);
    written.push(row);
    const columns = columnNames.filter((c) => asCompared(row[c]) !== asCompared(stored[c]));
    // Nothing differs (a write of the row as it is): the fence was checked on the locked row; nothing to send.
    if (columns.length === 0) continue;
    const record: Record<string, unknown> = {
      id: row.id,
      fence_generation: fence.generation,
      fence_state: fence.state,
      fence_revision: fence.revision,
    };
    for (const c of columns) record[c] = row[c];
    const key = columns.join(',');
    const group = byColumns.get(key) ?? { columns, records: [] };
    group.records.push(record);
    byColumns.set(key, group);
  }
  const parts = [...byColumns.values()].map(({ columns, records }, i) => {
    const { setList, recordType: shape } = updateShape(columns);
    const name = `upd_routes_${i}`;
    return {
      name,
      rows: records.length,
      part: sql`${sql.raw(name)} AS (
        UPDATE routes AS r SET ${setList}
        FROM jsonb_to_recordset(${recordsParameter(records)}::jsonb) AS v(${shape})
        WHERE r.id = v.id AND r.generation = v.fence_generation AND r.state = v.fence_state
          AND r.revision = v.fence_revision
        RETURNING 1)`,
    };
  });
  return { parts, written };
}

/** A WITH part that records the answers of stored intents the transaction holds locked and unresolved. */
function resolvePart(
  resolved: readonly (readonly [string, { outcome: IntentOutcome; atMs: number }])[],
): RawBuilder<unknown> {
  const records = resolved.map(([id, r]) => ({ id, outcome: r.outcome, at_ms: r.atMs }));
  return sql`resolved AS (
    UPDATE dispatch_intents AS i SET outcome = v.outcome, resolved_at_ms = v.at_ms
    FROM jsonb_to_recordset(${recordsParameter(records)}::jsonb) AS v(id text COLLATE "C", outcome text, at_ms bigint)
    WHERE i.id = v.id AND i.outcome IS NULL
    RETURNING 1)`;
}
