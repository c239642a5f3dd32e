import { realpathSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { createOwnerOnly } from './owner-only-file.js';

/** What holds a database for one Recourse: released on close, and by the OS (or the server) when the process dies. */
export interface DatabaseLock {
  release(): void | Promise<void>;
}

/**
 * Takes the one-engine lock of an SQLite database file: an exclusive SQLite lock on `<file>.lock`, held open for the
 * life of the engine. Two engines on one file would each reconcile the other's live attempts as orphans and race
 * for the same timers; the second is refused instead. The lock is the operating system's (a POSIX record lock), so
 * a process killed with SIGKILL leaves nothing stale behind, and readers of the database itself are not blocked.
 * The lock sits beside the file's real path (symbolic links resolved, as SQLite resolves them to open it): a link to
 * the file, or a linked folder on the way, must find the same lock, not a second one. The file must exist (the
 * database is opened first). Returns null when another holder has it.
 */
export function lockDatabaseFile(file: string): DatabaseLock | null {
  const lockFile = `${realpathSync(file)}.lock`;
  createOwnerOnly(lockFile);
  const lock = new BetterSqlite3(lockFile, { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') return null;
    throw error;
  }
  return {
    release() {
      if (lock.open) lock.close();
    },
  };
}
