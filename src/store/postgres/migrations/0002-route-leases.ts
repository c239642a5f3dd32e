import { sql, type Kysely, type Migration } from 'kysely';

/**
 * 0002: a due route's timer lease (who claimed it, until when): nodes claim due routes with FOR UPDATE SKIP LOCKED
 * and a lease, so exactly one fires each while its lease holds. Never edit once landed.
 */
export const routeLeasesMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE routes ADD COLUMN lease_owner TEXT, ADD COLUMN lease_until_ms BIGINT`.execute(db);
}
