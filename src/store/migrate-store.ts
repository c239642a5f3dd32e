import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { RecourseError } from '../core/index.js';
import type { Database } from './schema.js';

/**
 * Applies every migration not applied yet, with Kysely's migrator (its bookkeeping tables in `schema` on
 * PostgreSQL, null on SQLite); resolves with the names it applied. A database that a newer Recourse migrated
 * further (a migration this version does not know) is refused with `invalid_configuration`, saying so: Kysely's
 * own words for it are "corrupted migrations".
 */
export async function migrateStore(
  db: Kysely<Database>,
  migrations: Readonly<Record<string, Migration>>,
  schema: string | null,
): Promise<readonly string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    ...(schema === null ? {} : { migrationTableSchema: schema }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const newer = await unknownMigrations(db, migrations, schema).catch(() => []);
    if (newer.length > 0) {
      throw new RecourseError(
        'invalid_configuration',
        `the database was migrated by a newer version of Recourse (migration ${newer.map((n) => JSON.stringify(n)).join(', ')} is unknown to this version): use that version or a later one`,
        { cause: error },
      );
    }
    throw new Error(`migration failed: ${(error as Error).message}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The applied migrations `migrations` does not name, in name order (none when nothing was migrated yet). */
async function unknownMigrations(
  db: Kysely<Database>,
  migrations: Readonly<Record<string, Migration>>,
  schema: string | null,
): Promise<readonly string[]> {
  const table = schema === null ? sql.id('kysely_migration') : sql.id(schema, 'kysely_migration');
  const { rows } = await sql<{ name: string }>`SELECT name FROM ${table} ORDER BY name`.execute(db);
  return rows.map((r) => r.name).filter((name) => !Object.hasOwn(migrations, name));
}
