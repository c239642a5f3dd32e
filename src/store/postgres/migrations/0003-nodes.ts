import { sql, type Kysely, type Migration } from 'kysely';

/**
 * 0003: several nodes on one schema. `nodes` says which node is alive until when (by the database's clock); each
 * dispatch intent names the node that sends it (the connection's `recourse.node` setting, null for a single engine),
 * so a survivor stops only a dead node's unanswered dispatches. A trigger announces every written deadline on the
 * `recourse_timers` channel ("schema deadline now"), so idle nodes re-arm without polling fast. Never edit once landed.
 */
export const nodesMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE nodes (
    id TEXT COLLATE "C" PRIMARY KEY,
    started_at_ms BIGINT NOT NULL,
    alive_until_ms BIGINT NOT NULL
  )`.execute(db);
  await sql`ALTER TABLE dispatch_intents
    ADD COLUMN node_id TEXT COLLATE "C" DEFAULT current_setting('recourse.node', true)`.execute(db);
  await sql`CREATE FUNCTION notify_deadline() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- Route writes set every column: announce a deadline only when it is new.
      IF TG_OP = 'UPDATE' AND OLD.deadline_ms IS NOT DISTINCT FROM NEW.deadline_ms THEN
        RETURN NULL;
      END IF;
      PERFORM pg_notify('recourse_timers', TG_TABLE_SCHEMA || ' ' || NEW.deadline_ms || ' ' ||
        (extract(epoch FROM clock_timestamp()) * 1000)::bigint);
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER routes_deadline_written AFTER INSERT OR UPDATE OF deadline_ms ON routes
    FOR EACH ROW WHEN (NEW.deadline_ms IS NOT NULL) EXECUTE FUNCTION notify_deadline()`.execute(db);
}
