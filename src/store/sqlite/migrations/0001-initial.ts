import { sql, type Kysely, type Migration } from 'kysely';

/** 0001: profiles, routes, attempts, dispatch intents, circuits, replay snapshots, plan errors. Never edit once landed. */
export const initialMigration: Migration = { up };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('profiles')
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('profiles_pk', ['id', 'version'])
    .execute();
  await db.schema
    .createTable('routes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addColumn('caller', 'text', (c) => c.notNull())
    .addColumn('candidate', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('cycle', 'integer', (c) => c.notNull())
    .addColumn('excluded', 'text', (c) => c.notNull())
    .addColumn('usage', 'text', (c) => c.notNull())
    .addColumn('last_failure', 'text')
    .addColumn('dispatch', 'text')
    .addColumn('deadline_ms', 'integer')
    .addColumn('failure_class', 'text')
    .addColumn('retry_ordinal', 'integer')
    .addColumn('max_retries', 'integer')
    .addColumn('pending_outcome', 'text')
    .addColumn('next_candidate', 'text')
    .addColumn('reason', 'text')
    .addColumn('detail', 'text')
    .addColumn('recovery_actions', 'text')
    .addColumn('created_at_ms', 'integer', (c) => c.notNull())
    .addColumn('updated_at_ms', 'integer', (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX routes_deadline ON routes (deadline_ms) WHERE deadline_ms IS NOT NULL`.execute(db);
  await db.schema
    .createTable('attempts')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('route_id', 'text', (c) => c.notNull())
    .addColumn('candidate', 'text', (c) => c.notNull())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('code', 'text')
    .addColumn('failure_class', 'text', (c) => c.notNull())
    .addColumn('catalogue_version', 'text', (c) => c.notNull())
    .addColumn('rule', 'text')
    .addColumn('policy_snapshot', 'text')
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('retry_ordinal', 'integer')
    .addColumn('deadline_ms', 'integer')
    .addColumn('pending_outcome', 'text')
    .addColumn('safe_excerpt', 'text', (c) => c.notNull())
    .addColumn('at_ms', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('attempts_route').on('attempts').columns(['route_id', 'seq']).execute();
  await db.schema
    .createTable('dispatch_intents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('route_id', 'text', (c) => c.notNull())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('candidate', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text')
    .addColumn('resolved_at_ms', 'integer')
    .execute();
  await db.schema
    .createIndex('intents_route')
    .on('dispatch_intents')
    .columns(['route_id', 'created_at_ms'])
    .execute();
  await sql`CREATE INDEX intents_unresolved ON dispatch_intents (created_at_ms) WHERE outcome IS NULL`.execute(
    db,
  );
  await db.schema
    .createTable('circuits')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('open_until_ms', 'integer', (c) => c.notNull())
    .addColumn('opened_by', 'text')
    .addColumn('probe_owner', 'text')
    .addColumn('probe_lease_until_ms', 'integer', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('replay_snapshots')
    .addColumn('route_id', 'text', (c) => c.notNull())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('execution_id', 'text', (c) => c.notNull())
    .addColumn('prompt_generation', 'integer', (c) => c.notNull())
    .addColumn('counts', 'text', (c) => c.notNull())
    .addColumn('assistant_excerpt', 'text', (c) => c.notNull())
    .addColumn('at_ms', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('replay_route')
    .on('replay_snapshots')
    .columns(['route_id', 'generation'])
    .execute();
  await db.schema
    .createTable('plan_errors')
    .addColumn('plan_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('record', 'text', (c) => c.notNull())
    .addColumn('at_ms', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('plan_errors_pk', ['plan_id', 'seq'])
    .execute();
}
