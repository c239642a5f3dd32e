import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openRecourse, type Recourse } from '../../src/app/index.js';
import type { DispatchIntent } from '../../src/core/index.js';
import type { Dispatcher, DispatchOptions, EngineEvent } from '../../src/engine/index.js';
import { dropSchemas, freshSchemaName, schemaUrl, testDatabaseUrl } from '../helpers/postgres.js';
import { claudeFleet, transientRetryPolicy } from '../helpers/retry-policy.js';
import { until } from '../helpers/until.js';

/**
 * Acknowledgements on any node (docs/operations.md, "Acknowledgements on any node"): two shared nodes on one schema
 * of the real PostgreSQL. Node A sends a dispatch and waits for its acknowledgement (its dispatcher never answers);
 * the acknowledgement reaches node B, which records it, and A's wait ends without A recording anything: told by
 * the database's notification, or, when that is lost, by A's poll.
 */
const schemas: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => dropSchemas(schemas));

/** A dispatcher whose orchestrator never answers it: the wait ends only when the engine aborts it. */
class WaitingDispatcher implements Dispatcher {
  readonly sent: { intent: DispatchIntent; signal: AbortSignal | undefined }[] = [];

  dispatch(intent: DispatchIntent, _payload: unknown, options?: DispatchOptions): Promise<void> {
    this.sent.push({ intent, signal: options?.signal });
    return new Promise((_, reject) =>
      options?.signal.addEventListener('abort', () => reject(new Error('aborted'))),
    );
  }
}

interface Node {
  readonly recourse: Recourse;
  readonly dispatcher: WaitingDispatcher;
  readonly events: EngineEvent[];
}

async function twoNodes(pollMs: number) {
  const schema = freshSchemaName();
  schemas.push(schema);
  const node = async (nodeId: string): Promise<Node> => {
    const dispatcher = new WaitingDispatcher();
    const events: EngineEvent[] = [];
    const recourse = await openRecourse({
      databaseUrl: schemaUrl(schema),
      nodes: 'shared',
      nodeId,
      leaseMs: Math.max(2_000, 2 * pollMs),
      pollMs,
      poolSize: 4,
      dispatcher,
      onEvent: (event) => events.push(event),
    });
    cleanups.push(() => recourse.close());
    return { recourse, dispatcher, events };
  };
  const a = await node('node-a');
  const b = await node('node-b');
  await a.recourse.engine.saveProfile(
    claudeFleet(transientRetryPolicy({ maxRetries: 3, intervalSeconds: 600, onExhausted: 'stop' })),
  );
  const sql = new pg.Client({ connectionString: testDatabaseUrl });
  await sql.connect();
  cleanups.push(() => sql.end());
  return { schema, a, b, sql };
}

/** Starts a route on A: A sends its initial dispatch and waits for the acknowledgement. */
async function dispatchedByA(a: Node, routeId: string) {
  await a.recourse.engine.startRoute({ routeId, profileId: 'fleet' });
  await until(() => Promise.resolve(a.dispatcher.sent.some((s) => s.intent.routeId === routeId)));
  return a.dispatcher.sent.find((s) => s.intent.routeId === routeId)!;
}

function aborted(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return Promise.reject(new Error('the engine gave the dispatcher no signal'));
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

async function intentOutcome(sql: pg.Client, schema: string, id: string): Promise<string | null> {
  const rows = await sql.query<{ outcome: string | null }>(
    `SELECT outcome FROM ${schema}.dispatch_intents WHERE id = $1`,
    [id],
  );
  return rows.rows[0]!.outcome;
}

describe('acknowledgements on any node (PostgreSQL, two shared nodes)', () => {
  it('[DUR-06] B records the acknowledgement of A’s dispatch once, and A stops waiting (told by NOTIFY)', async () => {
    // No poll within the test: only the notification can end A's wait.
    const { schema, a, b, sql } = await twoNodes(600_000);
    const { intent, signal } = await dispatchedByA(a, 'r-notify');
    const outcome = await b.recourse.engine.acknowledgeDispatch({ routeId: 'r-notify', intentId: intent.id });
    expect(outcome.outcome).toBe('changed');
    expect(outcome.route.dispatch).toMatchObject({ intentId: intent.id, acknowledged: true });
    await aborted(signal);
    await a.recourse.engine.idle();
    // A recorded nothing after B: the route is as B left it, the intent acknowledged once.
    expect(await a.recourse.store.readRoute('r-notify')).toEqual(outcome.route);
    expect(await intentOutcome(sql, schema, intent.id)).toBe('acknowledged');
  });

  it('a lost notification: A’s poll finds the answer B recorded and ends its wait', async () => {
    const { schema, a, b, sql } = await twoNodes(100);
    await sql.query(`ALTER TABLE ${schema}.dispatch_intents DISABLE TRIGGER dispatch_intents_answered`);
    const { intent, signal } = await dispatchedByA(a, 'r-poll');
    const outcome = await b.recourse.engine.acknowledgeDispatch({ routeId: 'r-poll', intentId: intent.id });
    expect(outcome.outcome).toBe('changed');
    await aborted(signal);
    await a.recourse.engine.idle();
    expect(await a.recourse.store.readRoute('r-poll')).toEqual(outcome.route);
  });

  it('[RTE-17] the same acknowledgement on A and B at once is recorded once; the other is the same answer, not a refusal', async () => {
    const { schema, a, b, sql } = await twoNodes(600_000);
    const { intent, signal } = await dispatchedByA(a, 'r-race');
    const before = (await a.recourse.store.readRoute('r-race'))!;
    const outcomes = await Promise.all(
      [a, b].map((n) => n.recourse.engine.acknowledgeDispatch({ routeId: 'r-race', intentId: intent.id })),
    );
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['changed', 'unchanged']);
    const repeat = outcomes.find((o) => o.outcome === 'unchanged')!;
    expect(repeat.route.dispatch).toMatchObject({ intentId: intent.id, acknowledged: true });
    // Sent once more, later, to either node: the same answer again.
    for (const n of [a, b]) {
      await expect(
        n.recourse.engine.acknowledgeDispatch({ routeId: 'r-race', intentId: intent.id }),
      ).resolves.toMatchObject({ outcome: 'unchanged' });
    }
    // Nothing was refused: no node tells its listeners (and the event stream) of a refusal.
    expect([...a.events, ...b.events].filter((e) => e.type === 'refused')).toEqual([]);
    await aborted(signal);
    await a.recourse.engine.idle();
    await b.recourse.engine.idle();
    const after = (await a.recourse.store.readRoute('r-race'))!;
    expect(after.revision).toBe(before.revision + 1);
    expect(after.dispatch).toMatchObject({ intentId: intent.id, acknowledged: true });
    expect(await intentOutcome(sql, schema, intent.id)).toBe('acknowledged');
  });

  it('[RTE-17][DUR-06] an acknowledgement of an intent already answered (ambiguous, or replaced) is refused on every node', async () => {
    const { schema, a, b, sql } = await twoNodes(600_000);
    const { intent } = await dispatchedByA(a, 'r-stale');
    // The dispatching node's wait ended first: the dispatch is stopped as ambiguous (as when its wait times out).
    await sql.query(`UPDATE ${schema}.dispatch_intents SET outcome = 'ambiguous' WHERE id = $1`, [intent.id]);
    for (const n of [a, b]) {
      const outcome = await n.recourse.engine.acknowledgeDispatch({
        routeId: 'r-stale',
        intentId: intent.id,
      });
      expect(outcome).toMatchObject({ outcome: 'refused', reason: 'stale_dispatch' });
    }
    // Another route's intent, and one never sent, are refused too, and nothing is written.
    const other = await dispatchedByA(a, 'r-other');
    for (const n of [a, b]) {
      for (const intentId of [other.intent.id, 'never-sent']) {
        const outcome = await n.recourse.engine.acknowledgeDispatch({ routeId: 'r-stale', intentId });
        expect(outcome).toMatchObject({ outcome: 'refused', reason: 'stale_dispatch' });
      }
    }
    expect(await intentOutcome(sql, schema, other.intent.id)).toBeNull();
    expect((await a.recourse.store.readRoute('r-stale'))!.dispatch).toMatchObject({ acknowledged: false });
  });

  it('a success reported on B proves delivery: A stops waiting for the acknowledgement', async () => {
    const { a, b } = await twoNodes(600_000);
    const { intent, signal } = await dispatchedByA(a, 'r-success');
    const outcome = await b.recourse.engine.reportSuccess({
      routeId: 'r-success',
      generation: intent.generation,
      invocationId: intent.id,
    });
    expect(outcome.outcome).toBe('changed');
    await aborted(signal);
    await a.recourse.engine.idle();
    expect(await a.recourse.store.readRoute('r-success')).toEqual(outcome.route);
  });
});
