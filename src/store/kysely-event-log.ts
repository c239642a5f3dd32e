import type { Kysely, Selectable } from 'kysely';
import type { EventLog, LoggedEvent } from '../core/index.js';
import type { Database, EventRow } from './schema.js';

/**
 * The event log through Kysely, shared by SQLite and PostgreSQL: only the highest id ever given is asked of
 * each database its own way (SQLite's `sqlite_sequence`, PostgreSQL's sequence), because the table's maximum
 * forgets ids that were pruned.
 */
export abstract class KyselyEventLog implements EventLog {
  constructor(protected readonly db: Kysely<Database>) {}

  abstract lastId(): Promise<number>;

  async append(
    events: readonly { readonly type: string; readonly atMs: number; readonly data: string }[],
  ): Promise<readonly LoggedEvent[]> {
    if (events.length === 0) return [];
    return this.db.transaction().execute(async (tx) => {
      const stored: LoggedEvent[] = [];
      for (const event of events) {
        const row = await tx
          .insertInto('events')
          .values({ type: event.type, at_ms: event.atMs, data: event.data })
          .returning('id')
          .executeTakeFirstOrThrow();
        stored.push({ id: Number(row.id), type: event.type, atMs: event.atMs, data: event.data });
      }
      return stored;
    });
  }

  async after(afterId: number, limit: number): Promise<readonly LoggedEvent[]> {
    const rows = await this.db
      .selectFrom('events')
      .selectAll()
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(eventOfRow);
  }

  async bounds(): Promise<{ readonly first: number; readonly last: number } | null> {
    const row = await this.db
      .selectFrom('events')
      .select((eb) => [eb.fn.min('id').as('first'), eb.fn.max('id').as('last')])
      .executeTakeFirst();
    if (row === undefined || row.first === null || row.last === null) return null;
    return { first: Number(row.first), last: Number(row.last) };
  }

  async prune(keep: number, beforeMs: number): Promise<number> {
    const last = await this.lastId();
    // By age only the events before the first one young enough to stay: times come from the clock of the node that
    // appended (shared nodes' clocks differ; a clock can step back), so an old time may follow a newer one, and
    // deleting it alone would leave a hole inside the kept range that a resuming reader skips without a reload.
    const result = await this.db
      .deleteFrom('events')
      .where((eb) =>
        eb.or([
          eb('id', '<=', last - keep),
          eb(
            'id',
            '<',
            eb.fn.coalesce(
              eb
                .selectFrom('events')
                .select((inner) => inner.fn.min('id').as('first'))
                .where('at_ms', '>=', beforeMs),
              eb.val(last + 1),
            ),
          ),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function eventOfRow(row: Selectable<EventRow>): LoggedEvent {
  return { id: Number(row.id), type: row.type, atMs: row.at_ms, data: row.data };
}
