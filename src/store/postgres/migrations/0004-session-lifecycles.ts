import { sql, type Kysely, type Migration } from 'kysely';

/**
 * 0004: the notice lifecycle of each task session, stored so every node of a schema sees it (NOT-18 to NOT-22):
 * owned (an accepted prompt or a retry exists), retry (a notice may exist) and the fence for late provider events
 * (the database's clock, epoch ms; 0: none). A node finds the session of a route it did not open by `route_id`.
 * Never edit once landed.
 */
export const sessionLifecyclesMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE task_sessions
    ADD COLUMN lifecycle_owned BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN lifecycle_retry BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN fence_until_ms BIGINT NOT NULL DEFAULT 0`.execute(db);
  await sql`CREATE INDEX task_sessions_route ON task_sessions (route_id)`.execute(db);
}
