import type { Kysely, Migration } from 'kysely';

/**
 * 0009: the last version of each deleted profile. A profile deleted and created again started at version 1, so an
 * edit or delete still holding `If-Match: "1"` from before the delete applied to the new profile; its versions now
 * go on from the deleted one's. Never edit once landed.
 */
export const retiredProfilesMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('retired_profiles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('last_version', 'integer', (c) => c.notNull())
    .addColumn('retired_at_ms', 'integer', (c) => c.notNull())
    .execute();
}
