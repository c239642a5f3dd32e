import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDocument } from '../../src/server/route-document.js';
import { dropSchemas, freshSchemaName, schemaUrl, testDatabaseUrl } from '../helpers/postgres.js';
import { call, overloaded, policy, tokens } from '../helpers/service.js';
import { followEvents, type SseEvent } from '../helpers/sse.js';
import { runCliAsync, startCli } from './run-cli.js';

/**
 * Two `recourse serve --shared` processes (the built CLI, real HTTP servers) on one schema of the real PostgreSQL:
 * each node's event stream carries every node's events, and `Last-Event-ID` taken on one node resumes on the other
 * with no gap and no duplicate. The log itself is the reference: its ids are read from the schema.
 */
const schemas: string[] = [];
/** What a test started (streams, processes), stopped after it; the two nodes of the file live until its end. */
const stops: (() => Promise<void>)[] = [];
const stopNodes: (() => Promise<void>)[] = [];
const stopAll = async (list: (() => Promise<void>)[]) => {
  for (const stop of list.splice(0).reverse()) await stop();
};
// Starting and stopping a node takes seconds on a loaded machine: the hooks get the time a node start needs.
afterEach(() => stopAll(stops), 60_000);
afterAll(async () => {
  await stopAll(stopNodes);
  await dropSchemas(schemas);
}, 60_000);

const env = {
  RECOURSE_TOKENS: Object.entries(tokens)
    .map(([role, token]) => `${role}:${token}`)
    .join(','),
};
const auth = { authorization: `Bearer ${tokens.viewer}` };

function freshUrl(): { url: string; schema: string } {
  const schema = freshSchemaName();
  schemas.push(schema);
  return { url: schemaUrl(schema), schema };
}

/** Each node's ready line, by its URL. */
const readyLines = new Map<string, string>();

async function node(url: string, args: string[], until = stops): Promise<string> {
  const child = startCli(
    ['serve', '--port', '0', '--log-level', 'silent', '--database-url', url, ...args],
    env,
  );
  until.push(async () => {
    child.process.kill('SIGTERM');
    await child.exited;
  });
  await child.waitFor((out) => out.includes('listening on'), 60_000);
  const base = /listening on (http:\/\/\S+)/.exec(child.stdout())![1]!;
  readyLines.set(base, child.lines()[0]!);
  return base;
}

/**
 * The file's two shared nodes on one fresh schema (tests use route ids of their own), each with a profile that
 * waits ten minutes before retrying: `pa` and `pb` name different providers, so routes failing on both nodes at
 * once do not open the same circuit (shared circuits are not this file's subject).
 */
let a = '';
let b = '';
let schema = '';
beforeAll(async () => {
  const fresh = freshUrl();
  schema = fresh.schema;
  a = await node(fresh.url, ['--shared', '--node-id', 'node-a'], stopNodes);
  b = await node(fresh.url, ['--shared', '--node-id', 'node-b'], stopNodes);
  for (const [id, provider] of [
    ['pa', 'made-up-a'],
    ['pb', 'made-up-b'],
  ] as const) {
    const put = await call(a, 'admin', 'PUT', `/v1/profiles/${id}`, {
      name: id,
      candidates: [{ profile_id: 'only', provider, policy: policy(3, 600, 'stop') }],
    });
    expect(put.status).toBe(200);
  }
}, 180_000);

/**
 * A route started, acknowledged, failed once and cancelled, all through one node's API (the node that dispatched
 * is the one waiting for the acknowledgement): transitions active, retry_wait, action_required.
 */
async function churn(base: string, id: string): Promise<void> {
  const profile = base === a ? 'pa' : 'pb';
  const started = await call(base, 'adapter', 'POST', '/v1/routes', { route_id: id, profile_id: profile });
  expect(started.status).toBe(201);
  const intent = (started.body as RouteDocument).dispatch!.id;
  expect((await call(base, 'adapter', 'POST', `/v1/routes/${id}/dispatches/${intent}/ack`)).status).toBe(200);
  const failed = await call(base, 'adapter', 'POST', `/v1/routes/${id}/evidence`, {
    envelope: overloaded,
    generation: 1,
    invocation_id: intent,
    replay: {},
  });
  expect(failed.status).toBe(200);
  const cancelled = await call(base, 'operator', 'POST', `/v1/routes/${id}/actions`, {
    action: 'cancel',
    expected_generation: 1,
  });
  expect(cancelled.status).toBe(200);
}

const transitionsOf = (events: readonly SseEvent[], id: string) =>
  events
    .filter((e) => e.event === 'route.transition')
    .map((e) => (JSON.parse(e.data) as { route: RouteDocument }).route)
    .filter((route) => route.id === id)
    .map((route) => route.state);

const stopped = (id: string) => (events: SseEvent[]) => transitionsOf(events, id).includes('action_required');
const idsOf = (events: readonly SseEvent[]) => events.filter((e) => e.id !== null).map((e) => Number(e.id));

/** Every id the schema's log holds, in order, from the database itself. */
async function loggedIds(schema: string, afterId = 0): Promise<number[]> {
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    const rows = await client.query<{ id: string }>(
      `SELECT id FROM ${schema}.events WHERE id > $1 ORDER BY id`,
      [afterId],
    );
    return rows.rows.map((r) => Number(r.id));
  } finally {
    await client.end();
  }
}

function follow(base: string, lastEventId?: number) {
  const stream = followEvents(
    `${base}/v1/events`,
    lastEventId === undefined ? auth : { ...auth, 'last-event-id': String(lastEventId) },
  );
  stops.push(async () => {
    stream.close();
    await stream.ended;
  });
  return stream;
}

describe('recourse serve --shared: events on every node', () => {
  it('a client on node B sees a transition made through node A; resumed on node A with B’s last id: no gap, no duplicate', async () => {
    const start = (await loggedIds(schema)).at(-1) ?? 0;
    await churn(a, 'early');
    // From before the first route: the backlog, then live events as node A makes them.
    const onB = follow(b, start);
    await onB.waitFor(stopped('early'));
    await churn(a, 'live');
    await onB.waitFor(stopped('live'));
    expect(transitionsOf(onB.events, 'live')).toEqual(['active', 'retry_wait', 'action_required']);
    onB.close();
    await onB.ended;
    const lastOnB = idsOf(onB.events).at(-1)!;

    // While no client listens, both nodes make transitions; the client comes back on the other node.
    await churn(b, 'away-b');
    await churn(a, 'away-a');
    const onA = follow(a, lastOnB);
    await onA.waitFor((events) => stopped('away-b')(events) && stopped('away-a')(events));
    expect(transitionsOf(onA.events, 'away-b')).toEqual(['active', 'retry_wait', 'action_required']);
    const seen = [...idsOf(onB.events), ...idsOf(onA.events)];
    const logged = await loggedIds(schema, start);
    expect(seen).toEqual(logged.slice(0, seen.length));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(4 * 4);
  });

  it('both nodes writing at once: a client on either node gets every event id exactly once, in order', async () => {
    const start = (await loggedIds(schema)).at(-1) ?? 0;
    const onA = follow(a, start);
    const onB = follow(b, start);
    const routes = Array.from({ length: 10 }, (_, i) => `r${i}`);
    await Promise.all(routes.map((id, i) => churn(i % 2 === 0 ? a : b, id)));
    const all = (events: SseEvent[]) => routes.every((id) => stopped(id)(events));
    await onA.waitFor(all);
    await onB.waitFor(all);
    const logged = await loggedIds(schema, start);
    for (const stream of [onA, onB]) {
      const ids = idsOf(stream.events);
      expect(ids).toEqual(logged.slice(0, ids.length));
      expect(ids.length).toBeGreaterThanOrEqual(routes.length * 4);
    }
    for (const id of routes) {
      expect(transitionsOf(onA.events, id)).toEqual(['active', 'retry_wait', 'action_required']);
      expect(transitionsOf(onB.events, id)).toEqual(['active', 'retry_wait', 'action_required']);
    }
  });

  it('a Last-Event-ID past the schema’s log (another schema’s, made up) or not a number gets reload on every node', async () => {
    await churn(a, 'one');
    const newest = (await loggedIds(schema)).at(-1)!;
    for (const base of [a, b]) {
      for (const [id, reason] of [
        [String(newest + 1_000), 'unknown_event_id'],
        ['not-a-number', 'unknown_event_id'],
      ] as const) {
        const stream = followEvents(`${base}/v1/events`, { ...auth, 'last-event-id': id });
        await stream.ended;
        expect(stream.events.map((e) => e.event)).toEqual(['reload']);
        expect(JSON.parse(stream.events[0]!.data)).toMatchObject({ reason });
      }
    }
  });

  it('--shared needs a PostgreSQL URL, --node-id needs --shared and a plain name: usage errors (exit 2)', async () => {
    const bare = await runCliAsync(['serve', '--port', '0', '--shared'], env);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toBe(
      'recourse serve: --shared needs --database-url (or RECOURSE_DATABASE_URL): shared nodes meet in one PostgreSQL schema\n',
    );
    const { url } = freshUrl();
    const alone = await runCliAsync(['serve', '--port', '0', '--database-url', url, '--node-id', 'n1'], env);
    expect(alone.status).toBe(2);
    expect(alone.stderr).toBe('recourse serve: --node-id names a node of --shared: give --shared too\n');
    const badId = await runCliAsync(
      ['serve', '--port', '0', '--database-url', url, '--shared', '--node-id', 'a b'],
      env,
    );
    expect(badId.status).toBe(2);
    expect(badId.stderr).toBe(
      'recourse serve: --node-id must be 1 to 64 letters, digits, ".", "_" or "-" (got "a b")\n',
    );
  });

  it('a shared node beside a single engine on the same schema exits 1 naming it; shared nodes print their ids', async () => {
    expect(readyLines.get(a)).toMatch(/^Recourse is listening on .+\(database .+, shared node node-a\)$/);
    expect(readyLines.get(b)).toMatch(/, shared node node-b\)$/);
    const { url } = freshUrl();
    await node(url, []);
    const beside = await runCliAsync(['serve', '--port', '0', '--database-url', url, '--shared'], env);
    expect(beside.status).toBe(1);
    expect(beside.stderr).toMatch(
      /^recourse serve: schema recourse_test_\w+ of .+ is open in a single-node Recourse: stop it before starting shared nodes\n$/,
    );
  });
});
