import { afterAll, expect, it } from 'vitest';
import { dropSchemas, freshSchemaName, schemaUrl } from '../helpers/postgres.js';
import { exited, NodeProcesses, schemaClient, stopAll } from './pg-node-harness.js';
import { until } from '../helpers/until.js';

// Real parts only: the real PostgreSQL (database `test`, a fresh schema), three real node processes of the built
// engine (`nodes: 'shared'`) and a seed node. The circuit opens by a real classified failure (an overloaded provider,
// scope `provider`) and expires by the wall clock: its 60 s minimum is the requirement's, so this test waits it out.
// Each node's dispatcher commits every dispatch into `dispatch_log` before acknowledging it; a retry's agent answers
// only once the test inserts a row into `probe_release`, so the probe's outcome comes when the test says.
const routes = 1_000;
const circuitKey = 'provider:anthropic';
const databaseNow = `(extract(epoch FROM clock_timestamp()) * 1000)`;
const schemas: string[] = [];
const processes = new NodeProcesses();

afterAll(async () => {
  processes.killAll();
  await dropSchemas(schemas);
});

it('[CIR-03] [CIR-04] [CIR-05] 1,000 routes behind one expired circuit across three nodes start exactly one probe; after its success each of the rest is dispatched exactly once', async () => {
  const schema = freshSchemaName();
  schemas.push(schema);
  const url = schemaUrl(schema);
  const { db, count } = schemaClient(schema);
  const circuit = async () =>
    (
      await db.query<{
        state: string;
        open_until_ms: number;
        probe_owner: string | null;
        probe_lease_until_ms: number;
      }>(
        `SELECT state, open_until_ms::float8 AS open_until_ms, probe_owner,
                probe_lease_until_ms::float8 AS probe_lease_until_ms
         FROM ${schema}.circuits WHERE key = $1`,
        [circuitKey],
      )
    ).rows[0];
  try {
    await db.query(`CREATE SCHEMA ${schema}`);
    await db.query(`CREATE TABLE ${schema}.dispatch_log (
      seq BIGSERIAL PRIMARY KEY, intent_id TEXT NOT NULL, route_id TEXT NOT NULL, generation BIGINT NOT NULL,
      kind TEXT NOT NULL, node TEXT NOT NULL)`);
    await db.query(`CREATE TABLE ${schema}.probe_release (released BOOLEAN)`);
    const nodes = await processes.startAll(url, ['node-a', 'node-b', 'node-c'], {
      PG_NODE_HOLD_RETRIES: '1',
    });
    const started = Date.now();

    // One route's failure opens the circuit (its own policy stops); then every route fails on that provider and
    // waits 45 s for its retry: each is then held by the open circuit (CIR-01, CIR-05) until it expires.
    const seed = processes.start(url, 'seed', ['seed-circuit', String(routes)]);
    expect(await exited(seed.child)).toBe(0);
    const seeded = Date.now();
    expect(await circuit()).toMatchObject({ state: 'open', probe_owner: null });
    expect(await count(`dispatch_log WHERE kind <> 'initial'`)).toBe(0);

    // The circuit expires: every route is due at once on three nodes. Wait until one probe was sent and every
    // other route has fired and been held again behind its lease (its deadline is the lease's end).
    await until(async () => (await count(`dispatch_log WHERE kind <> 'initial'`)) > 0);
    const probing = (await circuit())!;
    expect(probing.state).toBe('half_open');
    // A lease that lapses admits the next probe (CIR-01 decision): the probe answers while 15 s of it are left,
    // even if a node is too slow to have held every route by then (this machine is shared).
    const heldBehindLease = `routes WHERE state = 'retry_wait' AND deadline_ms = ${probing.probe_lease_until_ms}`;
    await until(
      async () =>
        (await count(heldBehindLease)) === routes - 1 ||
        (await count(`circuits WHERE ${databaseNow} > probe_lease_until_ms - 15000`)) > 0,
    );
    const expired = Date.now();
    const held = await count(heldBehindLease);

    // Exactly one dispatch in the whole cluster until the probe's outcome (CIR-03, CIR-04): the probe owner's retry,
    // sent once the circuit had expired (not early, by an opener's own cadence).
    const sent = await db.query<{ route_id: string; kind: string; created_at_ms: number }>(
      `SELECT l.route_id, l.kind, i.created_at_ms::float8 AS created_at_ms
       FROM ${schema}.dispatch_log l JOIN ${schema}.dispatch_intents i ON i.id = l.intent_id
       WHERE l.kind <> 'initial'`,
    );
    expect(sent.rows).toEqual([
      { route_id: probing.probe_owner, kind: 'retry', created_at_ms: expect.any(Number) as number },
    ]);
    expect(sent.rows[0]!.created_at_ms).toBeGreaterThanOrEqual(probing.open_until_ms);
    expect(await count(`dispatch_intents WHERE kind <> 'initial'`)).toBe(1);
    expect(held).toBeGreaterThan(0);
    const mark = (await db.query<{ m: number }>(`SELECT max(seq)::int AS m FROM ${schema}.dispatch_log`))
      .rows[0]!.m;

    // The probe succeeds: the circuit closes, and the rest go at once (not when the probe's lease ends), each once.
    await db.query(`INSERT INTO ${schema}.probe_release VALUES (true)`);
    await until(async () => (await circuit())!.state === 'closed');
    // Done when nothing waits and every dispatch is answered; then every route must have ended active.
    await until(
      async () =>
        (await count('routes WHERE deadline_ms IS NOT NULL')) === 0 &&
        (await count(`routes WHERE state = 'retrying'`)) === 0 &&
        (await count('dispatch_intents WHERE outcome IS NULL')) === 0,
    );
    const finished = Date.now();
    // Released when the probe succeeded: retries of held routes sent before the lease they were held behind ended
    // (by the deciding nodes' clocks; the probe answered with at least 15 s of it left).
    const early = await count(
      `dispatch_intents WHERE kind <> 'initial' AND route_id <> '${probing.probe_owner}'
       AND created_at_ms < ${probing.probe_lease_until_ms}`,
    );
    expect(early).toBeGreaterThan(0);
    const ended = await db.query<{ state: string; reason: string | null; n: number }>(
      `SELECT state, reason, count(*)::int AS n FROM ${schema}.routes GROUP BY state, reason ORDER BY state`,
    );
    expect(ended.rows).toEqual([
      { state: 'action_required', reason: 'exhausted', n: 1 },
      { state: 'active', reason: null, n: routes },
    ]);
    const byNode = await db.query<{ node: string; n: number }>(
      `SELECT node, count(*)::int AS n FROM ${schema}.dispatch_log WHERE seq > ${mark} GROUP BY node ORDER BY node`,
    );
    process.stdout.write(
      `pg-circuit: seeded ${routes} routes in ${seeded - started} ms; the circuit expired and was probed, and ` +
        `${held} of the other ${routes - 1} routes fired and were held behind the probe, ${expired - seeded} ms ` +
        `after; the rest finished ${finished - expired} ms after that (${early} retries before the lease end); ` +
        `retries after the probe by node: ${byNode.rows.map((r) => `${r.node} ${r.n}`).join(', ')}\n`,
    );
    expect(await stopAll(nodes)).toEqual([0, 0, 0]);

    // Every held route was dispatched exactly once: one retry intent per route, each sent once, all after the probe.
    const retries = await db.query<{ route_id: string; n: number }>(
      `SELECT route_id, count(*)::int AS n FROM ${schema}.dispatch_intents WHERE kind <> 'initial' GROUP BY route_id`,
    );
    expect(retries.rows).toHaveLength(routes);
    expect(retries.rows.filter((r) => r.n !== 1)).toEqual([]);
    const repeated = await db.query(
      `SELECT route_id FROM ${schema}.dispatch_log WHERE kind <> 'initial' GROUP BY route_id HAVING count(*) > 1`,
    );
    expect(repeated.rows).toEqual([]);
    expect(await count(`dispatch_log WHERE kind <> 'initial' AND seq > ${mark}`)).toBe(routes - 1);
  } finally {
    await db.end();
  }
});
