import { systemClock, type Clock } from '../engine/clock.js';
import type { Dispatcher } from '../engine/dispatcher.js';
import { Engine } from '../engine/engine.js';
import { EngineInputError } from '../engine/engine-errors.js';
import type { EngineListener } from '../engine/engine-events.js';
import { InteractiveSessions, type SessionEvent } from '../engine/interactive/interactive-sessions.js';
import type { NoticeLog } from '../engine/interactive/retry-notices.js';
import type { ReconciliationReport } from '../engine/reconciliation-report.js';
import {
  RecourseError,
  type ClusterTimers,
  type EventLog,
  type FieldIssue,
  type SessionLocks,
  type Store,
  type TaskSessions,
  type Transcript,
} from '../core/index.js';
import { statSync } from 'node:fs';
import { lockDatabaseFile, type DatabaseLock } from '../store/sqlite/database-lock.js';
import {
  defaultDatabaseFile,
  openSqliteDatabase,
  type SqliteDatabase,
} from '../store/sqlite/sqlite-store.js';
import type { TranscriptClock } from '../store/kysely-transcript.js';
import { parsePostgresUrl, type PostgresLocation } from '../store/postgres/postgres-url.js';
import { uuidv7 } from '../support/ids.js';
import { runDispatcher, type RunAttemptFunction } from './run-dispatcher.js';

export interface RecourseOptions {
  /** The SQLite database file, created with its folder; `.recourse/recourse.db` under the working folder by default. */
  readonly database?: string;
  /**
   * A PostgreSQL URL (`postgres://user:password@host:port/database?schema=NAME`) instead of the SQLite file: the
   * schema (`public` by default) is created when missing and migrated. Give `database` or this, not both.
   */
  readonly databaseUrl?: string;
  /** The most PostgreSQL connections this Recourse opens (10 by default). */
  readonly poolSize?: number;
  /**
   * PostgreSQL only. `single` (default): this is the schema's one engine (a second is refused, `in_use`).
   * `shared`: several nodes serve the schema at once; timers fire through leased claims by the database's clock
   * (`docs/operations.md`, "Several nodes on PostgreSQL").
   */
  readonly nodes?: 'single' | 'shared';
  /** Shared mode: this node's id (letters, digits, `.`, `_`, `-`; a fresh UUIDv7 by default). */
  readonly nodeId?: string;
  /** Shared mode: how long a timer claim and a node's heartbeat hold (10 s by default). */
  readonly leaseMs?: number;
  /** Shared mode: the fallback poll interval behind LISTEN/NOTIFY, for timers and the event log (1 s by default). */
  readonly pollMs?: number;
  /** SQLite durability: FULL (default) syncs every commit. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** The engine's only source of time (the wall clock by default). */
  readonly clock?: Clock;
  /**
   * Runs each attempt the engine decides on, to its end; its outcome is reported for you (`RunAttempt`,
   * `docs/embedding.md`). Give `run`, or a lower-level `dispatcher`, not both.
   */
  readonly run?: RunAttemptFunction;
  /** Sends the attempts the engine decides on and reports their outcomes yourself (`docs/engine.md`). */
  readonly dispatcher?: Dispatcher;
  /**
   * Where a report that could not be made after a run ends goes (the engine closed meanwhile, say), and, on
   * PostgreSQL, a schema lock lost in a database restart that another Recourse took meanwhile (code `in_use`).
   */
  readonly onError?: (error: unknown) => void;
  /** Route and intent ids (UUIDv7 by default). */
  readonly newId?: () => string;
  /** Transcript message times and ids (the clock and UUIDv7 by default). */
  readonly transcriptClock?: TranscriptClock;
  /** Subscribed before reconciliation runs, so the reconciliation and everything after it reach it. */
  readonly onEvent?: EngineListener;
  readonly onSessionEvent?: (event: SessionEvent) => void;
  /** Where swallowed transcript failures are logged. */
  readonly log?: NoticeLog;
  /** How long late provider events of a retired retry are ignored (five minutes by default, NOT-20). */
  readonly fenceMs?: number;
}

/** An open Recourse: the store, the engine, the task-session orchestrator, and what reconciliation found. */
export interface Recourse {
  readonly store: Store;
  readonly transcript: Transcript;
  readonly taskSessions: TaskSessions;
  /** The durable log of what viewers are told (the HTTP service's event stream resumes from it). */
  readonly events: EventLog;
  readonly clock: Clock;
  readonly engine: Engine;
  readonly sessions: InteractiveSessions;
  readonly report: ReconciliationReport;
  /**
   * Graceful shutdown: stops the timer (durable waits stay stored and are re-armed at the next start), waits for the
   * work already queued to commit, closes the store. Attempts still running are not waited for: their reports
   * after this are dropped, and the next start reports them orphaned.
   */
  close(): Promise<void>;
}

/**
 * The composition root: opens the embedded database (migrating it), builds the engine and the task-session
 * orchestrator on it, subscribes the caller's listeners, and only then runs restart reconciliation, so the
 * re-armed waits, stopped dispatches and orphaned attempts it reports reach them. Every entry point (`simulate`,
 * `serve`, an embedding orchestrator) opens Recourse through here.
 */
export async function openRecourse(options: RecourseOptions): Promise<Recourse> {
  const location = checkOptions(options);
  const clock = options.clock ?? systemClock();
  const { database, lock } =
    location === null
      ? openDatabase(options.database ?? defaultDatabaseFile, options)
      : await openPostgres(location, options);
  try {
    await database.store.migrate();
    // The run dispatcher reports to the engine it is part of: bound once the engine exists.
    const dispatcher =
      options.dispatcher ?? runDispatcher(options.run!, () => engine, options.onError ?? (() => undefined));
    const engine: Engine = new Engine({
      store: database.store,
      clock,
      dispatcher,
      ...(options.newId === undefined ? {} : { newId: options.newId }),
      ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
      ...(database.cluster === undefined
        ? {}
        : {
            shared: {
              cluster: database.cluster,
              leaseMs: options.leaseMs ?? defaultLeaseMs,
              pollMs: options.pollMs ?? defaultPollMs,
            },
          }),
    });
    const sessions = new InteractiveSessions({
      engine,
      store: database.store,
      transcript: database.transcript,
      sessions: database.sessions,
      clock,
      ...(options.log === undefined ? {} : { log: options.log }),
      ...(options.fenceMs === undefined ? {} : { fenceMs: options.fenceMs }),
      ...(database.sessionLocks === undefined ? {} : { sessionLocks: database.sessionLocks }),
    });
    if (options.onSessionEvent !== undefined) sessions.subscribe(options.onSessionEvent);
    await sessions.start();
    const report = await engine.reconcile();
    return {
      store: database.store,
      transcript: database.transcript,
      taskSessions: database.sessions,
      events: database.events,
      clock,
      engine,
      sessions,
      report,
      async close() {
        await sessions.close();
        await engine.close();
        await database.store.close();
        await lock?.release();
      },
    };
  } catch (error) {
    await database.store.close().catch(() => undefined);
    await lock?.release();
    throw error;
  }
}

const defaultLeaseMs = 10_000;
const defaultPollMs = 1_000;

/**
 * Options a plain JavaScript caller may get wrong, refused by field before anything is opened. Returns where the
 * PostgreSQL database is when `databaseUrl` names one (null: the SQLite file).
 */
function checkOptions(options: RecourseOptions): PostgresLocation | null {
  if (typeof options !== 'object' || options === null) {
    throw new EngineInputError([{ path: '', message: 'openRecourse needs an options object' }]);
  }
  const issues: FieldIssue[] = [];
  const hasRun = options.run !== undefined;
  if (hasRun === (options.dispatcher !== undefined)) {
    issues.push({
      path: '/run',
      message: 'give either run (a function that runs an attempt) or a dispatcher, exactly one',
    });
  } else if (hasRun && typeof options.run !== 'function') {
    issues.push({ path: '/run', message: 'run must be a function of the attempt' });
  } else if (!hasRun && typeof options.dispatcher?.dispatch !== 'function') {
    issues.push({
      path: '/dispatcher',
      message: 'a dispatcher must have a dispatch(intent, payload) function',
    });
  }
  for (const name of ['onEvent', 'onSessionEvent', 'onError', 'newId'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      issues.push({ path: `/${name}`, message: `${name} must be a function` });
    }
  }
  const file: unknown = options.database;
  if (file !== undefined) {
    if (typeof file !== 'string' || file === '' || file.includes('\0')) {
      // '' would open a private temporary database: nothing durable, and nothing would say so.
      issues.push({
        path: '/database',
        message: 'database must be a file path (or ":memory:"), not empty and without NUL characters',
      });
    } else if (file !== ':memory:' && kindOf(file) === 'directory') {
      issues.push({
        path: '/database',
        message: `${JSON.stringify(file)} is a directory: name a file in it`,
      });
    } else if (file !== ':memory:' && kindOf(file) === 'special') {
      // SQLite would block reading a FIFO with no writer, with the whole process stuck in that synchronous read.
      issues.push({
        path: '/database',
        message: `${JSON.stringify(file)} is not a regular file (a FIFO, socket or device): name a database file`,
      });
    }
  }
  const location = checkDatabaseUrl(options, issues);
  if (issues.length > 0) throw new EngineInputError(issues);
  return location;
}

function checkDatabaseUrl(options: RecourseOptions, issues: FieldIssue[]): PostgresLocation | null {
  const url: unknown = options.databaseUrl;
  if (url === undefined) {
    if (options.nodes === 'shared') {
      issues.push({ path: '/nodes', message: 'nodes: "shared" needs a PostgreSQL databaseUrl' });
    }
    return null;
  }
  if (options.database !== undefined) {
    issues.push({
      path: '/databaseUrl',
      message: 'give database (an SQLite file) or databaseUrl (PostgreSQL), not both',
    });
  }
  checkSharedOptions(options, issues);
  const size: unknown = options.poolSize;
  if (size !== undefined && !(Number.isInteger(size) && (size as number) >= 1 && (size as number) <= 1000)) {
    issues.push({ path: '/poolSize', message: 'poolSize must be a whole number from 1 to 1000' });
  } else if (size === 1 && options.nodes === 'shared') {
    // A session's lock holds a connection while its work queries through another one.
    issues.push({ path: '/poolSize', message: 'poolSize must be at least 2 with nodes: "shared"' });
  }
  if (typeof url !== 'string') {
    issues.push({ path: '/databaseUrl', message: 'databaseUrl must be a postgres:// URL' });
    return null;
  }
  const location = parsePostgresUrl(url);
  if ('error' in location) {
    issues.push({ path: '/databaseUrl', message: `databaseUrl ${location.error}` });
    return null;
  }
  return location;
}

function checkSharedOptions(options: RecourseOptions, issues: FieldIssue[]): void {
  const nodes: unknown = options.nodes;
  if (nodes !== undefined && nodes !== 'single' && nodes !== 'shared') {
    issues.push({ path: '/nodes', message: 'nodes must be "single" or "shared"' });
  }
  const shared = nodes === 'shared';
  const id: unknown = options.nodeId;
  if (id !== undefined && (!shared || typeof id !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(id))) {
    issues.push({
      path: '/nodeId',
      message: shared
        ? 'nodeId must be 1 to 64 letters, digits, ".", "_" or "-"'
        : 'nodeId names a node of nodes: "shared"',
    });
  }
  for (const [name, least] of [
    ['leaseMs', 1_000],
    ['pollMs', 50],
  ] as const) {
    const value: unknown = options[name];
    if (value === undefined) continue;
    if (
      !shared ||
      !(Number.isInteger(value) && (value as number) >= least && (value as number) <= 3_600_000)
    ) {
      issues.push({
        path: `/${name}`,
        message: shared
          ? `${name} must be whole milliseconds from ${least} to 3,600,000`
          : `${name} applies to nodes: "shared"`,
      });
    }
  }
  const lease = options.leaseMs ?? defaultLeaseMs;
  if (shared && (options.pollMs ?? defaultPollMs) * 2 > lease) {
    issues.push({
      path: '/pollMs',
      message: 'pollMs must be at most half of leaseMs (heartbeats ride on the poll)',
    });
  }
}

/** What a database path names now (through symbolic links); 'absent' when it cannot be read (it is created). */
function kindOf(path: string): 'absent' | 'file' | 'directory' | 'special' {
  try {
    const stat = statSync(path);
    return stat.isFile() ? 'file' : stat.isDirectory() ? 'directory' : 'special';
  } catch {
    return 'absent';
  }
}

/** The database's four ports, whichever database holds them. */
type OpenDatabase = Pick<SqliteDatabase, 'store' | 'transcript' | 'sessions' | 'events'> & {
  readonly cluster?: ClusterTimers;
  readonly sessionLocks?: SessionLocks;
};

/**
 * Opens the PostgreSQL schema and takes its one-engine lock (an advisory lock keyed by the schema). A server that
 * cannot be reached is named in the error with the password hidden; a schema another Recourse holds is `in_use`,
 * as an SQLite file is.
 */
async function openPostgres(
  location: PostgresLocation,
  options: RecourseOptions,
): Promise<{ database: OpenDatabase; lock: DatabaseLock }> {
  // Loaded only here: an embedding host on SQLite never loads `pg`.
  const { openPostgresDatabase } = await import('../store/postgres/postgres-store.js');
  const { lockPostgresSchema } = await import('../store/postgres/schema-lock.js');
  let database: OpenDatabase;
  try {
    database = await openPostgresDatabase({
      location,
      ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
      ...(options.transcriptClock === undefined ? {} : { transcriptClock: options.transcriptClock }),
      ...(options.nodes === 'shared'
        ? {
            nodeId: options.nodeId ?? uuidv7(Date.now()),
            pollMs: options.pollMs ?? defaultPollMs,
            holdMs: options.leaseMs ?? defaultLeaseMs,
          }
        : {}),
    });
  } catch (error) {
    throw new EngineInputError([
      { path: '/databaseUrl', message: error instanceof Error ? error.message : String(error) },
    ]);
  }
  let lock: DatabaseLock | null;
  try {
    lock = await lockPostgresSchema(location, {
      mode: options.nodes ?? 'single',
      // Lost with its connection and taken by another Recourse during the outage: nothing else can tell the host.
      onLost: (message) => {
        try {
          options.onError?.(new RecourseError('in_use', message));
        } catch {
          // The host's error sink failed: nowhere left to report to.
        }
      },
    });
  } catch (error) {
    await database.store.close().catch(() => undefined);
    throw error;
  }
  if (lock === null) {
    await database.store.close().catch(() => undefined);
    throw new RecourseError(
      'in_use',
      options.nodes === 'shared'
        ? `schema ${location.schema} of ${location.display} is open in a single-node Recourse: stop it before starting shared nodes`
        : `schema ${location.schema} of ${location.display} is open in another Recourse (this process or another): one engine per schema, or start every node with nodes: "shared"`,
    );
  }
  return { database, lock };
}

/** Opens the file and takes its one-engine lock; a file that cannot be opened is named in the error. */
function openDatabase(
  file: string,
  options: RecourseOptions,
): { database: OpenDatabase; lock: DatabaseLock | null } {
  let database: SqliteDatabase;
  try {
    database = openSqliteDatabase({
      file,
      ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
      ...(options.transcriptClock === undefined ? {} : { transcriptClock: options.transcriptClock }),
    });
  } catch (error) {
    throw new EngineInputError([
      {
        path: '/database',
        message: `cannot open ${JSON.stringify(file)}: ${error instanceof Error ? error.message : String(error)}`,
      },
    ]);
  }
  if (file === ':memory:') return { database, lock: null };
  let lock: DatabaseLock | null;
  try {
    lock = lockDatabaseFile(file);
  } catch (error) {
    void database.store.close().catch(() => undefined);
    throw new EngineInputError([
      {
        path: '/database',
        message: `cannot lock ${JSON.stringify(`${file}.lock`)}: ${error instanceof Error ? error.message : String(error)}`,
      },
    ]);
  }
  if (lock === null) {
    void database.store.close().catch(() => undefined);
    throw new RecourseError(
      'in_use',
      `${JSON.stringify(file)} is open in another Recourse (this process or another): one engine per database file`,
    );
  }
  return { database, lock };
}
