import { sql, type Kysely, type Migration } from 'kysely';

/**
 * 0004: a route's caller payload (opaque JSON, at most 64 KiB), and an index for listing routes by state and
 * profile. Never edit once landed.
 */
export const routePayloadMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('routes').addColumn('payload', 'text').execute();
  await sql`CREATE INDEX routes_state_profile ON routes (state, profile_id, id)`.execute(db);
}
