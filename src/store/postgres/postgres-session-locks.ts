import { sql, type Kysely } from 'kysely';
import type { LockedSession, LockedWork, SessionLocks, TaskSession } from '../../core/index.js';
import type { Database } from '../schema.js';
import { ConnectionSlots } from './connection-slots.js';
import { databaseNow } from './database-clock.js';

interface LifecycleRow {
  now_ms: number;
  found: boolean | null;
  lifecycle_owned: boolean | null;
  lifecycle_retry: boolean | null;
  fence_until_ms: number | null;
}

/**
 * The SessionLocks port on PostgreSQL (migration 0004). A session's lock is a transaction-scoped advisory lock
 * keyed by (schema, session id): it needs no row (a session being opened has none yet), conflicts with no row lock
 * the transcript or the store takes, and is released by COMMIT, ROLLBACK or a lost connection. Each holder keeps
 * one pooled connection for as long as its work runs, so at most `concurrency` sessions are held at once by this
 * node: the work itself reads and writes through the rest of the pool.
 */
export class PostgresSessionLocks implements SessionLocks {
  private readonly slots: ConnectionSlots;
  private readonly lockSpace: string;

  constructor(
    private readonly db: Kysely<Database>,
    schema: string,
    concurrency: number,
  ) {
    this.slots = new ConnectionSlots(Math.max(1, concurrency));
    this.lockSpace = `recourse.session:${schema}`;
  }

  withSession<T>(sessionId: string, work: (locked: LockedSession) => Promise<LockedWork<T>>): Promise<T> {
    return this.slots.run(() =>
      this.db.transaction().execute(async (trx) => {
        // The connection's idle limit (`holdMs`) is lifted for this transaction, in the lock's statement: it stays
        // open while its work reads and writes through the rest of the pool.
        await sql`SELECT set_config('idle_in_transaction_session_timeout', '0', true),
            pg_advisory_xact_lock(hashtext(${this.lockSpace}), hashtext(${sessionId}))`.execute(trx);
        // A statement of its own after the lock: its snapshot and its clock are taken once the lock is held, so
        // it sees what the previous holder committed.
        const read = await sql<LifecycleRow>`
          SELECT ${databaseNow} AS now_ms, s.session_id IS NOT NULL AS found,
                 s.lifecycle_owned, s.lifecycle_retry, s.fence_until_ms
          FROM (SELECT 1) one LEFT JOIN task_sessions s ON s.session_id = ${sessionId}`.execute(trx);
        const row = read.rows[0]!;
        const done = await work({
          nowMs: Number(row.now_ms),
          lifecycle:
            row.found === true
              ? {
                  owned: row.lifecycle_owned === true,
                  retry: row.lifecycle_retry === true,
                  fenceUntilMs: Number(row.fence_until_ms),
                }
              : null,
        });
        if (done.lifecycle !== null) {
          // A session created by the work (an open) is there now; one deleted meanwhile stores nothing.
          await sql`UPDATE task_sessions SET lifecycle_owned = ${done.lifecycle.owned},
              lifecycle_retry = ${done.lifecycle.retry}, fence_until_ms = ${done.lifecycle.fenceUntilMs}
            WHERE session_id = ${sessionId}`.execute(trx);
        }
        return done.result;
      }),
    );
  }

  async sessionOfRoute(routeId: string): Promise<TaskSession | null> {
    const row = await this.db
      .selectFrom('task_sessions')
      .select(['session_id', 'task_id', 'owner', 'route_id', 'created_at_ms'])
      .where('route_id', '=', routeId)
      .orderBy('created_at_ms')
      .limit(1)
      .executeTakeFirst();
    return row === undefined
      ? null
      : {
          sessionId: row.session_id,
          taskId: row.task_id,
          owner: row.owner,
          routeId: row.route_id,
          createdAtMs: row.created_at_ms,
        };
  }

  async ownLoops(states: readonly string[]): Promise<void> {
    await sql`UPDATE task_sessions s SET lifecycle_owned = true, lifecycle_retry = true, fence_until_ms = 0
      FROM routes r
      WHERE r.id = s.route_id AND r.state = ANY(${[...states]}::text[])
        AND NOT (s.lifecycle_owned AND s.lifecycle_retry AND s.fence_until_ms = 0)`.execute(this.db);
  }
}
