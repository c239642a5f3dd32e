import { sql, type Kysely, type Migration } from 'kysely';

/**
 * 0008: a deleted profile's last version and a purged route's last generation, as SQLite's 0009: created again under
 * the same id, a profile or a route goes on from them, so a stale `If-Match` or `expected_generation` from before the
 * delete is a conflict, never a match. Never edit once landed.
 */
export const retiredIdsMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE retired_profiles (
    id text PRIMARY KEY,
    last_version bigint NOT NULL,
    retired_at_ms bigint NOT NULL
  )`.execute(db);
  await sql`CREATE TABLE retired_routes (
    id text PRIMARY KEY,
    last_generation bigint NOT NULL,
    retired_at_ms bigint NOT NULL
  )`.execute(db);
}
