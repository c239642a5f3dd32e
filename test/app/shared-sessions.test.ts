import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openRecourse, type Recourse } from '../../src/app/index.js';
import type { DynamicProfileInput, SessionRef, TranscriptEvent } from '../../src/core/index.js';
import { ManualClock, type SessionEvent } from '../../src/engine/index.js';
import { RecordingDispatcher, envelopes, replayOf } from '../engine/harness.js';
import { dropSchemas, freshSchemaName, schemaUrl, testDatabaseUrl } from '../helpers/postgres.js';
import { claudeFleet, transientRetryPolicy } from '../helpers/retry-policy.js';
import { until } from '../helpers/until.js';

/**
 * Two shared nodes (separate pools, separate engines) on one schema of the real PostgreSQL serve the same task
 * session: the session's notice work is serialized across them and its lifecycle (owned, retry, the five-minute
 * fence) is stored, by the database's clock (docs/operations.md, "Several nodes on one schema").
 */
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

const s1: SessionRef = { taskId: 't1', sessionId: 's1' };
const routeId = 'session:s1';
const profile: DynamicProfileInput = claudeFleet(
  transientRetryPolicy({ maxRetries: 5, intervalSeconds: 1, onExhausted: 'stop' }),
);

interface Node {
  readonly recourse: Recourse;
  readonly dispatcher: RecordingDispatcher;
  readonly transcriptEvents: TranscriptEvent[];
  readonly sessionEvents: SessionEvent[];
  readonly logs: string[];
}

interface Cluster {
  readonly schema: string;
  readonly a: Node;
  readonly b: Node;
  /** A plain connection to the test database, for what a test does behind the nodes' backs. */
  readonly sql: pg.Client;
  close(): Promise<void>;
}

async function cluster(options: { fenceMs?: number; clockB?: ManualClock } = {}): Promise<Cluster> {
  const schema = freshSchemaName();
  schemas.push(schema);
  const node = async (nodeId: string, clock?: ManualClock): Promise<Node> => {
    const dispatcher = new RecordingDispatcher();
    const sessionEvents: SessionEvent[] = [];
    const logs: string[] = [];
    const recourse = await openRecourse({
      databaseUrl: schemaUrl(schema),
      nodes: 'shared',
      nodeId,
      leaseMs: 2_000,
      pollMs: 100,
      poolSize: 4,
      dispatcher,
      onSessionEvent: (e) => sessionEvents.push(e),
      log: (entry) => logs.push(entry.message),
      ...(options.fenceMs === undefined ? {} : { fenceMs: options.fenceMs }),
      ...(clock === undefined ? {} : { clock }),
    });
    const transcriptEvents: TranscriptEvent[] = [];
    recourse.transcript.subscribe((e) => transcriptEvents.push(e));
    return { recourse, dispatcher, transcriptEvents, sessionEvents, logs };
  };
  const a = await node('node-a');
  const b = await node('node-b', options.clockB);
  const sql = new pg.Client({ connectionString: testDatabaseUrl });
  await sql.connect();
  await a.recourse.engine.saveProfile(profile);
  return {
    schema,
    a,
    b,
    sql,
    async close() {
      await a.recourse.close();
      await b.recourse.close();
      await sql.end();
    },
  };
}

async function idle(c: Cluster): Promise<void> {
  await c.a.recourse.sessions.idle();
  await c.b.recourse.sessions.idle();
}

async function route(c: Cluster) {
  const found = await c.a.recourse.store.readRoute(routeId);
  if (found === null) throw new Error('no route');
  return found;
}

/** The node's provider failure of the session's current attempt (with its identity unless `late`). */
async function fail(c: Cluster, node: Node, options: { late?: boolean } = {}) {
  const current = await route(c);
  const outcome = await node.recourse.sessions.reportFailure(s1, {
    evidence: envelopes.overloaded,
    replay: replayOf(current),
    ...(options.late === true || current.dispatch === null
      ? {}
      : { invocationId: current.dispatch.intentId }),
  });
  await idle(c);
  return outcome;
}

async function notices(c: Cluster) {
  return (await c.b.recourse.transcript.list(s1)).filter((m) => m.metadata.retrying === true);
}

/** Opens s1 on node A and fails its first turn there: a retry waits, its notice is written (by A). */
async function retryingOnA(c: Cluster): Promise<void> {
  await c.a.recourse.sessions.open({ ...s1, profileId: 'fleet', owner: 'owner' });
  await idle(c);
  expect(await fail(c, c.a)).toMatchObject({ outcome: 'changed', route: { state: 'retry_wait' } });
  expect(await notices(c)).toHaveLength(1);
}

/** The retry fires (on whichever node claims it first, by the database's clock) and is in flight. */
async function retryInFlight(c: Cluster): Promise<void> {
  await until(async () => (await route(c)).state === 'retrying');
  await idle(c);
}

async function storedLifecycle(c: Cluster) {
  const result = await c.sql.query<{ owned: boolean; retry: boolean; fence: string; now: string }>(
    `SELECT lifecycle_owned AS owned, lifecycle_retry AS retry, fence_until_ms AS fence,
            (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now
     FROM ${c.schema}.task_sessions WHERE session_id = $1`,
    [s1.sessionId],
  );
  const row = result.rows[0]!;
  return { owned: row.owned, retry: row.retry, fenceUntilMs: Number(row.fence), nowMs: Number(row.now) };
}

const deletions = (node: Node) => node.transcriptEvents.filter((e) => e.type === 'session.message.deleted');

describe('shared nodes serving one task session', () => {
  it('[NOT-26][NOT-34][NOT-31] a retry started on node A and its success reported on node B retires the notice exactly once', async () => {
    const c = await cluster();
    try {
      await retryingOnA(c);
      const [notice] = await notices(c);
      await retryInFlight(c);
      expect(await storedLifecycle(c)).toMatchObject({ owned: true, retry: true, fenceUntilMs: 0 });
      const current = await route(c);
      expect(await c.b.recourse.sessions.reportSuccess(s1, current.dispatch!.intentId)).toMatchObject({
        outcome: 'changed',
        route: { state: 'active' },
      });
      await idle(c);
      expect(await notices(c)).toEqual([]);
      // Node B, which never saw the retry begin, retired it: one deletion, told once, on the node that made it.
      expect(deletions(c.b).map((e) => e.type === 'session.message.deleted' && e.messageId)).toEqual([
        notice!.id,
      ]);
      expect(deletions(c.a)).toEqual([]);
      const deleteOps = [...c.a.sessionEvents, ...c.b.sessionEvents].filter(
        (e) => e.type === 'notice' && e.op === 'delete',
      );
      expect(deleteOps).toHaveLength(1);
      const stored = await storedLifecycle(c);
      expect(stored).toMatchObject({ owned: false, retry: false });
      // The fence is five minutes of the database's clock from the retirement.
      expect(stored.fenceUntilMs - stored.nowMs).toBeGreaterThan(4 * 60_000);
      expect(stored.fenceUntilMs - stored.nowMs).toBeLessThanOrEqual(5 * 60_000);
    } finally {
      await c.close();
    }
  });

  it("[NOT-20][NOT-22] a late provider event reaching node B while node A's retirement fence holds is ignored, even with B's clock ten minutes ahead; a new prompt on B lifts it", async () => {
    const c = await cluster({ clockB: new ManualClock(Date.now() + 10 * 60_000) });
    try {
      await retryingOnA(c);
      await retryInFlight(c);
      const current = await route(c);
      await c.a.recourse.sessions.reportSuccess(s1, current.dispatch!.intentId);
      await idle(c);
      const retired = await route(c);
      expect(retired.state).toBe('active');
      for (let i = 0; i < 3; i++) {
        expect(await fail(c, c.b, { late: true })).toEqual({ outcome: 'ignored', reason: 'fenced' });
      }
      expect(c.b.sessionEvents.filter((e) => e.type === 'ignored')).toHaveLength(3);
      expect(await notices(c)).toEqual([]);
      expect(await route(c)).toMatchObject({ state: 'active', revision: retired.revision });
      // NOT-22: a new prompt (a complete identity) through B lifts A's fence for every node.
      expect(await c.b.recourse.sessions.prompt(s1)).toMatchObject({ outcome: 'changed' });
      await idle(c);
      expect(await storedLifecycle(c)).toMatchObject({ owned: true, fenceUntilMs: 0 });
      expect(await fail(c, c.a, { late: true })).toMatchObject({ outcome: 'changed' });
    } finally {
      await c.close();
    }
  });

  it("[NOT-20] once the stored fence has passed by the database clock, node B judges a late event, though B's own clock says it is still fenced", async () => {
    const c = await cluster({ fenceMs: 1_500, clockB: new ManualClock(Date.now() - 10 * 60_000) });
    try {
      await retryingOnA(c);
      expect(await c.a.recourse.sessions.cancel('owner', s1)).toEqual({ outcome: 'cancelled', active: true });
      await idle(c);
      const fence = (await storedLifecycle(c)).fenceUntilMs;
      expect(fence).toBeGreaterThan(0);
      await until(async () => (await storedLifecycle(c)).nowMs >= fence);
      // Judged by the engine now (the route was cancelled: the failure is refused), not ignored.
      expect(await fail(c, c.b, { late: true })).toMatchObject({ outcome: 'refused' });
      expect(c.b.sessionEvents.some((e) => e.type === 'ignored')).toBe(false);
      expect(await notices(c)).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it('[NOT-01][NOT-14][NOT-18] racing notice writes from two nodes leave one notice, created once and updated in place, in event order', async () => {
    const c = await cluster();
    try {
      await c.a.recourse.sessions.open({ ...s1, profileId: 'fleet', owner: 'owner' });
      await idle(c);
      // Hold every transcript write of the schema: node A's notice write stops inside its section.
      const blocker = new pg.Client({ connectionString: testDatabaseUrl });
      await blocker.connect();
      try {
        await blocker.query('BEGIN');
        await blocker.query(`LOCK TABLE ${c.schema}.session_messages IN EXCLUSIVE MODE`);
        const first = await route(c);
        expect(
          await c.a.recourse.sessions.reportFailure(s1, {
            evidence: envelopes.overloaded,
            replay: replayOf(first),
            invocationId: first.dispatch!.intentId,
          }),
        ).toMatchObject({ outcome: 'changed', route: { state: 'retry_wait' } });
        await until(async () => (await route(c)).state === 'retrying');
        const retry = await route(c);
        // Node B reports the retry's failure while A's write is stuck: its own notice write follows.
        const second = c.b.recourse.sessions.reportFailure(s1, {
          evidence: envelopes.overloaded,
          replay: replayOf(retry),
          invocationId: retry.dispatch!.intentId,
        });
        // Until B waits too: on the session's lock (or, without one, on the table behind A).
        await until(async () => (await waiting(c)) >= 2);
        await blocker.query('COMMIT');
        expect(await second).toMatchObject({
          outcome: 'changed',
          route: { state: 'retry_wait', retryOrdinal: 2 },
        });
      } finally {
        await blocker.end();
      }
      await idle(c);
      const left = await notices(c);
      expect(left).toHaveLength(1);
      expect(left[0]!.metadata).toMatchObject({ retrying: true, attempt: 2 });
      const merged = [...c.a.transcriptEvents, ...c.b.transcriptEvents];
      expect(merged.filter((e) => e.type === 'session.message.created')).toHaveLength(1);
      // A created the notice for attempt 1; B found it and updated it in place for attempt 2.
      expect(c.a.transcriptEvents.map((e) => e.type)).toEqual(['session.message.created']);
      expect(c.b.transcriptEvents.map((e) => e.type)).toEqual(['session.message.updated']);
      const created = c.a.transcriptEvents[0]!;
      const updated = c.b.transcriptEvents[0]!;
      expect(updated.type === 'session.message.updated' && updated.message.id).toBe(
        created.type === 'session.message.created' && created.message.id,
      );
    } finally {
      await c.close();
    }
  });

  it('[NOT-39][NOT-43] hostile: unknown or foreign session ids on node B are refused by field and store nothing; a stale event is judged stale and writes no notice', async () => {
    const c = await cluster();
    try {
      await retryingOnA(c);
      for (const ref of [
        { taskId: 't1', sessionId: 'nope' },
        { taskId: 't2', sessionId: 's1' },
      ]) {
        await expect(
          c.b.recourse.sessions.reportFailure(ref, { evidence: envelopes.overloaded }),
        ).rejects.toMatchObject({ issues: [{ path: '/session_id' }] });
        await expect(c.b.recourse.sessions.reportSuccess(ref)).rejects.toMatchObject({
          issues: [{ path: '/session_id' }],
        });
        expect(await c.b.recourse.sessions.cancel('owner', ref)).toEqual({
          outcome: 'refused',
          reason: 'not_found',
        });
      }
      const rows = await c.sql.query(`SELECT session_id FROM ${c.schema}.task_sessions ORDER BY session_id`);
      expect(rows.rows).toEqual([{ session_id: 's1' }]);
      const waitingRoute = await route(c);
      // The first attempt's identity, reported again through B: stale, no notice touched, the wait unchanged.
      const initial = c.a.dispatcher.sent[0]!;
      expect(
        await c.b.recourse.sessions.reportFailure(s1, {
          evidence: envelopes.overloaded,
          replay: replayOf(waitingRoute),
          invocationId: initial.id,
        }),
      ).toMatchObject({ outcome: 'refused' });
      await idle(c);
      expect(await route(c)).toMatchObject({ state: 'retry_wait', revision: waitingRoute.revision });
      expect(c.b.transcriptEvents).toEqual([]);
      expect(await notices(c)).toHaveLength(1);
      expect(c.a.logs.concat(c.b.logs)).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it('[NOT-24] hostile: a session deleted on node A while node B still remembers it gets no notice from B when its route moves on', async () => {
    const c = await cluster();
    try {
      await c.a.recourse.sessions.open({ ...s1, profileId: 'fleet', owner: 'owner' });
      await idle(c);
      // B learns the session (a report through B), then A deletes it: the loop ends, the row goes.
      expect(await fail(c, c.b)).toMatchObject({ outcome: 'changed', route: { state: 'retry_wait' } });
      // A retry is in flight when A deletes the session, so the route stays (its attempt may still answer).
      const waiting = await route(c);
      await c.b.recourse.engine.act({ routeId, action: 'retry_now', expectedGeneration: waiting.generation });
      await idle(c);
      await c.a.recourse.sessions.deleteSession(s1);
      await idle(c);
      expect(await c.a.recourse.taskSessions.read(s1.sessionId)).toBeNull();
      expect(await notices(c)).toEqual([]);
      // The route itself stays; someone drives it on through B's engine: a new attempt, then its failure.
      const stopped = await route(c);
      await c.b.recourse.engine.act({ routeId, action: 'retry_now', expectedGeneration: stopped.generation });
      await idle(c);
      const retry = await route(c);
      expect(retry.state).toBe('retrying');
      expect(
        await c.b.recourse.engine.reportFailure({
          routeId,
          generation: retry.generation,
          evidence: envelopes.overloaded,
          replay: replayOf(retry),
          invocationId: retry.dispatch!.intentId,
        }),
      ).toMatchObject({ outcome: 'changed', route: { state: 'retry_wait' } });
      await idle(c);
      expect(await c.b.recourse.transcript.list(s1)).toEqual([]);
      const rows = await c.sql.query(`SELECT session_id FROM ${c.schema}.task_sessions`);
      expect(rows.rows).toEqual([]);
      expect(c.a.logs.concat(c.b.logs)).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it('[NOT-18][NOT-21][NOT-25][NOT-31] churn: 24 sessions opened, failed, retried and ended across both nodes at once end with every notice deleted once and no guard entry left', async () => {
    const c = await cluster();
    try {
      const refs = Array.from({ length: 24 }, (_, i) => ({ taskId: `t${i % 5}`, sessionId: `c${i}` }));
      const nodeOf = (i: number) => (i % 2 === 0 ? c.a : c.b);
      const otherOf = (i: number) => (i % 2 === 0 ? c.b : c.a);
      const routeOf = async (i: number) => (await c.a.recourse.store.readRoute(`session:c${i}`))!;
      await Promise.all(
        refs.map((r, i) => nodeOf(i).recourse.sessions.open({ ...r, profileId: 'fleet', owner: 'owner' })),
      );
      await idle(c);
      // Each first turn fails on the node that did not open the session.
      await Promise.all(
        refs.map(async (r, i) => {
          const current = await routeOf(i);
          return otherOf(i).recourse.sessions.reportFailure(r, {
            evidence: envelopes.overloaded,
            replay: replayOf(current),
            invocationId: current.dispatch!.intentId,
          });
        }),
      );
      await idle(c);
      const listed = await Promise.all(refs.map((r) => c.a.recourse.transcript.list(r)));
      expect(listed.map((m) => m.filter((x) => x.metadata.retrying === true).length)).toEqual(
        refs.map(() => 1),
      );
      await until(async () =>
        (await Promise.all(refs.map((_, i) => routeOf(i)))).every((r) => r.state === 'retrying'),
      );
      await idle(c);
      // A third succeed, a third are cancelled, a third stop; all at once, each on either node.
      await Promise.all(
        refs.map(async (r, i) => {
          const node = i % 4 < 2 ? c.a : c.b;
          if (i % 3 === 0)
            return node.recourse.sessions.reportSuccess(r, (await routeOf(i)).dispatch!.intentId);
          if (i % 3 === 1) return node.recourse.sessions.cancel('owner', r);
          return node.recourse.sessions.stop(r);
        }),
      );
      await idle(c);
      const left = await Promise.all(refs.map((r) => c.b.recourse.transcript.list(r)));
      expect(left.flat().filter((m) => m.metadata.retrying === true)).toEqual([]);
      const merged = [...c.a.transcriptEvents, ...c.b.transcriptEvents];
      const created = merged.flatMap((e) =>
        e.type === 'session.message.created' && e.message.metadata.retrying === true ? [e.message.id] : [],
      );
      const deleted = merged.flatMap((e) => (e.type === 'session.message.deleted' ? [e.messageId] : []));
      expect(created).toHaveLength(24);
      expect(deleted.sort()).toEqual([...created].sort());
      // Cancel of a live loop writes the recovery message once.
      const recoveries = merged.filter(
        (e) => e.type === 'session.message.created' && e.message.kind === 'recovery',
      );
      expect(recoveries).toHaveLength(8);
      expect(c.a.recourse.sessions.guardEntries() + c.b.recourse.sessions.guardEntries()).toBe(0);
      const owned = await c.sql.query(
        `SELECT session_id FROM ${c.schema}.task_sessions WHERE lifecycle_owned`,
      );
      expect(owned.rows).toEqual([]);
      expect(c.a.logs.concat(c.b.logs)).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it('[NOT-26][NOT-34] a shared node starting after a single engine left a retry in flight stores the session as owned with a retry, as a restart re-owns it; the retry success retires the notice', async () => {
    const schema = freshSchemaName();
    schemas.push(schema);
    const databaseUrl = schemaUrl(schema);
    // The single engine keeps the lifecycle in its process: the stored one says nothing of its retry.
    const single = await openRecourse({ databaseUrl, dispatcher: new RecordingDispatcher() });
    await single.engine.saveProfile(profile);
    await single.sessions.open({ ...s1, profileId: 'fleet', owner: 'owner' });
    await single.sessions.idle();
    const first = (await single.store.readRoute(routeId))!;
    await single.sessions.reportFailure(s1, {
      evidence: envelopes.overloaded,
      replay: replayOf(first),
      invocationId: first.dispatch!.intentId,
    });
    await until(async () => (await single.store.readRoute(routeId))?.state === 'retrying');
    await single.sessions.idle();
    await single.close();
    const node = await openRecourse({
      databaseUrl,
      nodes: 'shared',
      pollMs: 100,
      leaseMs: 2_000,
      dispatcher: new RecordingDispatcher(),
    });
    try {
      expect((await node.transcript.list(s1)).filter((m) => m.metadata.retrying === true)).toHaveLength(1);
      const stored = await node.store.readRoute(routeId);
      expect(stored?.state).toBe('retrying');
      const lifecycle = await lifecycleIn(schema);
      expect(lifecycle).toEqual({ lifecycle_owned: true, lifecycle_retry: true, fence_until_ms: 0 });
      const retry = (await node.store.readRoute(routeId))!;
      expect(retry.state).toBe('retrying');
      expect(await node.sessions.reportSuccess(s1, retry.dispatch!.intentId)).toMatchObject({
        outcome: 'changed',
      });
      await node.sessions.idle();
      expect(await node.transcript.list(s1)).toEqual([]);
    } finally {
      await node.close();
    }
  });

  it("shared nodes need a pool of two: a session's lock holds one connection while its work uses another", async () => {
    const schema = freshSchemaName();
    schemas.push(schema);
    await expect(
      openRecourse({ databaseUrl: schemaUrl(schema), nodes: 'shared', poolSize: 1, run: () => undefined }),
    ).rejects.toMatchObject({
      issues: [{ path: '/poolSize', message: expect.stringMatching(/at least 2/) as unknown }],
    });
  });
});

async function lifecycleIn(schema: string) {
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    const result = await client.query(
      `SELECT lifecycle_owned, lifecycle_retry, fence_until_ms::int AS fence_until_ms FROM ${schema}.task_sessions`,
    );
    return result.rows[0] as unknown;
  } finally {
    await client.end();
  }
}

/** Backends of this schema waiting for a lock: a write to its transcript, or one of its sessions' locks. */
async function waiting(c: Cluster): Promise<number> {
  const result = await c.sql.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_locks l
     WHERE NOT l.granted AND (
       (l.locktype = 'relation' AND l.relation = to_regclass($1 || '.session_messages'))
       OR (l.locktype = 'advisory' AND l.objsubid = 2
           AND l.classid::text::bigint = (hashtext('recourse.session:' || $1)::bigint & 4294967295)))`,
    [c.schema],
  );
  return Number(result.rows[0]!.n);
}
