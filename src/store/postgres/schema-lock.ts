import pg from 'pg';
import type { DatabaseLock } from '../sqlite/database-lock.js';
import type { PostgresLocation } from './postgres-url.js';

/** How long a lock whose connection dropped waits before connecting and taking it again. */
const retakeMs = 1_000;

export interface SchemaLockOptions {
  /** `single` (default): one engine per schema. `shared`: any number of shared nodes, never beside a single one. */
  readonly mode?: 'single' | 'shared';
  /**
   * Told when the lock, lost with its connection (the database restarted), cannot be taken again because another
   * Recourse took the schema meanwhile; it is tried again every second until it is back or released.
   */
  readonly onLost?: (message: string) => void;
}

/**
 * Takes the one-engine lock of a schema: a session-level advisory lock keyed by the schema name, on a connection of
 * its own held for the life of the engine (pool connections come and go). Two engines on one schema would each
 * reconcile the other's live attempts as orphans and race for the same timers; the second is refused instead.
 * PostgreSQL drops the lock with the connection, so a process killed with SIGKILL leaves nothing stale behind.
 * Nodes that share the schema (`mode: 'shared'`) take the same lock in shared mode: any number of them at once,
 * and never beside a single engine. Returns null when a conflicting session holds it.
 *
 * A dropped connection (the server restarted) loses the lock with it: the lock connects again a second later and
 * takes the lock again in the same mode, so a Recourse started during the outage is refused once the database is
 * back (or, having got there first, makes this one report `onLost` until it leaves).
 */
export async function lockPostgresSchema(
  location: PostgresLocation,
  options: SchemaLockOptions = {},
): Promise<DatabaseLock | null> {
  const mode = options.mode ?? 'single';
  const take = `SELECT ${mode === 'shared' ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock'}(hashtext('recourse'), hashtext($1)) AS locked`;
  let released = false;
  let retry: NodeJS.Timeout | null = null;
  let client = await connectAndTake(location, take, () => lost());
  if (client === null) return null;

  function lost(): void {
    if (released || retry !== null) return;
    retry = setTimeout(() => {
      retry = null;
      if (released) return;
      connectAndTake(location, take, () => lost()).then(
        (again) => {
          if (again === null) {
            options.onLost?.(
              `the lock of schema ${location.schema} was lost when the database dropped its connection, and another Recourse holds it now`,
            );
            lost();
          } else if (released) void again.end().catch(() => undefined);
          else client = again;
        },
        () => lost(),
      );
    }, retakeMs);
  }

  return {
    async release() {
      released = true;
      if (retry !== null) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}

/**
 * One connection holding the lock, or null when a conflicting session holds it. `onDrop` is called once when the
 * held connection ends without being released.
 */
async function connectAndTake(
  location: PostgresLocation,
  take: string,
  onDrop: () => void,
): Promise<pg.Client | null> {
  const client = new pg.Client({ connectionString: location.connectionString });
  let holding = false;
  let dropped = false;
  const drop = (): void => {
    if (!holding || dropped) return;
    dropped = true;
    void client.end().catch(() => undefined);
    onDrop();
  };
  // A dropped connection (the server restarting) must not end the process: the lock is taken again instead.
  client.on('error', drop);
  client.on('end', drop);
  try {
    await client.connect();
    const result = await client.query<{ locked: boolean }>(take, [location.schema]);
    if (result.rows[0]?.locked !== true) {
      await client.end();
      return null;
    }
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  holding = true;
  return client;
}
