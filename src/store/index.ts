export { defaultDatabaseFile, openSqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js';
