import { sql, type Kysely, type Migration } from 'kysely';

/** 0002: the embedded transcript (task session messages) and the task sessions registry. Never edit once landed. */
export const transcriptMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('session_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('turn_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'integer', (c) => c.notNull())
    .addColumn('updated_at_ms', 'integer', (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX session_messages_session ON session_messages (task_id, session_id, created_at_ms, id)`.execute(
    db,
  );
  await db.schema
    .createTable('task_sessions')
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('route_id', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'integer', (c) => c.notNull())
    .execute();
}
