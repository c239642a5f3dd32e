import type { Kysely, Migration } from 'kysely';

/**
 * 0006: plans (seed 004): phase, state, the recovery config and `error_details`, fenced by a revision. The error
 * history stays in `plan_errors` (0001). 0005 belongs to the HTTP service's work. Never edit once landed.
 */
export const plansMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('plans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('phase', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('auto_retry_threshold', 'real', (c) => c.notNull())
    .addColumn('max_retries', 'integer', (c) => c.notNull())
    .addColumn('subplan', 'integer', (c) => c.notNull())
    .addColumn('error_details', 'text', (c) => c.notNull())
    .addColumn('retry_since', 'integer', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('created_at_ms', 'integer', (c) => c.notNull())
    .addColumn('updated_at_ms', 'integer', (c) => c.notNull())
    .execute();
}
