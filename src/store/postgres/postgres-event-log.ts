import { sql, type Kysely } from 'kysely';
import type { LoggedEvent } from '../../core/index.js';
import { KyselyEventLog } from '../kysely-event-log.js';
import type { Database } from '../schema.js';
import type { PostgresNotifications } from './postgres-notifications.js';
import type { SerialQueue } from './serial-queue.js';

/** The channel `append_events` (migration 0005) announces appends on (payload: "schema newest_id"). */
const channel = 'recourse_events';

/**
 * The event log on PostgreSQL. Appends queue with this process's store transactions and go through
 * `append_events` (migration 0005), which draws ids under a schema-wide lock held to commit: across every node
 * sharing the schema, ids are given in commit order, so a reader following `id > last` never skips an id that
 * commits later. One round trip per append: the lock is held for one statement and its commit.
 */
export class PostgresEventLog extends KyselyEventLog {
  constructor(
    db: Kysely<Database>,
    private readonly writes: SerialQueue,
  ) {
    super(db);
  }

  override append(
    events: readonly { readonly type: string; readonly atMs: number; readonly data: string }[],
  ): Promise<readonly LoggedEvent[]> {
    if (events.length === 0) return Promise.resolve([]);
    return this.writes.run(async () => {
      const result = await sql<{ id: number }>`SELECT id FROM append_events(
        ${events.map((e) => e.type)}::text[], ${events.map((e) => e.atMs)}::bigint[],
        ${events.map((e) => e.data)}::text[])`.execute(this.db);
      // Drawn in the order given, one per event.
      const ids = result.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
      return events.map((e, i) => ({ id: ids[i]!, type: e.type, atMs: e.atMs, data: e.data }));
    });
  }

  async lastId(): Promise<number> {
    // The sequence remembers ids already given even when their rows were pruned (or rolled back); read under the
    // append lock, it never names an id another node's append still holds uncommitted.
    const row = await sql<{ last: number | null }>`SELECT events_high_water() AS last`.execute(this.db);
    return Number(row.rows[0]?.last ?? 0);
  }
}

/** The log of shared nodes: other nodes append too, and say so on `recourse_events`. */
export class SharedPostgresEventLog extends PostgresEventLog {
  constructor(
    db: Kysely<Database>,
    writes: SerialQueue,
    private readonly notifications: PostgresNotifications,
    private readonly pollMs: number,
  ) {
    super(db, writes);
  }

  watch(wake: () => void): () => Promise<void> {
    const unsubscribe = this.notifications.subscribe(channel, () => wake());
    // The fallback: a notification lost (a listener reconnecting) costs at most one interval.
    const poll = setInterval(wake, this.pollMs);
    poll.unref();
    return async () => {
      clearInterval(poll);
      await unsubscribe();
    };
  }
}
