import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openRecourse } from '../../src/index.js';
import { dropSchemas, freshSchemaName, schemaUrl } from '../helpers/postgres.js';
import { exited, NodeProcesses, schemaClient, stopAll } from './pg-node-harness.js';
import { until } from '../helpers/until.js';
import { ensureClusterUp, restartCluster, testCluster } from './postgres-server.js';

// Real parts only: the real PostgreSQL cluster serving the test database, restarted with pg_ctlcluster while three
// real node processes (`nodes: 'shared'`) fire timers. The outside world is a file, not the database being
// restarted: each node appends every dispatch to it before acknowledging it, so it says exactly what was sent. The
// lease (10 s, the default) outlasts the restart, so no node takes another for dead.
const routes = 1_000;
const afterRestart = 200;
const schemas: string[] = [];
const processes = new NodeProcesses();
const folder = mkdtempSync(join(tmpdir(), 'recourse-pg-restart-'));
const sentFile = join(folder, 'dispatches.jsonl');
const cluster = testCluster();

afterAll(async () => {
  processes.killAll();
  // Whatever happened, the database is up again for whatever runs next.
  await ensureClusterUp(await cluster);
  await dropSchemas(schemas);
  rmSync(folder, { recursive: true, force: true });
});

interface Sent {
  readonly intentId: string;
  readonly routeId: string;
  readonly kind: string;
  readonly node: string;
}

function sent(): Sent[] {
  return readFileSync(sentFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Sent);
}

it('[DUR-01] [DUR-06] PostgreSQL restarted while three nodes fire timers: the nodes reconnect (pool, listener, heartbeat, schema lock), every timer fires exactly once, no dispatch repeats', async () => {
  const schema = freshSchemaName();
  schemas.push(schema);
  const url = schemaUrl(schema);
  writeFileSync(sentFile, '');
  const { db, count } = schemaClient(schema);
  // Counted through the restart: a query the restart fails counts as not there yet.
  const settled = async (check: () => Promise<boolean>) => until(() => check().catch(() => false));
  try {
    // Retries due 15 to 19 s after each first failure: most fire after the seed has left, however slow it was.
    const env = {
      PG_NODE_LEASE_MS: '10000',
      PG_NODE_POLL_MS: '500',
      PG_NODE_DISPATCH_LOG: sentFile,
      PG_NODE_FIRST_DELAY_S: '15',
    };
    const nodes = await processes.startAll(url, ['node-a', 'node-b', 'node-c'], env);
    const seed = processes.start(url, 'seed', ['seed', String(routes)], env);
    expect(await exited(seed.child)).toBe(0);

    // Restart the server while the retries fire.
    await until(() => sent().filter((s) => s.kind === 'retry').length >= routes / 10);
    const restartAt = Date.now();
    const firedBefore = sent().filter((s) => s.kind === 'retry').length;
    await restartCluster(await cluster);
    const restarted = Date.now();
    expect(firedBefore).toBeLessThan(routes);

    // Nothing lost: every route's retry is sent and answered, and each route ends active.
    await settled(
      async () =>
        (await count('routes WHERE deadline_ms IS NOT NULL')) === 0 &&
        (await count('dispatch_intents WHERE outcome IS NULL')) === 0 &&
        (await count(`routes WHERE state = 'active'`)) === routes,
    );
    const finished = Date.now();

    // The nodes work on after reconnecting: a second wave, started after the restart, fires exactly once too.
    const again = processes.start(url, 'seed-after', ['seed', String(afterRestart), 'after'], env);
    expect(await exited(again.child)).toBe(0);
    await settled(
      async () =>
        (await count('routes WHERE deadline_ms IS NOT NULL')) === 0 &&
        (await count('dispatch_intents WHERE outcome IS NULL')) === 0 &&
        (await count(`routes WHERE state = 'active'`)) === routes + afterRestart,
    );
    process.stdout.write(
      `pg-restart: restart took ${restarted - restartAt} ms with ${firedBefore} of ${routes} retries sent; ` +
        `all answered ${finished - restarted} ms after it\n`,
    );

    // Every node beats again, listens again and holds its shared schema lock again, so a single engine started
    // now is refused (the lock was lost with the restart).
    expect(await count(`nodes WHERE alive_until_ms > (extract(epoch FROM clock_timestamp()) * 1000)`)).toBe(
      3,
    );
    const lockKey = `classid = hashtext('recourse')::oid AND objid = hashtext('${schema}')::oid AND objsubid = 2`;
    const locks = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND ${lockKey} AND mode = 'ShareLock' AND granted`,
    );
    expect(locks.rows[0]!.n).toBe(3);
    // A listener's last statement is the LISTEN of its last channel (timers, answers: one connection per node).
    const listeners = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN recourse\\_%'`,
    );
    expect(listeners.rows[0]!.n).toBeGreaterThanOrEqual(3);
    await expect(
      openRecourse({ databaseUrl: url, dispatcher: { dispatch: () => Promise.resolve() } }),
    ).rejects.toMatchObject({ code: 'in_use' });

    expect(await stopAll(nodes)).toEqual([0, 0, 0]);

    // Every timer fired exactly once: one retry intent per route, never two; none stopped for a person.
    const retries = await db.query<{ route_id: string; n: number }>(
      `SELECT route_id, count(*)::int AS n FROM ${schema}.dispatch_intents WHERE kind = 'retry' GROUP BY route_id`,
    );
    expect(retries.rows).toHaveLength(routes + afterRestart);
    expect(retries.rows.filter((r) => r.n !== 1)).toEqual([]);
    expect(await count(`dispatch_intents WHERE outcome <> 'acknowledged'`)).toBe(0);
    // No dispatch repeated: each intent reached the outside world once, each route's retry once.
    const all = sent();
    const retried = all.filter((s) => s.kind === 'retry');
    expect(new Set(all.map((s) => s.intentId)).size).toBe(all.length);
    expect(retried).toHaveLength(routes + afterRestart);
    expect(new Set(retried.map((s) => s.routeId)).size).toBe(routes + afterRestart);
  } finally {
    await db.end();
  }
});
