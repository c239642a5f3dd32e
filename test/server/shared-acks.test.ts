import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDocument } from '../../src/server/route-document.js';
import { startService, type RunningService } from '../../src/server/service.js';
import { dropSchemas, freshSchemaName, schemaUrl } from '../helpers/postgres.js';
import { call, overloaded, policy, tokens, type TestRole } from '../helpers/service.js';

/**
 * `POST /v1/routes/{id}/dispatches/{dispatch_id}/ack` on two shared servers on one schema of the real PostgreSQL:
 * an orchestrator behind a load balancer acknowledges on whichever node it reaches. The node that sent the
 * dispatch waits for the acknowledgement a minute, so every answer here is the other node's record, not a timeout.
 */
type RouteAnswer = { result: string; route: RouteDocument; error?: { code: string } };

const schema = freshSchemaName();
let a: RunningService;
let b: RunningService;

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
      ackTimeoutMs: 60_000,
    });
  a = await node('node-a');
  b = await node('node-b');
  const saved = await call(a.url, 'admin', 'PUT', '/v1/profiles/acks', {
    name: 'acks',
    candidates: [{ profile_id: 'only', provider: 'acks-one', policy: policy(3, 600, 'stop') }],
  });
  expect(saved.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await dropSchemas([schema]);
}, 60_000);

const ackPath = (routeId: string, dispatchId: string) =>
  `/v1/routes/${encodeURIComponent(routeId)}/dispatches/${encodeURIComponent(dispatchId)}/ack`;

/** A route started on node A: A sent its initial dispatch and waits for the acknowledgement. */
async function startedOnA(routeId: string): Promise<RouteDocument> {
  const started = await call(a.url, 'adapter', 'POST', '/v1/routes', {
    route_id: routeId,
    profile_id: 'acks',
  });
  expect(started.status).toBe(201);
  return started.body as RouteDocument;
}

async function ack(node: RunningService, routeId: string, dispatchId: string) {
  const answer = await call(node.url, 'adapter', 'POST', ackPath(routeId, dispatchId));
  return { status: answer.status, body: answer.body as RouteAnswer };
}

describe('acknowledgements on any node (two shared servers)', () => {
  it('[DUR-06] an acknowledgement sent to B for A’s dispatch is recorded once; sent again to either node, unchanged', async () => {
    const route = await startedOnA('http-ack-b');
    const first = await ack(b, route.id, route.dispatch!.id);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      result: 'acknowledged',
      route: { state: 'active', revision: route.revision + 1, dispatch: { acknowledged: true } },
    });
    for (const node of [a, b]) {
      const again = await ack(node, route.id, route.dispatch!.id);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ result: 'unchanged', route: { revision: route.revision + 1 } });
    }
    // A stopped waiting for it: the acknowledgement stands, A never takes the dispatch for ambiguous.
    await a.recourse.engine.idle();
    const read = await call(a.url, 'viewer', 'GET', `/v1/routes/${route.id}`);
    expect(read.body).toMatchObject({ state: 'active', revision: route.revision + 1 });
  });

  it('[RTE-17] the same acknowledgement sent to A and B at once is recorded once', async () => {
    const route = await startedOnA('http-ack-race');
    const answers = await Promise.all([a, b].map((node) => ack(node, route.id, route.dispatch!.id)));
    expect(answers.map((x) => x.status)).toEqual([200, 200]);
    expect(answers.map((x) => x.body.result).sort()).toEqual(['acknowledged', 'unchanged']);
    for (const answer of answers) expect(answer.body.route.revision).toBe(route.revision + 1);
  });

  it('[RTE-17][DUR-06] an acknowledgement of a replaced dispatch (an earlier attempt) is 409 stale_dispatch on both nodes', async () => {
    const route = await startedOnA('http-ack-stale');
    expect((await ack(a, route.id, route.dispatch!.id)).status).toBe(200);
    const failed = await call(a.url, 'adapter', 'POST', `/v1/routes/${route.id}/evidence`, {
      envelope: overloaded,
      generation: route.generation,
      invocation_id: route.dispatch!.id,
      replay: {},
    });
    expect((failed.body as RouteAnswer).route.state).toBe('retry_wait');
    const waiting = (failed.body as RouteAnswer).route;
    const retried = await call(b.url, 'operator', 'POST', `/v1/routes/${route.id}/actions`, {
      action: 'retry_now',
      expected_generation: waiting.generation,
    });
    const retrying = (retried.body as RouteAnswer).route;
    expect(retrying.dispatch!.id).not.toBe(route.dispatch!.id);
    for (const node of [a, b]) {
      const stale = await ack(node, route.id, route.dispatch!.id);
      expect(stale.status).toBe(409);
      expect(stale.body.error!.code).toBe('stale_dispatch');
      expect(stale.body.route.dispatch).toMatchObject({ id: retrying.dispatch!.id, acknowledged: false });
    }
    // The retry B sent is acknowledged on A.
    const current = await ack(a, route.id, retrying.dispatch!.id);
    expect(current.body).toMatchObject({ result: 'acknowledged', route: { state: 'retrying' } });
  });
});
