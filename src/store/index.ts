export {
  defaultDatabaseFile,
  openSqliteDatabase,
  openSqliteStore,
  type SqliteDatabase,
  type SqliteStoreOptions,
} from './sqlite/sqlite-store.js';
export type { TranscriptClock } from './kysely-transcript.js';
