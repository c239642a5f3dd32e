import { sql, type Kysely } from 'kysely';
import type { LoggedEvent } from '../../core/index.js';
import { KyselyEventLog } from '../kysely-event-log.js';
import type { Database } from '../schema.js';
import type { SerialQueue } from './serial-queue.js';

/** The event log on PostgreSQL: appends queue with the store's transactions, so ids are given in commit order. */
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
    return this.writes.run(() => super.append(events));
  }

  async lastId(): Promise<number> {
    // The identity's sequence remembers ids already given even when their rows were pruned (or rolled back).
    const row = await sql<{
      last: number | null;
    }>`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS last FROM events_id_seq`.execute(this.db);
    return Number(row.rows[0]?.last ?? 0);
  }
}
