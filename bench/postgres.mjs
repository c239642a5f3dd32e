// Delayed retries on PostgreSQL: Recourse beside pg-boss 10 on the same database, in one run (npm run
// bench:postgres). A benchmark, not a test. The database is RECOURSE_BENCH_DATABASE_URL
// (postgres://postgres@127.0.0.1:5432/test by default); each side works in a fresh schema, dropped at the end.
//
// The workload, the same on both sides: N (10,000; env ROUTES) delayed jobs are scheduled as fast as each side
// takes them, due evenly over SPREAD_MS (3 s) from LEAD_MS (20 s) after scheduling began, then fired on time.
// - Recourse: N routes started on a profile (set-up, not timed); each route's attempt then fails with an overloaded
//   529 carrying `x-ratelimit-reset` (the due instant, epoch ms), and the transient policy waits for that reset: the
//   decision is committed with its deadline (scheduled); at the deadline the engine fires it, fenced by the route's
//   generation, and the retry's dispatch is the firing. An absolute reset gives both sides the same due instants: a
//   relative `retry-after-ms` counts from when the engine decides, so a deadline decided late (while scheduling
//   runs) comes later, and the firings spread over more than SPREAD_MS. Shared mode (several nodes on one schema: leased claims, LISTEN/NOTIFY) by default;
//   RECOURSE_BENCH_NODES=single for one engine.
// - pg-boss: `send` with `startAfter` per job (scheduled), `work` fetching up to PGBOSS_BATCH (1,000) jobs per poll
//   every 0.5 s (its minimum) on one worker (scheduled and fired).
// Each side first fires WARM_UP (1,000) jobs the same way, not timed (below). Printed: scheduled per second, fired per second (from the first due time to the last firing; the offered rate is
// N / SPREAD_MS), and the lateness of each firing (firing time minus due time) at p50 and p99.
// Then a second phase, after the first phase's lines (which stay as they are: tools read them), labelled as such: the
// same workload on fresh schemas due over SUSTAINED_SPREAD_MS (10 s: 1,000/s offered; 0 leaves the phase out), a rate
// both sides keep up with. At 3,333/s a small machine fires slower than offered and the lateness there is mostly
// the queue; at a sustained rate it is what a timer itself costs.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { openRecourse } from '../dist/app/index.js';
import { benchProfile, failAttempt, fmt, overloaded, percentile, startRoutes } from './engine-driver.mjs';

const baseUrl = process.env.RECOURSE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const jobs = Number(process.env.ROUTES ?? 10_000);
const leadMs = Number(process.env.LEAD_MS ?? 20_000);
const spreadMs = Number(process.env.SPREAD_MS ?? 3_000);
/** The second phase's spread (0: no second phase): a rate both sides sustain, where lateness is not queueing. */
const sustainedSpreadMs = Number(process.env.SUSTAINED_SPREAD_MS ?? 10_000);
const nodes = process.env.RECOURSE_BENCH_NODES ?? 'shared';
const bossBatch = Number(process.env.PGBOSS_BATCH ?? 1_000);
/** Past the last due time, how long a side may take to fire the rest before the run is called failed. */
const drainLimitMs = 120_000;

/** The transient class waits for the provider's reset (up to 10 minutes), then retries the same candidate. */
const waitForReset = {
  version: 1,
  transient: {
    retry: { enabled: true, max_retries: 1, initial_interval_seconds: 1 },
    wait_for_reset: { enabled: true, max_wait_seconds: 600 },
    on_exhausted: 'stop',
  },
  hard: {
    retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
    wait_for_reset: { enabled: false, max_wait_seconds: 0 },
    on_exhausted: 'stop',
  },
};

/**
 * Before the measured run, each side schedules and fires WARM_UP (1,000) jobs the same way, due over 300 ms from 2 s
 * after they are scheduled, and waits for them: not timed. A node that has run for a while has its firing path
 * compiled; without it the first half second of firings measured a fresh process's first runs of that code.
 */
const warmUp = Number(process.env.WARM_UP ?? 1_000);
const warmUpLimitMs = 60_000;
const warmUpDueTimes = (startMs) =>
  Array.from({ length: warmUp }, (_, i) => startMs + 2_000 + (300 * i) / warmUp);

/** Due times evenly over the spread, from `leadMs` after `startMs`. */
const dueTimes = (startMs, spread) =>
  Array.from({ length: jobs }, (_, i) => startMs + leadMs + (spread * i) / jobs);

/** Resolves once `count()` reaches `target`, or rejects after `limitMs`. */
function reached(count, target, limitMs, what) {
  return new Promise((resolve, reject) => {
    const limit = Date.now() + limitMs;
    const look = () => {
      if (count() >= target) return resolve();
      if (Date.now() > limit) return reject(new Error(`${what}: ${count()} of ${target} in time`));
      setTimeout(look, 20);
    };
    look();
  });
}

/** Scheduling that runs past the first due time makes those firings late: said, so the figures read right. */
function overran(side, startedMs, scheduleSeconds) {
  const over = startedMs + scheduleSeconds * 1000 - (startedMs + leadMs);
  if (over > 0)
    console.log(`(${side}: scheduling overran the first due time by ${fmt(over)} ms: raise LEAD_MS)`);
}

function figures({ scheduleSeconds, due, fired }) {
  const late = [];
  let lastFire = 0;
  for (const [key, firedAt] of fired) {
    late.push(firedAt - due.get(key));
    lastFire = Math.max(lastFire, firedAt);
  }
  late.sort((a, b) => a - b);
  const firstDue = Math.min(...due.values());
  return {
    scheduled: jobs / scheduleSeconds,
    fired: jobs / ((lastFire - firstDue) / 1000),
    p50: percentile(late, 0.5),
    p99: percentile(late, 0.99),
    max: late.at(-1),
  };
}

async function recourse(url, spread) {
  const due = new Map();
  const fired = new Map();
  const recourse = await openRecourse({
    databaseUrl: url,
    nodes,
    dispatcher: {
      dispatch: async (intent) => {
        if (intent.kind !== 'initial') fired.set(intent.routeId, Date.now());
      },
    },
    onEvent: (e) => {
      // The deadline a firing answers, as stored: lateness is measured against it.
      if (e.type === 'transition' && e.dueAtMs !== null) due.set(e.route.id, e.dueAtMs);
    },
  });
  try {
    const { engine } = recourse;
    await engine.saveProfile(benchProfile(waitForReset));
    if (warmUp > 0) {
      const warmIds = Array.from({ length: warmUp }, (_, i) => `w${i}`);
      const warmRoutes = await startRoutes(engine, warmIds);
      const warmDue = warmUpDueTimes(Date.now());
      await Promise.all(
        warmRoutes.map((r, i) =>
          failAttempt(engine, r, {
            ...overloaded,
            headers: { 'x-ratelimit-reset': String(Math.round(warmDue[i])) },
          }),
        ),
      );
      await reached(() => fired.size, warmUp, warmUpLimitMs, 'Recourse warm-up fired');
      due.clear();
      fired.clear();
    }
    const ids = Array.from({ length: jobs }, (_, i) => `r${i}`);
    const setUp = performance.now();
    const routes = await startRoutes(engine, ids);
    const startSeconds = (performance.now() - setUp) / 1000;
    const started = Date.now();
    const dueAt = dueTimes(started, spread);
    const outcomes = await Promise.all(
      routes.map((r, i) =>
        failAttempt(engine, r, {
          ...overloaded,
          headers: { 'x-ratelimit-reset': String(Math.round(dueAt[i])) },
        }),
      ),
    );
    const scheduleSeconds = (Date.now() - started) / 1000;
    overran('Recourse', started, scheduleSeconds);
    const waiting = outcomes.filter((o) => o.route.state === 'waiting_for_reset').length;
    if (waiting !== jobs)
      throw new Error(`Recourse: ${jobs - waiting} failures did not wait for their reset`);
    await reached(() => fired.size, jobs, leadMs + spread + drainLimitMs, 'Recourse fired');
    return { startSeconds, ...figures({ scheduleSeconds, due, fired }) };
  } finally {
    await recourse.close();
  }
}

async function pgBoss(schema, spread) {
  const boss = new PgBoss({ connectionString: baseUrl, schema, max: 10, supervise: false, schedule: false });
  boss.on('error', (error) => console.error('pg-boss:', error.message));
  await boss.start();
  const queue = 'bench';
  await boss.createQueue(queue);
  const due = new Map();
  const fired = new Map();
  try {
    await boss.work(queue, { batchSize: bossBatch, pollingIntervalSeconds: 0.5 }, async (batch) => {
      const now = Date.now();
      for (const job of batch) fired.set(job.data.i, now);
    });
    if (warmUp > 0) {
      const warmDue = warmUpDueTimes(Date.now());
      await Promise.all(
        warmDue.map((at, i) => boss.send(queue, { i: `w${i}` }, { startAfter: new Date(at) })),
      );
      await reached(() => fired.size, warmUp, warmUpLimitMs, 'pg-boss warm-up fired');
      fired.clear();
    }
    const started = Date.now();
    const dueAt = dueTimes(started, spread);
    await Promise.all(
      dueAt.map((at, i) => {
        due.set(i, at);
        return boss.send(queue, { i }, { startAfter: new Date(at) });
      }),
    );
    const scheduleSeconds = (Date.now() - started) / 1000;
    overran('pg-boss', started, scheduleSeconds);
    await reached(() => fired.size, jobs, leadMs + spread + drainLimitMs, 'pg-boss fired');
    return figures({ scheduleSeconds, due, fired });
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
}

const suffix = randomBytes(6).toString('hex');
const recourseSchema = `recourse_bench_${suffix}`;
const bossSchema = `pgboss_bench_${suffix}`;
const recourseUrl = (schema) => {
  const url = new URL(baseUrl);
  url.searchParams.set('schema', schema);
  return url.toString();
};
/** The second phase works in schemas of its own: its jobs reuse the first phase's ids. */
const sustainedSchemas = [`recourse_bench2_${suffix}`, `pgboss_bench2_${suffix}`];
const row = (name, r) =>
  `${name.padEnd(22)} ${fmt(r.scheduled).padStart(9)} ${fmt(r.fired).padStart(9)}   ${fmt(r.p50, 1).padStart(8)} ${fmt(r.p99, 1).padStart(8)} ${fmt(r.max, 1).padStart(8)}`;
try {
  console.log(
    `${fmt(jobs)} delayed retries on PostgreSQL, due over ${fmt(spreadMs)} ms from ${fmt(leadMs)} ms after scheduling began (offered ${fmt(jobs / (spreadMs / 1000))} firings/s; after a warm-up of ${fmt(warmUp)} on each side, not timed; Node ${process.version})`,
  );
  const ours = await recourse(recourseUrl(recourseSchema), spreadMs);
  const theirs = await pgBoss(bossSchema, spreadMs);
  console.log(
    `Recourse set-up: ${fmt(jobs)} routes started in ${fmt(ours.startSeconds, 1)} s (not timed below)`,
  );
  console.log(`${''.padEnd(22)} scheduled     fired   lateness ms: p50      p99      max`);
  console.log(row(`Recourse (${nodes})`, ours));
  console.log(row('pg-boss 10', theirs));
  console.log(
    `Recourse / pg-boss: scheduled ${(ours.scheduled / theirs.scheduled).toFixed(2)}, fired ${(ours.fired / theirs.fired).toFixed(2)}, lateness p99 ${(ours.p99 / theirs.p99).toFixed(2)}`,
  );
  console.log(
    `targets: Recourse at least as fast as pg-boss (${ours.scheduled >= theirs.scheduled && ours.fired >= theirs.fired ? 'met' : 'NOT met'}), Recourse lateness p99 < 100 ms (${ours.p99 < 100 ? 'met' : 'NOT met'})`,
  );
  if (sustainedSpreadMs > 0) {
    // At the first phase's rate neither side fires as fast as it is offered on a small machine, so its lateness is
    // mostly the queue; here both keep up, and lateness is what a timer costs.
    const [recourseSchema2, bossSchema2] = sustainedSchemas;
    const ours2 = await recourse(recourseUrl(recourseSchema2), sustainedSpreadMs);
    const theirs2 = await pgBoss(bossSchema2, sustainedSpreadMs);
    console.log(
      `second phase, a rate both sides sustain: ${fmt(jobs)} delayed retries due over ${fmt(sustainedSpreadMs)} ms (offered ${fmt(jobs / (sustainedSpreadMs / 1000))} firings/s), fresh schemas`,
    );
    console.log(`${''.padEnd(22)} scheduled     fired   lateness ms: p50      p99      max`);
    console.log(row(`Recourse (${nodes})`, ours2));
    console.log(row('pg-boss 10', theirs2));
    console.log(
      `second phase: Recourse lateness p99 < 100 ms (${ours2.p99 < 100 ? 'met' : 'NOT met'}), Recourse / pg-boss lateness p99 ${(ours2.p99 / theirs2.p99).toFixed(2)}`,
    );
  }
} finally {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  for (const schema of [recourseSchema, bossSchema, ...sustainedSchemas])
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}
