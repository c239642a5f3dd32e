import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { dropSchemas, testDatabaseUrl } from '../helpers/postgres.js';
import type { DispatchIntent } from '../../src/core/index.js';
import { t0 } from '../core/route/route-fixtures.js';
import { openSharedNodeDatabase, twoSharedNodes } from '../helpers/shared-node.js';
import { until } from '../helpers/until.js';

// The real PostgreSQL at 127.0.0.1:5432, database `test`, a fresh schema dropped at the end.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

describe('[DUR-06] a shared node asks which of its waiting dispatches were answered elsewhere', () => {
  it('in one statement whatever their number: 70,000 waiting ids are more than a statement takes parameters', async () => {
    const db = await openSharedNodeDatabase(schemas);
    try {
      const ids = Array.from(
        { length: 70_000 },
        (_, i) => `0190e8b4-0000-7000-8000-${String(i).padStart(12, '0')}`,
      );
      await expect(db.cluster!.answeredIntents(ids)).resolves.toEqual([]);
      await expect(db.cluster!.answeredIntents([])).resolves.toEqual([]);
    } finally {
      await db.store.close();
    }
  });
});

/** Announces `payload` on `recourse_answers` from a connection of its own. */
async function notify(payload: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    await client.query(`SELECT pg_notify('recourse_answers', $1)`, [payload]);
  } finally {
    await client.end();
  }
}

describe('[DUR-06] an answer is announced to the node that sent the dispatch, unless that node recorded it', () => {
  it("another node's answer is announced on recourse_answers; the sending node's own answer is not", async () => {
    const nodes = await twoSharedNodes(schemas, []);
    const heard: string[] = [];
    const stop = nodes.a.cluster!.listenAnswers((id) => {
      if (id !== null) heard.push(id);
    });
    const intent = (id: string): DispatchIntent => ({
      id,
      routeId: 'r1',
      generation: 1,
      candidate: 'a',
      kind: 'retry',
      createdAtMs: t0,
    });
    try {
      // Both written by node A (its connection names it): A answers the first itself, B answers the second.
      await nodes.a.store.transact(async (tx) => {
        await tx.insertIntent(intent('own'));
        await tx.insertIntent(intent('elsewhere'));
      });
      // Listening before the answers (a notification sent until one is heard): one of the first answer would then
      // come before the second's, in commit order.
      await until(async () => {
        await notify(`${nodes.schema} node-a ready`);
        return heard.includes('ready');
      });
      await nodes.a.store.transact((tx) => tx.resolveIntent('own', 'acknowledged', t0 + 1));
      await nodes.b.store.transact((tx) => tx.resolveIntent('elsewhere', 'acknowledged', t0 + 1));
      await until(() => heard.includes('elsewhere'));
      expect(heard.filter((id) => id !== 'ready')).toEqual(['elsewhere']);
      expect(await nodes.a.cluster!.answeredIntents(['own', 'elsewhere'])).toEqual(
        expect.arrayContaining(['own', 'elsewhere']),
      );
    } finally {
      await stop();
      await nodes.close();
    }
  });
});
