import { sql, type Kysely, type Migration } from 'kysely';

/**
 * 0005: the durable event log the HTTP service streams (Server-Sent Events resume from it by id), and an index
 * for the routes of one profile (deleting a profile checks them). Never edit once landed.
 */
export const eventsMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  // AUTOINCREMENT: ids are never reused after a prune, so a client's Last-Event-ID never names a different event.
  await sql`CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    type TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    data TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX routes_profile ON routes (profile_id, id)`.execute(db);
}
