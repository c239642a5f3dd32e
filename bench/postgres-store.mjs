// Durable decisions per second through the engine on PostgreSQL, beside the same workload on an SQLite file
// (synchronous FULL) in the same run (npm run bench:postgres-store). A benchmark, not a test. PostgreSQL is the one
// at RECOURSE_BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test by default), in a fresh schema dropped
// at the end. A decision: classify a failure, gate and evaluate it, commit the route and its attempt, arm the timer.
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openReplayEvidence } from '../dist/core/index.js';
import { Engine, ManualClock } from '../dist/engine/index.js';
import { openPostgresDatabase, openSqliteStore, parsePostgresUrl } from '../dist/store/index.js';

const baseUrl = process.env.RECOURSE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const routes = Number(process.env.ROUTES ?? 6000);
const t0 = Date.parse('2026-06-01T12:00:00Z');
const quiet = { dispatch: async () => undefined };
const overloaded = {
  kind: 'http',
  status: 529,
  provider: 'anthropic',
  body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
};
const classPolicy = (retries) => ({
  retry: { enabled: retries > 0, max_retries: retries, initial_interval_seconds: retries > 0 ? 5 : 0 },
  wait_for_reset: { enabled: false, max_wait_seconds: 0 },
  on_exhausted: retries > 0 ? 'skip' : 'stop',
});
const profile = {
  id: 'bench',
  name: 'bench',
  version: 1,
  candidates: ['a', 'b'].map((c) => ({
    profile_id: c,
    enabled: true,
    policy: { version: 1, transient: classPolicy(3), hard: classPolicy(0) },
  })),
};
const fmt = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

/** `routes` routes fail at once; returns the decisions per second the engine commits durably. */
async function decisions(store) {
  await store.migrate();
  const engine = new Engine({ store, clock: new ManualClock(t0), dispatcher: quiet });
  await engine.saveProfile(profile);
  const ids = Array.from({ length: routes }, (_, i) => `r${i}`);
  await Promise.all(ids.map((id) => engine.startRoute({ routeId: id, profileId: 'bench' })));
  await engine.idle();
  const snapshots = await Promise.all(ids.map((id) => store.readRoute(id)));
  const started = performance.now();
  const outcomes = await Promise.all(
    snapshots.map((r) =>
      engine.reportFailure({
        routeId: r.id,
        generation: r.generation,
        invocationId: r.dispatch.intentId,
        evidence: overloaded,
        replay: openReplayEvidence({
          sessionId: r.id,
          executionId: r.dispatch.intentId,
          promptGeneration: r.generation,
        }),
      }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  if (outcomes.some((o) => o.route.state !== 'retry_wait')) throw new Error('a decision went wrong');
  await engine.close();
  await store.close();
  return routes / seconds;
}

const folder = mkdtempSync(join(tmpdir(), 'recourse-bench-pg-'));
const schema = `recourse_bench_${randomBytes(6).toString('hex')}`;
const url = new URL(baseUrl);
url.searchParams.set('schema', schema);
const location = parsePostgresUrl(url.toString());
if ('error' in location) throw new Error(`RECOURSE_BENCH_DATABASE_URL ${location.error}`);
try {
  console.log(
    `Recourse store benchmark: ${fmt(routes)} durable decisions through the engine (Node ${process.version})`,
  );
  const sqlite = await decisions(openSqliteStore({ file: join(folder, 'bench.db'), synchronous: 'FULL' }));
  console.log(`SQLite file (WAL, synchronous FULL): ${fmt(sqlite)} decisions/s   (baseline, same run)`);
  const postgres = await decisions((await openPostgresDatabase({ location })).store);
  console.log(`PostgreSQL (${location.display}, pool of 10): ${fmt(postgres)} decisions/s`);
  console.log(`PostgreSQL / SQLite: ${(postgres / sqlite).toFixed(2)}`);
} finally {
  rmSync(folder, { recursive: true, force: true });
  const client = new pg.Client({ connectionString: location.connectionString });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}
