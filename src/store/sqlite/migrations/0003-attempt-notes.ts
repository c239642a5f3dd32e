import { sql, type Kysely, type Migration } from 'kysely';

/**
 * 0003: an attempt row's note (what the engine corrected about the evidence, such as an `observed_at` far in the
 * future), and the due-timer order by deadline then route id. Never edit once landed.
 */
export const attemptNotesMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('attempts').addColumn('note', 'text').execute();
  await sql`DROP INDEX routes_deadline`.execute(db);
  await sql`CREATE INDEX routes_deadline ON routes (deadline_ms, id) WHERE deadline_ms IS NOT NULL`.execute(
    db,
  );
}
