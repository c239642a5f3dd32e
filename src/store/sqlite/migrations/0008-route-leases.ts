import type { Kysely, Migration } from 'kysely';

/**
 * 0008: a due route's timer lease (who claimed it, until when), so the claim contract is the same on SQLite and
 * PostgreSQL (where several nodes claim from one schema). Never edit once landed.
 */
export const routeLeasesMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('routes').addColumn('lease_owner', 'text').execute();
  await db.schema.alterTable('routes').addColumn('lease_until_ms', 'integer').execute();
}
