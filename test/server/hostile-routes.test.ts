import { describe, expect, it } from 'vitest';
import type { RouteDocument } from '../../src/server/route-document.js';
import { call, overloaded, policy, startTestService } from '../helpers/service.js';

/**
 * Route actions over HTTP as a hostile client sends them: racing clients on one generation, a dispatch id from
 * before a restart, and actions after a route was purged. A real service on a real SQLite file, restarted on it.
 */
type Answer = { result?: string; route: RouteDocument; error?: { code: string } };

async function profileAndRoute(url: string, routeId: string): Promise<RouteDocument> {
  const saved = await call(url, 'admin', 'PUT', '/v1/profiles/p', {
    name: 'p',
    candidates: [
      { profile_id: 'a', provider: 'one', policy: policy(3, 3600, 'skip') },
      { profile_id: 'b', provider: 'two', policy: policy(1, 3600, 'stop') },
    ],
  });
  expect([200, 201]).toContain(saved.status);
  const started = await call(url, 'adapter', 'POST', '/v1/routes', { route_id: routeId, profile_id: 'p' });
  expect(started.status).toBe(201);
  return started.body as RouteDocument;
}

describe('route actions over HTTP', () => {
  it('[RTE-17][DUR-06] a dispatch id from before a restart is 409 stale_dispatch; four actions racing one generation: one 200, three 409', async () => {
    const first = await startTestService({ ackTimeoutMs: 60_000 });
    const route = await profileAndRoute(first.service.url, 'r1');
    // Stopped before the acknowledgement arrived: the restart cannot know whether the attempt was delivered.
    await first.service.close();
    const second = await startTestService({ database: first.database, ackTimeoutMs: 60_000 });
    try {
      const url = second.service.url;
      const late = await call(url, 'adapter', 'POST', `/v1/routes/r1/dispatches/${route.dispatch!.id}/ack`);
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({
        error: { code: 'stale_dispatch' },
        route: { state: 'action_required', reason: 'ambiguous_dispatch' },
      });
      const retried = await call(url, 'operator', 'POST', '/v1/routes/r1/actions', {
        action: 'retry_now',
        expected_generation: 1,
      });
      expect(retried.status).toBe(200);
      const retrying = (retried.body as Answer).route;
      const acked = await call(
        url,
        'adapter',
        'POST',
        `/v1/routes/r1/dispatches/${retrying.dispatch!.id}/ack`,
      );
      expect(acked.status).toBe(200);
      const failed = await call(url, 'adapter', 'POST', '/v1/routes/r1/evidence', {
        envelope: overloaded,
        generation: retrying.generation,
        invocation_id: retrying.dispatch!.id,
        replay: {},
      });
      const waiting = (failed.body as Answer).route;
      expect(waiting).toMatchObject({ state: 'retry_wait', generation: 2 });
      const answers = await Promise.all(
        ['skip_now', 'skip_now', 'retry_now', 'cancel'].map((action) =>
          call(url, 'operator', 'POST', '/v1/routes/r1/actions', { action, expected_generation: 2 }),
        ),
      );
      const won = answers.filter((a) => a.status === 200);
      expect(won).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409)).toHaveLength(3);
      const after = (won[0]!.body as Answer).route;
      for (const lost of answers.filter((a) => a.status === 409)) {
        expect(['stale_generation', 'stale_state', 'not_allowed']).toContain(
          (lost.body as Answer).error!.code,
        );
      }
      const read = await call(url, 'viewer', 'GET', '/v1/routes/r1');
      expect((read.body as RouteDocument).state).toBe(after.state);
    } finally {
      await second.stop();
      await first.stop();
    }
  });

  it('[RTE-19] actions and reports on a purged route are 404; its id starts again one generation on, so an action fenced on the purged route is stale', async () => {
    const service = await startTestService({ ackTimeoutMs: 60_000 });
    try {
      const url = service.service.url;
      const route = await profileAndRoute(url, 'gone');
      await call(url, 'adapter', 'POST', `/v1/routes/gone/dispatches/${route.dispatch!.id}/ack`);
      const done = await call(url, 'adapter', 'POST', '/v1/routes/gone/success', {
        generation: 1,
        invocation_id: route.dispatch!.id,
      });
      expect(done.status).toBe(200);
      const purged = await call(url, 'admin', 'POST', '/v1/routes/purge', {
        finished_before: new Date(Date.now() + 60_000).toISOString(),
      });
      expect(purged.body).toMatchObject({ purged: 1 });
      for (const action of ['retry_now', 'skip_now', 'cancel', 'stop']) {
        const answer = await call(url, 'operator', 'POST', '/v1/routes/gone/actions', {
          action,
          expected_generation: 1,
        });
        expect(answer.status, action).toBe(404);
      }
      const ack = await call(url, 'adapter', 'POST', `/v1/routes/gone/dispatches/${route.dispatch!.id}/ack`);
      expect(ack.status).toBe(404);
      const again = await call(url, 'adapter', 'POST', '/v1/routes', { route_id: 'gone', profile_id: 'p' });
      expect(again.status).toBe(201);
      expect(again.body).toMatchObject({ generation: 2, state: 'active' });
      expect((again.body as RouteDocument).dispatch!.id).not.toBe(route.dispatch!.id);
      // An operator still holding the purged route's generation: refused, the new route unchanged.
      const late = await call(url, 'operator', 'POST', '/v1/routes/gone/actions', {
        action: 'stop',
        expected_generation: 1,
      });
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({
        error: { code: 'stale_generation' },
        route: { state: 'active', generation: 2 },
      });
    } finally {
      await service.stop();
    }
  });
});
