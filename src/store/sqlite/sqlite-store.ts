import { createFolders, createOwnerOnly } from './owner-only-file.js';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type SqlBool } from 'kysely';
import { sqliteMigrations } from './migrations/index.js';
import type {
  DueClaim,
  EventLog,
  ScheduledRoute,
  Store,
  StoreTransaction,
  TaskSessions,
  Transcript,
} from '../../core/index.js';
import { StatementCache } from './statement-cache.js';
import { SqliteTransaction } from './sqlite-transaction.js';
import { SqliteEventLog } from './sqlite-event-log.js';
import { KyselyTaskSessions, KyselyTranscript, type TranscriptClock } from '../kysely-transcript.js';
import { uuidv7 } from '../../support/ids.js';
import { claimDueRoutes } from '../kysely-claims.js';
import { KyselyStoreReads } from '../kysely-store-reads.js';
import type { Database } from '../schema.js';
import { migrateStore } from '../migrate-store.js';

export interface SqliteStoreOptions {
  /** A database file (created with its folder), or `:memory:`; `.recourse/recourse.db` under the working folder by default. */
  readonly file?: string;
  /** SQLite durability: FULL (default) syncs every commit; NORMAL syncs at WAL checkpoints. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** The transcript's clock and message ids (the wall clock and UUIDv7 by default). */
  readonly transcriptClock?: TranscriptClock;
}

/** The default database file of the embedded mode. */
export const defaultDatabaseFile = '.recourse/recourse.db';

/** The embedded database: the route store, the transcript and the task sessions on one connection. */
export interface SqliteDatabase {
  readonly store: Store;
  readonly transcript: Transcript;
  readonly sessions: TaskSessions;
  readonly events: EventLog;
}

/** The SQLite adapter of the Store port: Kysely over better-sqlite3, WAL, numbered migrations. */
export function openSqliteStore(options: SqliteStoreOptions = {}): Store {
  return openSqliteDatabase(options).store;
}

/** Opens the embedded database; `store.migrate()` applies every migration, `store.close()` closes it all. */
export function openSqliteDatabase(options: SqliteStoreOptions = {}): SqliteDatabase {
  const file = options.file ?? defaultDatabaseFile;
  if (file !== ':memory:') {
    // A folder it creates is the owner's alone (0700); the file is created 0600 before SQLite opens it, and SQLite
    // gives its -wal and -shm files the database file's mode.
    createFolders(dirname(file));
    createOwnerOnly(file);
  }
  const database = new BetterSqlite3(file);
  database.pragma('journal_mode = WAL');
  database.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  database.pragma('busy_timeout = 5000');
  const cache = new StatementCache(database);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cache }) });
  const clock = options.transcriptClock ?? { now: Date.now, newId: () => uuidv7(Date.now()) };
  return {
    store: new SqliteStore(db, cache),
    transcript: new KyselyTranscript(db, clock),
    sessions: new KyselyTaskSessions(db),
    events: new SqliteEventLog(db),
  };
}

class SqliteStore extends KyselyStoreReads {
  constructor(
    db: Kysely<Database>,
    private readonly cache: StatementCache,
  ) {
    super(db, (flag) => sql<SqlBool>`json_extract(dispatch, ${sql.lit(`$.${flag}`)}) = 1`);
  }

  migrate(): Promise<readonly string[]> {
    return migrateStore(this.db, sqliteMigrations, null);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  claimDueRoutes(claim: DueClaim): Promise<readonly ScheduledRoute[]> {
    return claimDueRoutes(this.db, claim, false);
  }

  /**
   * Holding Kysely's connection keeps the store's other queries out of the transaction. BEGIN IMMEDIATE takes
   * the write lock before the first read: a transaction that reads a route and then writes it never meets a
   * writer that committed in between (SQLite would fail it with SQLITE_BUSY_SNAPSHOT); other connections wait
   * for the lock instead (busy_timeout).
   */
  transact<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    return this.db.connection().execute(async () => {
      const raw = this.cache.database;
      raw.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(new SqliteTransaction(this.cache, this.profiles));
        raw.exec('COMMIT');
        return result;
      } catch (error) {
        // The work's error is the one worth reporting; a failed rollback leaves nothing committed either.
        if (raw.inTransaction) raw.exec('ROLLBACK');
        throw error;
      }
    });
  }
}
