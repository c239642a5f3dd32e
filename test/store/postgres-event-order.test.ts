import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openPostgresDatabase, type PostgresDatabase } from '../../src/store/postgres/postgres-store.js';
import { dropSchemas, freshSchemaName, schemaLocation, schemaUrl } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

/**
 * Event ids across nodes on the real PostgreSQL (a fresh schema per test): two databases opened on one schema are
 * two nodes' pools, a raw client holds a transaction open mid-append. The hazard: ids drawn from a sequence can
 * commit out of order, and a reader following `id > last` would skip the lower one for good.
 */
const schemas: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => dropSchemas(schemas));

const event = (n: number) => ({ type: 'route.transition', atMs: 1_000 + n, data: JSON.stringify({ n }) });

async function twoNodes(): Promise<{ schema: string; a: PostgresDatabase; b: PostgresDatabase }> {
  const schema = freshSchemaName();
  schemas.push(schema);
  const open = async (nodeId: string) => {
    // No fallback poll within a test: what wakes a node here is a notification.
    const db = await openPostgresDatabase({ location: schemaLocation(schema), nodeId, pollMs: 3_600_000 });
    cleanups.push(() => db.store.close());
    await db.store.migrate();
    return db;
  };
  return { schema, a: await open('node-a'), b: await open('node-b') };
}

/** A client of its own in the schema: a transaction it opens stays open until the test ends it. */
async function rawClient(schema: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: schemaUrl(schema).replace(/\?.*$/, '') });
  await client.connect();
  cleanups.push(() => client.end());
  await client.query(`SET search_path TO ${schema}`);
  return client;
}

/** Resolves once a session waits for the schema's append lock (migration 0005's key, as pg_locks shows it). */
async function someoneWaitsForAppendLock(observer: pg.Client, schema: string): Promise<void> {
  for (;;) {
    const waiting = await observer.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
         AND classid = hashtext('recourse.events')::oid AND objid = hashtext($1)::oid AND objsubid = 2`,
      [schema],
    );
    if (waiting.rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('event ids across nodes (PostgreSQL)', () => {
  it('the hazard is real: two plain inserts commit out of order, a reader sees the higher id first', async () => {
    const { schema, a } = await twoNodes();
    const first = await rawClient(schema);
    const second = await rawClient(schema);
    const insert = `INSERT INTO events (type, at_ms, data) VALUES ('t', 1, '{}') RETURNING id`;
    await first.query('BEGIN');
    const low = Number((await first.query<{ id: string }>(insert)).rows[0]!.id);
    const high = Number((await second.query<{ id: string }>(insert)).rows[0]!.id);
    expect(high).toBeGreaterThan(low);
    // Without the lock the log holds on appends, a follower at this point has passed `low` for good.
    expect((await a.events.after(0, 10)).map((e) => e.id)).toEqual([high]);
    await first.query('COMMIT');
    expect((await a.events.after(high, 10)).map((e) => e.id)).toEqual([]);
  });

  it('an append that drew the lower id and commits later holds back every other node: no reader ever skips it', async () => {
    const { schema, a, b } = await twoNodes();
    const slow = await rawClient(schema);
    const observer = await rawClient(schema);
    await slow.query('BEGIN');
    const held = await slow.query<{ id: string }>(
      `SELECT id FROM append_events(ARRAY['slow'], ARRAY[1]::bigint[], ARRAY['{}'])`,
    );
    const low = Number(held.rows[0]!.id);
    // Node B appends while the slow transaction is open: it waits for the lock before drawing any id.
    const appended = b.events.append([event(1), event(2)]);
    await someoneWaitsForAppendLock(observer, schema);
    expect(await a.events.after(0, 10)).toEqual([]);
    // lastId never names an id still in flight: it waits for the append to end too.
    const newest = a.events.lastId();
    await slow.query('COMMIT');
    const stored = await appended;
    expect(stored.map((e) => e.id)).toEqual([low + 1, low + 2]);
    expect([low, low + 1, low + 2]).toContain(await newest);
    expect((await a.events.after(0, 10)).map((e) => e.id)).toEqual([low, low + 1, low + 2]);
  });

  it('a rolled-back append leaves a hole nothing fills later; lastId covers it and ids go on above it', async () => {
    const { schema, a, b } = await twoNodes();
    const client = await rawClient(schema);
    const [kept] = await a.events.append([event(1)]);
    await client.query('BEGIN');
    await client.query(`SELECT id FROM append_events(ARRAY['lost'], ARRAY[1]::bigint[], ARRAY['{}'])`);
    await client.query('ROLLBACK');
    expect(await b.events.lastId()).toBe(kept!.id + 1);
    const [next] = await b.events.append([event(2)]);
    expect(next!.id).toBe(kept!.id + 2);
    expect((await a.events.after(0, 10)).map((e) => e.id)).toEqual([kept!.id, next!.id]);
  });

  it('a node watching the log is woken when another node appends (LISTEN/NOTIFY)', async () => {
    const { a, b } = await twoNodes();
    let wakes = 0;
    cleanups.push(b.events.watch!(() => wakes++));
    // The first wake-up comes once the listener connection listens (it may have missed something before).
    await until(() => wakes >= 1);
    const before = wakes;
    await a.events.append([event(1)]);
    await until(() => wakes > before);
  });

  it('two nodes appending at once: a follower reading after its last id gets every id exactly once, in order', async () => {
    const { a, b } = await twoNodes();
    const writer = async (db: PostgresDatabase, base: number) => {
      for (let i = 0; i < 150; i++) await db.events.append([event(base + 2 * i), event(base + 2 * i + 1)]);
    };
    let done = false;
    const followed: number[] = [];
    const follower = (async () => {
      let cursor = 0;
      for (;;) {
        const finished = done;
        const page = await a.events.after(cursor, 50);
        for (const e of page) followed.push(e.id);
        cursor = followed.at(-1) ?? cursor;
        if (finished && page.length === 0) return;
      }
    })();
    try {
      await Promise.all([writer(a, 0), writer(b, 10_000), writer(a, 20_000), writer(b, 30_000)]);
    } finally {
      done = true;
      await follower;
    }
    const all = (await b.events.after(0, 10_000)).map((e) => e.id);
    expect(all).toHaveLength(1200);
    expect(followed).toEqual(all);
  });
});
