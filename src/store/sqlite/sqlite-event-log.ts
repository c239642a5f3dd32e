import { sql } from 'kysely';
import { KyselyEventLog } from '../kysely-event-log.js';

/**
 * The embedded event log: on the store's connection, like the transcript, so an append queues behind a store
 * transaction instead of blocking the only thread on SQLite's lock.
 */
export class SqliteEventLog extends KyselyEventLog {
  async lastId(): Promise<number> {
    const row = await sql<{
      seq: number;
    }>`SELECT seq FROM sqlite_sequence WHERE name = 'events'`.execute(this.db);
    return Number(row.rows[0]?.seq ?? 0);
  }
}
