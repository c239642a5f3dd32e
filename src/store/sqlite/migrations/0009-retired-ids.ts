import type { Kysely, Migration } from 'kysely';

/**
 * 0009: what a deleted profile or a purged route leaves behind: the profile's last version and the route's last
 * generation. Created again under the same id, a profile started at version 1 and a route at generation 1, so an
 * edit holding `If-Match: "1"`, or an action holding `expected_generation: 1`, from before the delete applied to the
 * new one; they now go on from the deleted one's numbers. A route's is forgotten after a while (`forgetRetiredRoutes`):
 * retention purges leave one per route. Never edit once landed.
 */
export const retiredIdsMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('retired_profiles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('last_version', 'integer', (c) => c.notNull())
    .addColumn('retired_at_ms', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('retired_routes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('last_generation', 'integer', (c) => c.notNull())
    .addColumn('retired_at_ms', 'integer', (c) => c.notNull())
    .execute();
}
