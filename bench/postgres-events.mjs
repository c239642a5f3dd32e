// The event log of shared nodes on PostgreSQL (node bench/postgres-events.mjs, after npm run build): appends per
// second from one node, beside two nodes appending at once (their appends go one at a time under the schema's
// append lock); and how long an event takes from one node's append to another node's subscribers (LISTEN/NOTIFY),
// beside the appending node's own subscribers, in the same run. A benchmark, not a test. PostgreSQL is the one at
// RECOURSE_BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test by default), in a fresh schema dropped at
// the end.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { EventHub } from '../dist/server/event-hub.js';
import { openPostgresDatabase, parsePostgresUrl } from '../dist/store/index.js';

const baseUrl = process.env.RECOURSE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const appends = Number(process.env.APPENDS ?? 2000);
const followed = Number(process.env.FOLLOWED ?? 500);
const schema = `recourse_bench_${randomBytes(5).toString('hex')}`;
const url = new URL(baseUrl);
url.searchParams.set('schema', schema);
const location = parsePostgresUrl(url.toString());
const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
const event = (n) => ({
  type: 'bench',
  atMs: Date.now(),
  data: JSON.stringify({ n, sentAt: performance.now() }),
});

async function node(nodeId) {
  const db = await openPostgresDatabase({ location, nodeId, pollMs: 1000 });
  await db.store.migrate();
  return db;
}

/** `count` one-event appends, one after another, from each database at once: appends per second in all. */
async function appendRate(databases, count) {
  const started = performance.now();
  await Promise.all(
    databases.map(async (db) => {
      for (let i = 0; i < count; i++) await db.events.append([event(i)]);
    }),
  );
  return (count * databases.length) / ((performance.now() - started) / 1000);
}

/** Milliseconds from an append's call on `from` to each hub's subscribers: p50 and p99 per hub. */
async function delivery(from, hubs) {
  const lateness = hubs.map(() => []);
  const stops = hubs.map((hub, h) =>
    hub.subscribe((e) => {
      const { sentAt } = JSON.parse(e.data);
      if (typeof sentAt === 'number') lateness[h].push(performance.now() - sentAt);
    }),
  );
  for (let i = 0; i < followed; i++) {
    from.publish({ type: 'bench', data: { n: i, sentAt: performance.now() } });
    // One event at a time, a little apart: the figure is one event's way, not a queue's.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  while (lateness.some((l) => l.length < followed)) await new Promise((resolve) => setTimeout(resolve, 20));
  for (const stop of stops) stop();
  return lateness.map((l) => {
    const sorted = [...l].sort((x, y) => x - y);
    const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    return { p50: at(0.5), p99: at(0.99) };
  });
}

const a = await node('bench-a');
const b = await node('bench-b');
try {
  const one = await appendRate([a], appends);
  const two = await appendRate([a, b], appends / 2);
  console.log(`appends/s, one node:               ${fmt(one)}`);
  console.log(`appends/s, two nodes at once (sum): ${fmt(two)}  (${fmt((two / one) * 100)}% of one node)`);
  const hubA = new EventHub({ now: Date.now });
  const hubB = new EventHub({ now: Date.now });
  await hubA.attach(a.events);
  await hubB.attach(b.events);
  const [own, other] = await delivery(hubA, [hubA, hubB]);
  console.log(`append -> the same node's subscribers: p50 ${fmt(own.p50, 1)} ms, p99 ${fmt(own.p99, 1)} ms`);
  console.log(
    `append -> another node's subscribers:  p50 ${fmt(other.p50, 1)} ms, p99 ${fmt(other.p99, 1)} ms`,
  );
  await hubA.close();
  await hubB.close();
} finally {
  await a.store.close();
  await b.store.close();
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}
