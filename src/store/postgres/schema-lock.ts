import pg from 'pg';
import type { DatabaseLock } from '../sqlite/database-lock.js';
import type { PostgresLocation } from './postgres-url.js';

/**
 * Takes the one-engine lock of a schema: a session-level advisory lock keyed by the schema name, on a connection of
 * its own held for the life of the engine (pool connections come and go). Two engines on one schema would each
 * reconcile the other's live attempts as orphans and race for the same timers; the second is refused instead.
 * PostgreSQL drops the lock with the connection, so a process killed with SIGKILL leaves nothing stale behind.
 * Nodes that share the schema (`mode: 'shared'`) take the same lock in shared mode: any number of them at once,
 * and never beside a single engine. Returns null when a conflicting session holds it.
 */
export async function lockPostgresSchema(
  location: PostgresLocation,
  mode: 'single' | 'shared' = 'single',
): Promise<DatabaseLock | null> {
  const client = new pg.Client({ connectionString: location.connectionString });
  // A dropped connection (the server restarting) must not end the process; the lock is gone with it.
  client.on('error', () => undefined);
  try {
    await client.connect();
    const result = await client.query<{ locked: boolean }>(
      `SELECT ${mode === 'shared' ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock'}(hashtext('recourse'), hashtext($1)) AS locked`,
      [location.schema],
    );
    if (result.rows[0]?.locked !== true) {
      await client.end();
      return null;
    }
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  return {
    async release() {
      await client.end().catch(() => undefined);
    },
  };
}
