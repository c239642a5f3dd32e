import { sql, type Kysely } from 'kysely';
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
} as const satisfies Record<Exclude<keyof RouteRow, 'id' | 'payload' | 'created_at_ms'>, 'text' | 'bigint'>;

type UpdatedColumn = keyof typeof updatedColumns;
const columnNames = Object.keys(updatedColumns) as UpdatedColumn[];

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

/** Rows per multi-row INSERT: far below PostgreSQL's 65,535 parameters per statement for every table here. */
const insertChunk = 500;

/**
 * The writes of one transaction that nothing in it reads back, held until the transaction ends and then sent as
 * one statement per table: routes inserted and updated (each update still fenced in its WHERE), dispatch intents
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
   * Sends everything held, in dependency order, and forgets it. An update or resolution that changes fewer rows
   * than held means a locked row moved under the transaction: that throws, and the transaction rolls back.
   * Returns the route rows as now stored (inserted or updated), for the next updates to be told apart from.
   */
  async flush(db: Kysely<Database>): Promise<readonly RouteRow[]> {
    if (this.pending === 0) return [];
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
    for (const rows of chunks(inserted)) await db.insertInto('routes').values(rows).execute();
    const written = updated.length > 0 ? await updateRoutes(db, updated) : [];
    for (const rows of chunks(intents)) await db.insertInto('dispatch_intents').values(rows).execute();
    if (resolved.length > 0) await resolveIntents(db, resolved);
    for (const rows of chunks(attempts)) await db.insertInto('attempts').values(rows).execute();
    for (const rows of chunks(replays)) await db.insertInto('replay_snapshots').values(rows).execute();
    return [...inserted, ...written];
  }
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
 * The held updates as few statements as their changed columns allow (one per set of changed columns: a batch of
 * firings, or of acknowledgements, changes the same ones), each row fenced by the generation, state and revision it
 * was decided on. Only changed columns are sent: a route's last failure and usage (most of a row's bytes) stay as
 * stored through a firing and its acknowledgement, and sending every column made the update the largest write of a
 * firing (about 1 KiB a row).
 */
async function updateRoutes(db: Kysely<Database>, updates: readonly HeldUpdate[]): Promise<RouteRow[]> {
  const byColumns = new Map<string, { columns: UpdatedColumn[]; records: Record<string, unknown>[] }>();
  const written: RouteRow[] = [];
  for (const { route, fence, stored } of updates) {
    const row = routeToRow(route, route.updatedAtMs);
    written.push(row);
    const columns = columnNames.filter((c) => asCompared(row[c]) !== asCompared(stored[c]));
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
  for (const { columns, records } of byColumns.values()) {
    // Nothing differs (a write of the row as it is): the fence was checked on the locked row; nothing to send.
    if (columns.length === 0) continue;
    const { setList, recordType } = updateShape(columns);
    const result = await sql`
      UPDATE routes AS r SET ${setList}
      FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS v(${recordType})
      WHERE r.id = v.id AND r.generation = v.fence_generation AND r.state = v.fence_state
        AND r.revision = v.fence_revision`.execute(db);
    if (Number(result.numAffectedRows) !== records.length) {
      throw new Error(
        `${records.length - Number(result.numAffectedRows)} locked route(s) changed under the transaction`,
      );
    }
  }
  return written;
}

async function resolveIntents(
  db: Kysely<Database>,
  resolved: readonly (readonly [string, { outcome: IntentOutcome; atMs: number }])[],
): Promise<void> {
  const records = resolved.map(([id, r]) => ({ id, outcome: r.outcome, at_ms: r.atMs }));
  const result = await sql`
    UPDATE dispatch_intents AS i SET outcome = v.outcome, resolved_at_ms = v.at_ms
    FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS v(id text COLLATE "C", outcome text, at_ms bigint)
    WHERE i.id = v.id AND i.outcome IS NULL`.execute(db);
  if (Number(result.numAffectedRows) !== records.length) {
    throw new Error(
      `${records.length - Number(result.numAffectedRows)} locked intent(s) changed under the transaction`,
    );
  }
}

function* chunks<T>(rows: readonly T[]): Generator<T[]> {
  for (let from = 0; from < rows.length; from += insertChunk) yield rows.slice(from, from + insertChunk);
}
