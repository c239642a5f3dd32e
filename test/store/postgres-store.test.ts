import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { eventLogContract } from './event-log-contract.js';
import { storeContract } from './store-contract.js';
import { transcriptContract } from './transcript-contract.js';
import { openPostgresDatabase } from '../../src/store/postgres/postgres-store.js';
import { parsePostgresUrl } from '../../src/store/postgres/postgres-url.js';
import { routesInEveryState } from '../core/route/route-fixtures.js';
import { dropSchemas, freshSchemaName, schemaLocation, testDatabaseUrl } from '../helpers/postgres.js';

// The real PostgreSQL at 127.0.0.1:5432, database `test`: every `fresh` is a new schema, dropped at the end.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

function freshSchema() {
  const schema = freshSchemaName();
  schemas.push(schema);
  return schemaLocation(schema);
}

async function openFresh(transcriptClock?: { now: () => number; newId: () => string }) {
  const db = await openPostgresDatabase({
    location: freshSchema(),
    ...(transcriptClock === undefined ? {} : { transcriptClock }),
  });
  await db.store.migrate();
  return db;
}

storeContract('PostgreSQL (pg pool)', {
  fresh: () => {
    const location = freshSchema();
    return Promise.resolve({
      open: async () => {
        const { store } = await openPostgresDatabase({ location });
        await store.migrate();
        return store;
      },
    });
  },
});
transcriptContract('PostgreSQL', () => {
  let n = 0;
  return openFresh({ now: () => ++n, newId: () => `m${n}` });
});
eventLogContract('PostgreSQL', () => openFresh());

describe('PostgreSQL adapter', () => {
  it('creates the schema named by the URL and applies its numbered migrations there', async () => {
    const location = freshSchema();
    const db = await openPostgresDatabase({ location });
    try {
      expect(await db.store.migrate()).toEqual([
        '0001-initial',
        '0002-route-leases',
        '0003-nodes',
        '0004-session-lifecycles',
        '0005-event-order',
        '0006-intent-answers',
        '0007-own-answers-unannounced',
        '0008-retired-ids',
        '0009-retired-ids-collation',
      ]);
    } finally {
      await db.store.close();
    }
    const client = new pg.Client({ connectionString: testDatabaseUrl });
    await client.connect();
    try {
      const tables = await client.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
        [location.schema],
      );
      expect(tables.rows.map((r) => r.table_name)).toEqual(
        expect.arrayContaining(['events', 'plans', 'routes', 'session_messages', 'task_sessions']),
      );
      // Ids compare as bytes everywhere, as SQLite compares them: a key in the locale's order would page and match
      // differently on another server.
      const keys = await client.query<{ table_name: string; collation_name: string | null }>(
        `SELECT c.table_name, c.collation_name FROM information_schema.columns c
           JOIN information_schema.key_column_usage k
             ON k.table_schema = c.table_schema AND k.table_name = c.table_name AND k.column_name = c.column_name
           JOIN information_schema.table_constraints t
             ON t.constraint_name = k.constraint_name AND t.table_schema = k.table_schema
          WHERE c.table_schema = $1 AND c.data_type = 'text' AND t.constraint_type = 'PRIMARY KEY'
            AND c.table_name <> 'kysely_migration' AND c.table_name <> 'kysely_migration_lock'
          ORDER BY c.table_name`,
        [location.schema],
      );
      expect(keys.rows.map((r) => r.table_name)).toEqual(
        expect.arrayContaining(['retired_profiles', 'retired_routes']),
      );
      expect(keys.rows.filter((r) => r.collation_name !== 'C')).toEqual([]);
    } finally {
      await client.end();
    }
  });

  it('a schema a newer Recourse migrated further is refused with what happened, not as "corrupted migrations"', async () => {
    const location = freshSchema();
    const first = await openPostgresDatabase({ location });
    await first.store.migrate();
    await first.store.close();
    const client = new pg.Client({ connectionString: testDatabaseUrl });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO ${location.schema}.kysely_migration (name, timestamp) VALUES ('0099-future', '2030-01-01')`,
      );
    } finally {
      await client.end();
    }
    const again = await openPostgresDatabase({ location });
    try {
      await expect(again.store.migrate()).rejects.toMatchObject({
        code: 'invalid_configuration',
        message:
          'the database was migrated by a newer version of Recourse (migration "0099-future" is unknown to this version): use that version or a later one',
      });
    } finally {
      await again.store.close();
    }
  });

  it('[RTE-16] of two engines’ concurrent fenced writes one wins; the other changes nothing (zero rows: stale)', async () => {
    const location = freshSchema();
    // Two pools on one schema, as two processes would be: their transactions really overlap in PostgreSQL.
    const [a, b] = await Promise.all([
      openPostgresDatabase({ location }),
      openPostgresDatabase({ location }),
    ]);
    try {
      await a.store.migrate();
      const route = { ...routesInEveryState().active, id: 'r1' };
      await a.store.transact((tx) => tx.insertRoute(route));
      const fence = { generation: route.generation, state: route.state, revision: route.revision };
      const next = { ...route, revision: route.revision + 1 };
      const results = await Promise.all([
        a.store.transact((tx) => tx.updateRoute(next, fence)),
        b.store.transact((tx) => tx.updateRoute({ ...next, candidate: 'other' }, fence)),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const stored = await b.store.readRoute('r1');
      expect(stored?.revision).toBe(route.revision + 1);
      expect(stored?.candidate).toBe(results[0] ? route.candidate : 'other');
    } finally {
      await a.store.close();
      await b.store.close();
    }
  });

  it('an unreachable server fails the open with the URL, password hidden', async () => {
    const location = parsePostgresUrl('postgres://ada:s3cret-pw@127.0.0.1:1/test?schema=nowhere');
    if ('error' in location) throw new Error(location.error);
    const failure = openPostgresDatabase({ location });
    await expect(failure).rejects.toThrow(
      /^cannot connect to PostgreSQL at postgres:\/\/ada:\*\*\*@127\.0\.0\.1:1\/test\?schema=nowhere: .*ECONNREFUSED/,
    );
    await expect(failure).rejects.not.toThrow(/s3cret-pw/);
  });

  it('a URL that is not a PostgreSQL one is refused with what is wrong, never the password', () => {
    const errorOf = (url: string) => (parsePostgresUrl(url) as { error?: string }).error;
    expect(errorOf('not a url')).toMatch(/is not a URL/);
    expect(parsePostgresUrl('mysql://u:pw@h/db')).toEqual({
      error: 'must start with postgres:// or postgresql://, not mysql://',
    });
    expect(errorOf('postgres://u:pw@h/db?schema=a;drop')).toMatch(/^schema "a;drop" must be/);
    expect(errorOf('postgres:///db')).toMatch(/names no host/);
    // An unquoted name is folded by PostgreSQL: the location names the schema as the server does (review finding:
    // a node given `Tenant1` dropped every notification, whose payload says `tenant1`).
    expect(parsePostgresUrl('postgres://u:pw@h/db?schema=Tenant1')).toMatchObject({ schema: 'tenant1' });
    expect(parsePostgresUrl('postgresql://u:pw@h:5433/db?sslmode=disable')).toEqual({
      connectionString: 'postgresql://u:pw@h:5433/db?sslmode=disable',
      schema: 'public',
      display: 'postgresql://u:***@h:5433/db?sslmode=disable&schema=public',
    });
  });
});
