import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { parsePostgresUrl, type PostgresLocation } from '../../src/store/postgres/postgres-url.js';

/** The real PostgreSQL every PostgreSQL test uses (`.ci/run` makes sure it is up; trust authentication). */
export const testDatabaseUrl =
  process.env.RECOURSE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A schema name no other test uses: each is created by the code under test and dropped by `dropSchemas`. */
export function freshSchemaName(): string {
  return `recourse_test_${randomBytes(6).toString('hex')}`;
}

/** The test database's URL selecting `schema`. */
export function schemaUrl(schema: string): string {
  const url = new URL(testDatabaseUrl);
  url.searchParams.set('schema', schema);
  return url.toString();
}

export function schemaLocation(schema: string): PostgresLocation {
  const location = parsePostgresUrl(schemaUrl(schema));
  if ('error' in location) throw new Error(location.error);
  return location;
}

/** Drops the schemas a test file made, with everything in them. */
export async function dropSchemas(schemas: readonly string[]): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
