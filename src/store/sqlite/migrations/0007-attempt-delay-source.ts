import type { Kysely, Migration } from 'kysely';

/**
 * 0007: what set an attempt's wait (`policy`, `retry_after` or `reset_at`), recorded when the decision is made, so
 * the route view's history says it for every attempt rather than guessing. Rows written before it keep null.
 * Never edit once landed.
 */
export const attemptDelaySourceMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('attempts').addColumn('delay_source', 'text').execute();
}
