import { sql, type Kysely, type Migration } from 'kysely';

/**
 * 0009: the retired ids' keys compare as bytes (COLLATE "C"), as every other id column since 0001, so no table of the
 * schema orders or compares an id by the server's locale. 0008 declared them without it. Never edit once landed.
 */
export const retiredIdsCollationMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE retired_profiles ALTER COLUMN id TYPE text COLLATE "C"`.execute(db);
  await sql`ALTER TABLE retired_routes ALTER COLUMN id TYPE text COLLATE "C"`.execute(db);
}
