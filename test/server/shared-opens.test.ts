import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/server/service.js';
import { dropSchemas, freshSchemaName, schemaUrl } from '../helpers/postgres.js';
import { call, policy, startTestService, tokens, type TestRole } from '../helpers/service.js';

/**
 * `POST /v1/sessions` (and `POST /v1/routes`) for one id sent several times at once: on two shared servers on one schema of the real
 * PostgreSQL, and on one server on SQLite. Each open passed the endpoint's look-up (no session yet) and then met the
 * winner's row at its INSERT: the database's duplicate-key error, a 500. One opens it; the others are
 * `409 session_exists`, and the winner's session and route stand.
 */
const schema = freshSchemaName();
let a: RunningService;
let b: RunningService;

const profile = {
  name: 'opens',
  candidates: [{ profile_id: 'only', provider: 'opens-one', policy: policy(3, 600, 'stop') }],
};

beforeAll(async () => {
  const node = (nodeId: string) =>
    startService({
      port: 0,
      host: '127.0.0.1',
      databaseUrl: schemaUrl(schema),
      shared: { nodeId },
      tokens: Object.entries(tokens).map(([role, token]) => ({ role: role as TestRole, token })),
      version: 'test',
      logLevel: 'silent',
    });
  a = await node('node-a');
  b = await node('node-b');
  expect((await call(a.url, 'admin', 'PUT', '/v1/profiles/opens', profile)).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await dropSchemas([schema]);
}, 60_000);

const open = (base: string, sessionId: string) =>
  call(base, 'adapter', 'POST', '/v1/sessions', {
    task_id: 'task-1',
    session_id: sessionId,
    profile_id: 'opens',
    owner: 'orchestrator-1',
  });

/** One open answered 201, the others 409 session_exists; the session and its route are there. */
async function oneOpened(bases: readonly string[], sessionId: string) {
  const answers = await Promise.all(bases.map((base) => open(base, sessionId)));
  const statuses = answers.map((x) => x.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(1);
  expect(statuses.filter((s) => s !== 201)).toEqual(new Array<number>(bases.length - 1).fill(409));
  for (const refused of answers.filter((x) => x.status === 409))
    expect(refused.body).toMatchObject({ error: { code: 'session_exists' } });
  const read = await call(bases[0]!, 'viewer', 'GET', `/v1/sessions/${sessionId}?task_id=task-1`);
  expect(read.status).toBe(200);
  const route = await call(
    bases[0]!,
    'viewer',
    'GET',
    `/v1/routes/${encodeURIComponent(`session:${sessionId}`)}`,
  );
  expect(route.status).toBe(200);
}

describe('one session opened several times at once', () => {
  it('on two shared PostgreSQL nodes: one opens it, the others are 409 session_exists, never a 500', async () => {
    for (let round = 0; round < 3; round++) await oneOpened([a.url, b.url, a.url, b.url], `pg-open-${round}`);
  });

  it('on one SQLite server: one opens it, the others are 409 session_exists, never a 500', async () => {
    const service = await startTestService();
    try {
      const base = service.service.url;
      expect((await call(base, 'admin', 'PUT', '/v1/profiles/opens', profile)).status).toBe(200);
      await oneOpened([base, base, base], 'sqlite-open');
    } finally {
      await service.stop();
    }
  });

  it('one route id started on two shared PostgreSQL nodes at once: one 201, the others 409 route_exists, never a 500', async () => {
    for (let round = 0; round < 3; round++) {
      const routeId = `pg-start-${round}`;
      const answers = await Promise.all(
        [a.url, b.url, a.url, b.url].map((base) =>
          call(base, 'adapter', 'POST', '/v1/routes', { route_id: routeId, profile_id: 'opens' }),
        ),
      );
      const statuses = answers.map((x) => x.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s !== 201)).toEqual([409, 409, 409]);
      for (const refused of answers.filter((x) => x.status === 409))
        expect(refused.body).toMatchObject({ error: { code: 'route_exists' } });
      expect((await call(b.url, 'viewer', 'GET', `/v1/routes/${routeId}`)).status).toBe(200);
    }
  });
});
