import { describe, expect, it } from 'vitest';
import { call, suiteService } from '../helpers/service.js';

interface SessionItem {
  task_id: string;
  session_id: string;
  profile_id: string | null;
  owner: string;
  route_id: string;
  state: string | null;
  outcome: string | null;
  updated_at: string;
}
interface PlanItem {
  id: string;
  phase: string;
  state: string;
  error_count: number;
  last_error_at: string | null;
  updated_at: string;
}

/** The web UI's lists: task sessions and plans, newest first, a page at a time. */
describe('lists of task sessions and plans', () => {
  const live = suiteService({ webRoot: null, ackTimeoutMs: 60_000 });
  const sessionsPage = (query: string) => call(live.url, 'viewer', 'GET', `/v1/sessions${query}`);
  const plansPage = (query: string) => call(live.url, 'viewer', 'GET', `/v1/plans${query}`);

  it('GET /v1/sessions pages newest first with the route’s state; a stale or foreign cursor is 422', async () => {
    for (const id of ['s-a', 's-b', 's-c']) {
      const opened = await call(live.url, 'adapter', 'POST', '/v1/sessions', {
        task_id: 'task-l',
        session_id: id,
        profile_id: 'concrete-main',
        owner: 'alice',
      });
      expect(opened.status).toBe(201);
    }
    const first = await sessionsPage('?limit=2');
    expect(first.status).toBe(200);
    const body = first.body as { sessions: SessionItem[]; next_cursor: string | null };
    expect(body.sessions.map((s) => s.session_id)).toEqual(['s-c', 's-b']);
    expect(body.sessions[0]).toEqual({
      task_id: 'task-l',
      session_id: 's-c',
      profile_id: 'concrete-main',
      owner: 'alice',
      route_id: expect.any(String) as string,
      state: 'active',
      outcome: expect.any(String) as string,
      updated_at: expect.stringMatching(/Z$/) as string,
    });
    expect(body.next_cursor).toEqual(expect.any(String));
    const second = await sessionsPage(`?limit=2&cursor=${body.next_cursor}`);
    const rest = second.body as { sessions: SessionItem[]; next_cursor: string | null };
    expect(rest.sessions.map((s) => s.session_id)).toEqual(['s-a']);
    expect(rest.next_cursor).toBeNull();

    // The cursor's session deleted: its position is gone, the client starts over.
    const removed = await call(live.url, 'operator', 'DELETE', '/v1/sessions/s-b?task_id=task-l');
    expect(removed.status).toBe(204);
    const stale = await sessionsPage(`?limit=2&cursor=${body.next_cursor}`);
    expect(stale.status).toBe(422);
    expect(stale.body).toMatchObject({ error: { code: 'invalid_input' }, errors: [{ path: '/cursor' }] });
    const foreign = Buffer.from(JSON.stringify(['plans', 1, 's-a'])).toString('base64url');
    for (const cursor of [foreign, 'garbage', 's-a']) {
      const answer = await sessionsPage(`?cursor=${cursor}`);
      expect(answer.status, cursor).toBe(422);
      expect(answer.body).toMatchObject({ errors: [{ path: '/cursor' }] });
    }
    for (const limit of ['0', '201', 'x']) {
      expect((await sessionsPage(`?limit=${limit}`)).status, limit).toBe(422);
    }
  });

  it('[NOT-43] GET /v1/sessions/{id} reads the pair; a foreign task id is the same 404 as an unknown session', async () => {
    const one = await call(live.url, 'viewer', 'GET', '/v1/sessions/s-a?task_id=task-l');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      task_id: 'task-l',
      session_id: 's-a',
      owner: 'alice',
      state: 'active',
      created_at: expect.stringMatching(/Z$/) as string,
      route: { profile_id: 'concrete-main', state: 'active' },
    });
    const foreign = await call(live.url, 'viewer', 'GET', '/v1/sessions/s-a?task_id=other-task');
    const unknown = await call(live.url, 'viewer', 'GET', '/v1/sessions/s-zz?task_id=task-l');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
  });

  it('GET /v1/plans pages last changed first with error counts; a plan changed since its cursor makes it stale', async () => {
    for (const id of ['plan-a', 'plan-b', 'plan-c']) {
      expect((await call(live.url, 'operator', 'PUT', `/v1/plans/${id}`, {})).status).toBe(200);
      await new Promise((r) => setTimeout(r, 5));
    }
    const recorded = await call(live.url, 'adapter', 'POST', '/v1/plans/plan-a/errors', {
      phase: 'strategize',
      message: 'the tool failed',
    });
    expect(recorded.status).toBe(200);
    const first = await plansPage('?limit=2');
    expect(first.status).toBe(200);
    const body = first.body as { plans: PlanItem[]; next_cursor: string | null };
    expect(body.plans.map((p) => p.id)).toEqual(['plan-a', 'plan-c']);
    expect(body.plans[0]).toEqual({
      id: 'plan-a',
      phase: 'strategize',
      state: expect.any(String) as string,
      error_count: 1,
      last_error_at: expect.stringMatching(/Z$/) as string,
      updated_at: expect.stringMatching(/Z$/) as string,
    });
    expect(body.plans[1]).toMatchObject({ id: 'plan-c', error_count: 0, last_error_at: null });
    const second = await plansPage(`?limit=2&cursor=${body.next_cursor}`);
    expect((second.body as { plans: PlanItem[] }).plans.map((p) => p.id)).toEqual(['plan-b']);
    expect((second.body as { next_cursor: unknown }).next_cursor).toBeNull();

    // plan-c changed: it moved to the top, so a page after its old position would be wrong.
    await new Promise((r) => setTimeout(r, 5));
    expect((await call(live.url, 'operator', 'PUT', '/v1/plans/plan-c', { max_retries: 2 })).status).toBe(
      200,
    );
    const stale = await plansPage(`?limit=2&cursor=${body.next_cursor}`);
    expect(stale.status).toBe(422);
    expect(stale.body).toMatchObject({ errors: [{ path: '/cursor' }] });
    const sessionsCursor = Buffer.from(JSON.stringify(['sessions', 1, 'plan-b'])).toString('base64url');
    expect((await plansPage(`?cursor=${sessionsCursor}`)).status).toBe(422);
  });
});
