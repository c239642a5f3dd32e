import { sql, type Kysely, type Migration } from 'kysely';

/**
 * 0006: a node learns when another node records the answer of a dispatch it sent. An acknowledgement may reach any
 * node of the schema; the node that receives it records it (fenced like every route write), and this trigger
 * announces the recorded answer on the `recourse_answers` channel ("schema node intent", delivered at commit), so
 * the sending node stops waiting for it at once instead of taking the dispatch for unanswered when its wait ends.
 * Only intents a shared node wrote (`node_id` set) are announced. Never edit once landed.
 */
export const intentAnswersMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE FUNCTION notify_intent_answer() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('recourse_answers', TG_TABLE_SCHEMA || ' ' || NEW.node_id || ' ' || NEW.id);
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER dispatch_intents_answered AFTER UPDATE OF outcome ON dispatch_intents
    FOR EACH ROW WHEN (OLD.outcome IS NULL AND NEW.outcome IS NOT NULL AND NEW.node_id IS NOT NULL)
    EXECUTE FUNCTION notify_intent_answer()`.execute(db);
}
