import { afterAll, expect, it } from 'vitest';
import { dropSchemas, freshSchemaName, schemaUrl } from '../helpers/postgres.js';
import { exited, NodeProcesses, schemaClient, stopAll } from './pg-node-harness.js';
import { until } from '../helpers/until.js';

// Real parts only: the real PostgreSQL at 127.0.0.1:5432 (database `test`, a fresh schema), three real node
// processes of the built engine (`nodes: 'shared'`), SIGKILL. Each node's dispatcher commits every dispatch into
// `dispatch_log` before acknowledging it, so the table is what the outside world received.
const routes = 2_000;
const schemas: string[] = [];
const processes = new NodeProcesses();

afterAll(async () => {
  processes.killAll();
  await dropSchemas(schemas);
});

it('[DUR-01] [DUR-06] three nodes share one schema; one killed with SIGKILL mid-run: every timer fires exactly once, no dispatch repeats, the survivors finish', async () => {
  const schema = freshSchemaName();
  schemas.push(schema);
  const url = schemaUrl(schema);
  const { db, count } = schemaClient(schema);
  try {
    await db.query(`CREATE SCHEMA ${schema}`);
    await db.query(`CREATE TABLE ${schema}.dispatch_log (
      seq BIGSERIAL PRIMARY KEY, intent_id TEXT NOT NULL, route_id TEXT NOT NULL, generation BIGINT NOT NULL,
      kind TEXT NOT NULL, node TEXT NOT NULL)`);

    // The first node migrates the schema; the others join it; the seed is a fourth node that leaves when done.
    const nodes = await processes.startAll(url, ['node-a', 'node-b', 'node-c']);
    const started = Date.now();
    const seed = processes.start(url, 'seed', ['seed', String(routes)]);
    expect(await exited(seed.child)).toBe(0);
    const seeded = Date.now();

    // Kill node A once it has fired part of the work (a third of all retries in the cluster, at least one of its own).
    await until(async () => {
      const fired = await count(`dispatch_log WHERE kind = 'retry'`);
      return (
        fired >= routes / 3 && (await count(`dispatch_log WHERE kind = 'retry' AND node = 'node-a'`)) > 0
      );
    });
    nodes[0]!.child.kill('SIGKILL');
    await exited(nodes[0]!.child);
    const markAtKill = (
      await db.query<{ m: number }>(`SELECT max(seq)::int AS m FROM ${schema}.dispatch_log`)
    ).rows[0]!.m;

    // The survivors finish: nothing waits, every dispatch is answered or stopped (A's after its lease ends), and
    // every route ended except those whose retry A sent: their agent was A's and reports nothing any more. The
    // seed is a node too and fires retries that come due while it seeds: one it sent as it closed has lost its
    // agent the same way.
    const unfinished = `routes r WHERE r.state NOT IN ('active', 'action_required') AND NOT EXISTS (
      SELECT 1 FROM ${schema}.dispatch_log l WHERE l.route_id = r.id AND l.kind = 'retry' AND l.node IN ('node-a', 'seed'))`;
    await until(
      async () =>
        (await count('routes WHERE deadline_ms IS NOT NULL')) === 0 &&
        (await count('dispatch_intents WHERE outcome IS NULL')) === 0 &&
        (await count(unfinished)) === 0,
    );
    const finished = Date.now();
    const stopped = await count(`dispatch_intents WHERE kind = 'retry' AND outcome = 'ambiguous'`);
    // Figures, not limits: how long the seed and the firing took, and what the kill left for a person.
    process.stdout.write(
      `pg-multi-node: seeded ${routes} routes in ${seeded - started} ms; all fired ${finished - seeded} ms after; ` +
        `${stopped} retries stopped as ambiguous by the kill\n`,
    );
    expect(await stopAll(nodes.slice(1))).toEqual([0, 0]);

    // Every timer fired exactly once: one retry intent per route, never two.
    const retries = await db.query<{ route_id: string; n: number }>(
      `SELECT route_id, count(*)::int AS n FROM ${schema}.dispatch_intents WHERE kind = 'retry' GROUP BY route_id`,
    );
    expect(retries.rows).toHaveLength(routes);
    expect(retries.rows.filter((r) => r.n !== 1)).toEqual([]);
    // No dispatch repeated: each intent reached the outside world at most once, each route's retry at most once.
    const repeated = await db.query(
      `SELECT intent_id FROM ${schema}.dispatch_log GROUP BY intent_id HAVING count(*) > 1
       UNION ALL
       SELECT route_id FROM ${schema}.dispatch_log WHERE kind = 'retry' GROUP BY route_id HAVING count(*) > 1`,
    );
    expect(repeated.rows).toEqual([]);
    expect(await count(`dispatch_log WHERE kind = 'retry'`)).toBeLessThanOrEqual(routes);
    // A retry A committed but never sent, or sent and never acknowledged, stopped its route for a person.
    const unsent = await db.query<{ outcome: string; state: string }>(
      `SELECT i.outcome, r.state FROM ${schema}.dispatch_intents i JOIN ${schema}.routes r ON r.id = i.route_id
       WHERE i.kind = 'retry' AND NOT EXISTS (SELECT 1 FROM ${schema}.dispatch_log l WHERE l.intent_id = i.id)`,
    );
    for (const row of unsent.rows) expect(row).toEqual({ outcome: 'ambiguous', state: 'action_required' });
    // Every route ended (its retry succeeded, or it stopped for a person), or runs the attempt the dead node sent.
    expect(await count(unfinished)).toBe(0);
    expect(await count(`routes WHERE state NOT IN ('active', 'action_required', 'retrying')`)).toBe(0);
    // The survivors took work over after the kill, and A had done its share before it.
    expect(
      await count(`dispatch_log WHERE seq > ${markAtKill} AND node IN ('node-b', 'node-c')`),
    ).toBeGreaterThan(0);
    expect(await count(`dispatch_log WHERE kind = 'retry' AND node = 'node-a'`)).toBeGreaterThan(0);
  } finally {
    await db.end();
  }
});
