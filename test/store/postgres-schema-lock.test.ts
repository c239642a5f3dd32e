import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { lockPostgresSchema } from '../../src/store/postgres/schema-lock.js';
import { dropSchemas, freshSchemaName, schemaLocation, testDatabaseUrl } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

// The schema lock on the real PostgreSQL (database `test`). A database restart drops every connection; ending the
// lock's own backend with pg_terminate_backend drops just that one, which is the same event for the lock.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

async function lockHolders(client: pg.Client, schema: string): Promise<number[]> {
  const rows = await client.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
       AND classid = hashtext('recourse')::oid AND objid = hashtext($1)::oid`,
    [schema],
  );
  return rows.rows.map((r) => r.pid);
}

it('a schema lock whose connection the server dropped takes itself again: a single engine started after is refused', async () => {
  const schema = freshSchemaName();
  schemas.push(schema);
  const location = schemaLocation(schema);
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  const lost: string[] = [];
  const shared = await lockPostgresSchema(location, { mode: 'shared', onLost: (m) => lost.push(m) });
  try {
    expect(shared).not.toBeNull();
    const [first] = await lockHolders(admin, schema);
    await admin.query('SELECT pg_terminate_backend($1)', [first]);
    // Taken again on a new connection, so a single engine is still refused.
    await until(async () => {
      const holders = await lockHolders(admin, schema);
      return holders.length === 1 && holders[0] !== first;
    });
    expect(await lockPostgresSchema(location, { mode: 'single' })).toBeNull();
    expect(lost).toEqual([]);
  } finally {
    await shared?.release();
    await admin.end();
  }
});

it('a lock lost while another Recourse took the schema reports it and takes it back once that one leaves', async () => {
  const schema = freshSchemaName();
  schemas.push(schema);
  const location = schemaLocation(schema);
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  const lost: string[] = [];
  const single = await lockPostgresSchema(location, { mode: 'single', onLost: (m) => lost.push(m) });
  let intruder: Awaited<ReturnType<typeof lockPostgresSchema>> = null;
  try {
    const [first] = await lockHolders(admin, schema);
    await admin.query('SELECT pg_terminate_backend($1)', [first]);
    // In the gap, another engine takes the schema: the first reports the loss instead of holding it twice.
    await until(async () => {
      intruder = await lockPostgresSchema(location, { mode: 'single' });
      return intruder !== null;
    });
    await until(() => Promise.resolve(lost.length > 0));
    expect(lost[0]).toContain(`the lock of schema ${schema} was lost`);
    await intruder!.release();
    intruder = null;
    await until(async () => (await lockHolders(admin, schema)).length === 1);
    expect(await lockPostgresSchema(location, { mode: 'shared' })).toBeNull();
  } finally {
    await (intruder as Awaited<ReturnType<typeof lockPostgresSchema>>)?.release();
    await single?.release();
    await admin.end();
  }
});
