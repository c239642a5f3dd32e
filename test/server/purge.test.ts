import { describe, expect, it } from 'vitest';
import type { RouteDocument } from '../../src/server/route-document.js';
import { call, overloaded, policy, suiteService, tokens } from '../helpers/service.js';
import { followEvents } from '../helpers/sse.js';

/**
 * Route retention over HTTP against a real server on a real SQLite file: `POST /v1/routes/purge` deletes routes
 * that wait for nothing, so a profile they named can be deleted and a deleted session's id opened again.
 */
const suite = suiteService({ ackTimeoutMs: 60_000 });
const farFuture = '2999-01-01T00:00:00Z';

async function saveProfile(id: string): Promise<void> {
  const saved = await call(suite.url, 'admin', 'PUT', `/v1/profiles/${id}`, {
    name: `Profile ${id}`,
    candidates: [{ profile_id: 'only', provider: `${id}-provider`, policy: policy(3, 5, 'stop') }],
  });
  expect(saved.status).toBe(200);
}

/** A route whose first turn answered: `active`, succeeded, waiting for nothing. */
async function finishedRoute(id: string, profileId: string): Promise<RouteDocument> {
  const started = await call(suite.url, 'adapter', 'POST', '/v1/routes', {
    route_id: id,
    profile_id: profileId,
  });
  expect(started.status).toBe(201);
  const route = started.body as RouteDocument;
  await call(suite.url, 'adapter', 'POST', `/v1/routes/${id}/dispatches/${route.dispatch!.id}/ack`);
  const done = await call(suite.url, 'adapter', 'POST', `/v1/routes/${id}/success`, {
    generation: route.generation,
    invocation_id: route.dispatch!.id,
  });
  expect(done.body).toMatchObject({ route: { state: 'active', outcome: 'succeeded' } });
  return (done.body as { route: RouteDocument }).route;
}

/** A route waiting for its retry: it waits for something, and no purge takes it. */
async function waitingRoute(id: string, profileId: string): Promise<void> {
  const started = await call(suite.url, 'adapter', 'POST', '/v1/routes', {
    route_id: id,
    profile_id: profileId,
  });
  const route = started.body as RouteDocument;
  await call(suite.url, 'adapter', 'POST', `/v1/routes/${id}/dispatches/${route.dispatch!.id}/ack`);
  const failed = await call(suite.url, 'adapter', 'POST', `/v1/routes/${id}/evidence`, {
    envelope: overloaded,
    generation: route.generation,
    invocation_id: route.dispatch!.id,
    replay: {},
  });
  expect((failed.body as { route: RouteDocument }).route.state).toBe('retry_wait');
}

describe('route retention', () => {
  it('only an admin purges; a bad instant or limit is refused by field and purges nothing', async () => {
    await saveProfile('p-refuse');
    await finishedRoute('r-refuse', 'p-refuse');
    for (const role of ['operator', 'viewer', 'adapter'] as const) {
      expect(
        (await call(suite.url, role, 'POST', '/v1/routes/purge', { finished_before: farFuture })).status,
      ).toBe(403);
    }
    for (const [body, path] of [
      [{ finished_before: 'yesterday' }, 'finished_before'],
      [{ finished_before: '2026-06-01T12:00:00' }, 'finished_before'],
      [{ finished_before: 1_700_000_000_000 }, 'finished_before'],
      [{}, 'finished_before'],
      [{ finished_before: farFuture, limit: 0 }, 'limit'],
      [{ finished_before: farFuture, limit: 1.5 }, 'limit'],
      [{ finished_before: farFuture, extra: true }, ''],
    ] as const) {
      const refused = await call(suite.url, 'admin', 'POST', '/v1/routes/purge', body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(JSON.stringify(refused.body)).toContain(path);
    }
    expect((await call(suite.url, 'viewer', 'GET', '/v1/routes/r-refuse')).status).toBe(200);
  });

  it('a purge takes the routes that wait for nothing and last changed before the instant, then the profile can go', async () => {
    await saveProfile('p-purge');
    await finishedRoute('r-old', 'p-purge');
    await waitingRoute('r-waiting', 'p-purge');
    // An instant in the past: nothing changed before it.
    const past = await call(suite.url, 'admin', 'POST', '/v1/routes/purge', {
      finished_before: '2020-01-01T00:00:00Z',
    });
    expect(past.body).toEqual({ purged: 0, limit: 1000 });
    const busy = await call(suite.url, 'admin', 'DELETE', '/v1/profiles/p-purge');
    expect(busy.status).toBe(409);
    expect(JSON.stringify(busy.body)).toContain('recourse routes purge');

    const purged = await call(suite.url, 'admin', 'POST', '/v1/routes/purge', { finished_before: farFuture });
    expect(purged.status).toBe(200);
    expect((purged.body as { purged: number }).purged).toBeGreaterThanOrEqual(1);
    expect((await call(suite.url, 'viewer', 'GET', '/v1/routes/r-old')).status).toBe(404);
    expect((await call(suite.url, 'viewer', 'GET', '/v1/routes/r-waiting')).status).toBe(200);

    // The waiting route still names the profile; stopped, it waits for nothing and goes too.
    const waiting = (await call(suite.url, 'viewer', 'GET', '/v1/routes/r-waiting')).body as RouteDocument;
    const stopped = await call(suite.url, 'operator', 'POST', '/v1/routes/r-waiting/actions', {
      action: 'stop',
      expected_generation: waiting.generation,
    });
    expect(stopped.status).toBe(200);
    await call(suite.url, 'admin', 'POST', '/v1/routes/purge', { finished_before: farFuture });
    expect((await call(suite.url, 'viewer', 'GET', '/v1/routes/r-waiting')).status).toBe(404);
    expect((await call(suite.url, 'admin', 'DELETE', '/v1/profiles/p-purge')).status).toBe(204);
  });

  it('a purge is told on the live stream (route.purged with the ids), so an open page drops the rows; a waiting route is not named', async () => {
    await saveProfile('p-told');
    for (const id of ['told-1', 'told-2']) await finishedRoute(id, 'p-told');
    await waitingRoute('told-waiting', 'p-told');
    const stream = followEvents(`${suite.url}/v1/events`, { authorization: `Bearer ${tokens.viewer}` });
    await new Promise((r) => setTimeout(r, 200));
    const purged = await call(suite.url, 'admin', 'POST', '/v1/routes/purge', { finished_before: farFuture });
    expect((purged.body as { purged: number }).purged).toBeGreaterThanOrEqual(2);
    await stream.waitFor((events) => events.some((e) => e.event === 'route.purged'));
    stream.close();
    const told = stream.events
      .filter((e) => e.event === 'route.purged')
      .flatMap((e) => (JSON.parse(e.data) as { route_ids: string[] }).route_ids);
    expect(told).toEqual(expect.arrayContaining(['told-1', 'told-2']));
    expect(told).not.toContain('told-waiting');
    expect(told).toHaveLength((purged.body as { purged: number }).purged);
  });

  it('a batch smaller than what is due purges at most the limit, and the next call takes the rest', async () => {
    await saveProfile('p-batch');
    for (const id of ['b-1', 'b-2', 'b-3']) await finishedRoute(id, 'p-batch');
    const first = await call(suite.url, 'admin', 'POST', '/v1/routes/purge', {
      finished_before: farFuture,
      limit: 2,
    });
    expect(first.body).toEqual({ purged: 2, limit: 2 });
    const second = await call(suite.url, 'admin', 'POST', '/v1/routes/purge', {
      finished_before: farFuture,
      limit: 2,
    });
    expect((second.body as { purged: number }).purged).toBeGreaterThanOrEqual(1);
    for (const id of ['b-1', 'b-2', 'b-3'])
      expect((await call(suite.url, 'viewer', 'GET', `/v1/routes/${id}`)).status).toBe(404);
  });

  it('routes stopped while their attempt runs do not use up a batch: the purgeable route behind them goes', async () => {
    await saveProfile('p-stuck');
    // Stopped while their first attempt runs (never acknowledged, never answered): they wait for that answer.
    for (const id of ['stuck-1', 'stuck-2']) {
      const started = await call(suite.url, 'adapter', 'POST', '/v1/routes', {
        route_id: id,
        profile_id: 'p-stuck',
      });
      const stopped = await call(suite.url, 'operator', 'POST', `/v1/routes/${id}/actions`, {
        action: 'stop',
        expected_generation: (started.body as RouteDocument).generation,
      });
      expect((stopped.body as { route: RouteDocument }).route.state).toBe('action_required');
    }
    await finishedRoute('after-stuck', 'p-stuck');
    const batch = await call(suite.url, 'admin', 'POST', '/v1/routes/purge', {
      finished_before: farFuture,
      limit: 1,
    });
    expect(batch.body).toEqual({ purged: 1, limit: 1 });
    expect((await call(suite.url, 'viewer', 'GET', '/v1/routes/after-stuck')).status).toBe(404);
    for (const id of ['stuck-1', 'stuck-2'])
      expect((await call(suite.url, 'viewer', 'GET', `/v1/routes/${id}`)).status).toBe(200);
  });
});

describe('task session ids', () => {
  const open = (sessionId: string) =>
    call(suite.url, 'adapter', 'POST', '/v1/sessions', {
      task_id: 'task-p',
      session_id: sessionId,
      profile_id: 'concrete-main',
      owner: 'alice',
    });

  it('a plain route may not take a session route id, so it cannot keep a session from opening', async () => {
    await saveProfile('p-squat');
    for (const [body, path] of [
      [{ route_id: 'session:s-squat', profile_id: 'p-squat' }, '/route_id'],
      [{ session_id: 'session:s-squat', profile_id: 'p-squat' }, '/session_id'],
    ] as const) {
      const refused = await call(suite.url, 'adapter', 'POST', '/v1/routes', body);
      expect(refused.status).toBe(422);
      expect(JSON.stringify(refused.body)).toContain(path);
      expect(JSON.stringify(refused.body)).toContain('task sessions');
    }
    expect((await open('s-squat')).status).toBe(201);
  });

  it('a deleted session’s id opens again, on a fresh route', async () => {
    const first = await open('s-again');
    expect(first.status).toBe(201);
    const route = (first.body as { route: RouteDocument }).route;
    await call(
      suite.url,
      'adapter',
      'POST',
      `/v1/routes/${encodeURIComponent(route.id)}/dispatches/${route.dispatch!.id}/ack`,
    );
    await call(suite.url, 'adapter', 'POST', '/v1/sessions/s-again/evidence', {
      task_id: 'task-p',
      envelope: overloaded,
      invocation_id: route.dispatch!.id,
      replay: {},
    });
    expect((await call(suite.url, 'operator', 'DELETE', '/v1/sessions/s-again?task_id=task-p')).status).toBe(
      204,
    );
    const again = await open('s-again');
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    const fresh = (again.body as { route: RouteDocument }).route;
    expect(fresh.id).toBe(route.id);
    expect(fresh.dispatch!.id).not.toBe(route.dispatch!.id);
    const attempts = await call(
      suite.url,
      'viewer',
      'GET',
      `/v1/routes/${encodeURIComponent(fresh.id)}/attempts`,
    );
    expect((attempts.body as { attempts: unknown[] }).attempts).toEqual([]);
  });

  it('a session deleted while its attempt ran keeps its route until the attempt answers; then its id opens again', async () => {
    const first = await open('s-running');
    const route = (first.body as { route: RouteDocument }).route;
    const path = `/v1/routes/${encodeURIComponent(route.id)}`;
    await call(suite.url, 'adapter', 'POST', `${path}/dispatches/${route.dispatch!.id}/ack`);
    expect(
      (await call(suite.url, 'operator', 'DELETE', '/v1/sessions/s-running?task_id=task-p')).status,
    ).toBe(204);
    // The attempt runs on: its route stays, and the id is not free yet.
    expect((await call(suite.url, 'viewer', 'GET', path)).status).toBe(200);
    const early = await open('s-running');
    expect(early.status).toBe(409);
    expect((await call(suite.url, 'viewer', 'GET', '/v1/sessions/s-running?task_id=task-p')).status).toBe(
      404,
    );
    // The attempt answers: the orphaned route waits for nothing, and opening the id again replaces it.
    const answered = await call(suite.url, 'adapter', 'POST', `${path}/success`, {
      generation: route.generation,
      invocation_id: route.dispatch!.id,
    });
    expect(answered.status).toBe(200);
    const again = await open('s-running');
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect((again.body as { route: RouteDocument }).route.dispatch!.id).not.toBe(route.dispatch!.id);
  });
});
