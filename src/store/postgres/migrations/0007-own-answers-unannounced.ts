import { sql, type Kysely, type Migration } from 'kysely';

/**
 * 0007: an answer a node records for a dispatch it sent itself is not announced on `recourse_answers`. That node
 * ends its own wait when the transaction commits; the announcement only reached itself, one notification per
 * answered intent (a claim records up to 128 at once), each a trigger call and a message its listener read and
 * dropped. Answers recorded by another node (the connection's `recourse.node` differs) are announced as in 0006.
 * Never edit once landed.
 */
export const ownAnswersUnannouncedMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER dispatch_intents_answered ON dispatch_intents`.execute(db);
  await sql`CREATE TRIGGER dispatch_intents_answered AFTER UPDATE OF outcome ON dispatch_intents
    FOR EACH ROW WHEN (OLD.outcome IS NULL AND NEW.outcome IS NOT NULL AND NEW.node_id IS NOT NULL
      AND NEW.node_id IS DISTINCT FROM current_setting('recourse.node', true))
    EXECUTE FUNCTION notify_intent_answer()`.execute(db);
}
