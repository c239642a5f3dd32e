import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../src/core/index.js';
import { EventHub } from '../../src/server/event-hub.js';
import { openPostgresDatabase } from '../../src/store/postgres/postgres-store.js';
import { dropSchemas, freshSchemaName, schemaLocation, testDatabaseUrl } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

/**
 * The event hub of shared nodes on the real PostgreSQL (a fresh schema per test): two hubs on two databases opened
 * on one schema are two nodes. Each hub's subscribers get every node's events, once each, in id order: woken by
 * LISTEN/NOTIFY, or by the fallback poll when no notification came.
 */
const schemas: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => dropSchemas(schemas));

async function hubOn(schema: string, nodeId: string, pollMs: number) {
  const db = await openPostgresDatabase({ location: schemaLocation(schema), nodeId, pollMs });
  await db.store.migrate();
  const errors: unknown[] = [];
  const hub = new EventHub({ now: () => 1_000, onError: (error) => errors.push(error) });
  await hub.attach(db.events);
  const received: LoggedEvent[] = [];
  hub.subscribe((event) => received.push(event));
  cleanups.push(async () => {
    await hub.close();
    await db.store.close();
    expect(errors).toEqual([]);
  });
  return { hub, received, events: db.events };
}

async function twoNodes(pollMs: number) {
  const schema = freshSchemaName();
  schemas.push(schema);
  return { schema, a: await hubOn(schema, 'node-a', pollMs), b: await hubOn(schema, 'node-b', pollMs) };
}

const anHour = 3_600_000;

const kinds = (events: readonly LoggedEvent[]) => events.map((e) => (JSON.parse(e.data) as { n: number }).n);

describe('EventHub of shared nodes (PostgreSQL)', () => {
  it('each node’s subscribers get both nodes’ events once each, in id order, its own included', async () => {
    const { a, b } = await twoNodes(anHour);
    for (let n = 1; n <= 6; n++) (n % 2 === 0 ? b : a).hub.publish({ type: 'test', data: { n } });
    await until(() => a.received.length >= 6 && b.received.length >= 6);
    await a.hub.drained();
    await b.hub.drained();
    const logged = await a.events.after(0, 100);
    expect(a.received).toEqual(logged);
    expect(b.received).toEqual(logged);
    expect(kinds(logged).sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('an append no notification announced (a lost one) still reaches every node by the fallback poll', async () => {
    const { schema, a, b } = await twoNodes(100);
    const client = new pg.Client({ connectionString: testDatabaseUrl });
    await client.connect();
    try {
      await client.query(`INSERT INTO ${schema}.events (type, at_ms, data) VALUES ('test', 1, '{"n":7}')`);
    } finally {
      await client.end();
    }
    await until(() => a.received.length === 1 && b.received.length === 1);
    expect(kinds(a.received)).toEqual([7]);
    expect(b.received).toEqual(a.received);
  });
});
