export {
  defaultDatabaseFile,
  openSqliteDatabase,
  openSqliteStore,
  type SqliteDatabase,
  type SqliteStoreOptions,
} from './sqlite/sqlite-store.js';
export type { TranscriptClock } from './kysely-transcript.js';
export {
  openPostgresDatabase,
  type PostgresDatabase,
  type PostgresStoreOptions,
} from './postgres/postgres-store.js';
export { parsePostgresUrl, type PostgresLocation } from './postgres/postgres-url.js';
