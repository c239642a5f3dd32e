import { sql, type Kysely, type Migration } from 'kysely';

/**
 * 0008: the last version of each deleted profile, as SQLite's 0009: a profile created again under a deleted one's
 * id goes on numbering from it, so a stale `If-Match` from before the delete is a conflict. Never edit once landed.
 */
export const retiredProfilesMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE retired_profiles (
    id text PRIMARY KEY,
    last_version bigint NOT NULL,
    retired_at_ms bigint NOT NULL
  )`.execute(db);
}
