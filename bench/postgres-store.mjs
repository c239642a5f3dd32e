// Durable decisions per second through the engine on PostgreSQL, beside the same workload on an SQLite file
// (synchronous FULL) in the same run (npm run bench:postgres-store). A benchmark, not a test. PostgreSQL is the one
// at RECOURSE_BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test by default), in a fresh schema dropped
// at the end. A decision: classify a failure, gate and evaluate it, commit the route and its attempt, arm the timer.
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgresDatabase, openSqliteStore, parsePostgresUrl } from '../dist/store/index.js';
import { fmt, measureDecisions } from './engine-driver.mjs';

const baseUrl = process.env.RECOURSE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const routes = Number(process.env.ROUTES ?? 6000);

/** `routes` routes fail at once; returns the decisions per second the engine commits durably. */
async function decisions(store) {
  await store.migrate();
  return measureDecisions(store, routes);
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
