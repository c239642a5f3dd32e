import { sql, type Kysely, type Migration } from 'kysely';

/**
 * 0005: event ids in commit order across nodes, and a wake-up on every append. Ids come from a sequence, and two
 * writers' transactions can commit out of order (id 10 after id 11 was read), so a reader following `id > last`
 * would skip 10 for good. `append_events` therefore takes a transaction-scoped advisory lock (keyed by the schema)
 * before it draws any id: the next writer draws its ids only after this one committed, so what is committed is
 * always a prefix of the ids given (rolled-back ids leave holes that nothing fills later). It then announces the
 * newest id on the `recourse_events` channel ("schema id", delivered at commit). `events_high_water` reads the
 * last id given under the same lock in shared mode, so it never names an id still in flight. Never edit once landed.
 */
export const eventOrderMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE FUNCTION append_events(p_types TEXT[], p_at_ms BIGINT[], p_data TEXT[])
    RETURNS TABLE (id BIGINT) LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtext('recourse.events'), hashtext(current_schema()));
      RETURN QUERY INSERT INTO events AS e (type, at_ms, data)
        SELECT u.type, u.at_ms, u.data FROM unnest(p_types, p_at_ms, p_data) WITH ORDINALITY AS u(type, at_ms, data, n)
        ORDER BY u.n
        RETURNING e.id;
      -- currval: the last id this transaction drew, the newest of the log while the lock is held.
      PERFORM pg_notify('recourse_events', current_schema() || ' ' || currval('events_id_seq'));
    END $$`.execute(db);
  await sql`CREATE FUNCTION events_high_water() RETURNS BIGINT LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(hashtext('recourse.events'), hashtext(current_schema()));
      RETURN (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_id_seq);
    END $$`.execute(db);
}
