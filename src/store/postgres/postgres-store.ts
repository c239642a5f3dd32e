import { Kysely, PostgresDialect, sql, type SqlBool } from 'kysely';
import pg from 'pg';
import type {
  ClusterTimers,
  ConnectionLoss,
  DueClaim,
  EventLog,
  ScheduledRoute,
  SessionLocks,
  Store,
  StoreTransaction,
  TaskSessions,
  TransactionPlan,
  Transcript,
} from '../../core/index.js';
import { uuidv7 } from '../../support/ids.js';
import { claimDueRoutes } from '../kysely-claims.js';
import { KyselyStoreReads } from '../kysely-store-reads.js';
import { KyselyTaskSessions, KyselyTranscript, type TranscriptClock } from '../kysely-transcript.js';
import type { Database } from '../schema.js';
import { migrateStore } from '../migrate-store.js';
import { connectionLoss } from './connection-loss.js';
import { postgresMigrations } from './migrations/index.js';
import { PostgresCluster } from './postgres-cluster.js';
import { PostgresEventLog, SharedPostgresEventLog } from './postgres-event-log.js';
import { PostgresNotifications } from './postgres-notifications.js';
import { PostgresSessionLocks } from './postgres-session-locks.js';
import { PostgresTransaction } from './postgres-transaction.js';
import type { PostgresLocation } from './postgres-url.js';
import { SerialQueue } from './serial-queue.js';

export interface PostgresStoreOptions {
  readonly location: PostgresLocation;
  /** The most connections the pool opens (10 by default). */
  readonly poolSize?: number;
  /** The transcript's clock and message ids (the wall clock and UUIDv7 by default). */
  readonly transcriptClock?: TranscriptClock;
  /**
   * This node's id when several nodes share the schema: every connection names it (`recourse.node`, recorded on
   * the intents it writes) and the database gets a `cluster` port. Letters, digits, `.`, `_` and `-` only.
   */
  readonly nodeId?: string;
  /** Shared nodes: how often the event log is read when no notification came (1 s by default). */
  readonly pollMs?: number;
  /**
   * Shared nodes: how long a store transaction may wait between two statements before the database ends it, its
   * row locks with it (10 s by default; the nodes' lease). A node that stalls with its connection open (a frozen
   * process, a host cut off) must not hold routes the others would fire.
   */
  readonly holdMs?: number;
}

/** The database on PostgreSQL: the same four ports as the embedded one, in one schema. */
export interface PostgresDatabase {
  readonly store: Store;
  readonly transcript: Transcript;
  readonly sessions: TaskSessions;
  readonly events: EventLog;
  /** Present when opened with a `nodeId`. */
  readonly cluster?: ClusterTimers;
  /** Present when opened with a `nodeId`: task sessions' notice work serialized across nodes (migration 0004). */
  readonly sessionLocks?: SessionLocks;
}

const uniqueViolation = '23505';

/** BIGINT (int8) columns hold epoch ms and counters, all far below 2^53: read them as numbers, not strings. */
const int8 = 20;
const types: pg.CustomTypesConfig = {
  getTypeParser: (oid: number, format?: 'text' | 'binary'): unknown =>
    oid === int8 && format !== 'binary' ? Number : (pg.types.getTypeParser(oid, format) as unknown),
};

/**
 * Opens a pool on the location's database, creating its schema when missing: the first connection is made here,
 * so an unreachable server or a refused login fails the open with the URL (password hidden) in the message.
 * `store.migrate()` applies the migrations; `store.close()` ends the pool.
 */
export async function openPostgresDatabase(options: PostgresStoreOptions): Promise<PostgresDatabase> {
  const { location } = options;
  const pool = new pg.Pool({
    connectionString: location.connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    // Every connection works in the schema: the shared Kysely code names tables without one. A shared node's
    // connections end any transaction of theirs that idles `holdMs` between two statements, its row locks with it
    // (a frozen process, a host cut off): set once per connection, not by a statement in every transaction. A
    // session lock's transaction, open through its work on purpose, lifts it for itself (`PostgresSessionLocks`).
    options:
      `-c search_path=${location.schema}` +
      (options.nodeId === undefined
        ? ''
        : ` -c recourse.node=${checkNodeId(options.nodeId)}` +
          ` -c idle_in_transaction_session_timeout=${checkHoldMs(options.holdMs ?? 10_000)}`),
    types,
  });
  // An idle client whose connection dropped (a database restart) is discarded by the pool; the next query opens a
  // new one. Without a listener the error would end the process.
  pool.on('error', () => undefined);
  // A client checked out between two queries (a transaction waiting on the engine) has no pool listener: when the
  // server ends its connection then, the error would end the process. Its next query fails instead, the transaction
  // with it, and the pool discards the client.
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new Error(`cannot connect to PostgreSQL at ${location.display}: ${describe(error)}`, {
      cause: error,
    });
  }
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${location.schema}`);
  } catch (error) {
    // Two opens creating the same schema at once: IF NOT EXISTS does not cover the race, the loser sees 23505.
    if ((error as { code?: unknown }).code !== uniqueViolation) {
      await pool.end().catch(() => undefined);
      throw new Error(`cannot create schema ${location.schema} at ${location.display}: ${describe(error)}`, {
        cause: error,
      });
    }
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const writes = new SerialQueue();
  const clock = options.transcriptClock ?? { now: Date.now, newId: () => uuidv7(Date.now()) };
  const ports = {
    store: new PostgresStore(db, writes, location.schema),
    transcript: new KyselyTranscript(db, clock),
    sessions: new KyselyTaskSessions(db),
  };
  if (options.nodeId === undefined) return { ...ports, events: new PostgresEventLog(db, writes) };
  // Shared nodes: timers and events are announced on the node's one listener connection.
  const notifications = new PostgresNotifications(location);
  return {
    ...ports,
    events: new SharedPostgresEventLog(db, writes, notifications, options.pollMs ?? 1_000),
    cluster: new PostgresCluster(db, notifications, options.nodeId),
    // A held session keeps a connection while its work queries through the others: half the pool at most.
    sessionLocks: new PostgresSessionLocks(db, location.schema, Math.floor((options.poolSize ?? 10) / 2)),
  };
}

/** A node id goes into the connection's options string: nothing there may split or quote it. */
function checkNodeId(nodeId: string): string {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(nodeId)) {
    throw new Error(`node id ${JSON.stringify(nodeId)} must be 1 to 64 letters, digits, ".", "_" or "-"`);
  }
  return nodeId;
}

/** The idle limit goes into the connection's options string: whole milliseconds, at least 1. */
function checkHoldMs(holdMs: number): number {
  if (!Number.isFinite(holdMs) || holdMs <= 0)
    throw new Error(`holdMs must be a positive number of ms, not ${holdMs}`);
  return Math.ceil(holdMs);
}

/** A connection error's own words: Node's connect errors can be an AggregateError with an empty message. */
function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return error.message || (typeof code === 'string' ? code : error.name);
  }
  return String(error);
}

/** The PostgreSQL adapter of the Store port: Kysely over a `pg` pool, its own numbered migrations. */
class PostgresStore extends KyselyStoreReads {
  constructor(
    db: Kysely<Database>,
    private readonly writes: SerialQueue,
    private readonly schema: string,
  ) {
    super(db, (flag) => sql<SqlBool>`(dispatch::jsonb ->> ${sql.lit(flag)}) = 'true'`);
  }

  migrate(): Promise<readonly string[]> {
    return migrateStore(this.db, postgresMigrations, this.schema);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  connectionLoss(error: unknown): ConnectionLoss | null {
    return connectionLoss(error);
  }

  lostKeyRace(error: unknown): boolean {
    return (error as { code?: unknown } | null)?.code === uniqueViolation;
  }

  claimDueRoutes(claim: DueClaim): Promise<readonly ScheduledRoute[]> {
    return claimDueRoutes(this.db, claim, true);
  }

  /**
   * A real BEGIN ... COMMIT on one pooled client (ROLLBACK when the work throws). Transactions queue behind one
   * another in this process, as they do on SQLite's one connection: the engine's group commit and a plan write never
   * interleave, and the fenced UPDATEs guard against any other writer of the schema. The planned routes are read
   * and locked first, in one statement, and the writes the work leaves held are sent before COMMIT.
   */
  transact<T>(work: (tx: StoreTransaction) => Promise<T>, plan?: TransactionPlan): Promise<T> {
    return this.writes.run(() =>
      this.db.transaction().execute(async (trx) => {
        // A shared node's connection ends this transaction if it idles `holdMs` (set per connection, at connect).
        const tx = await PostgresTransaction.open(trx, this.profiles, plan?.routeIds ?? []);
        const result = await work(tx);
        await tx.flush();
        return result;
      }),
    );
  }
}
