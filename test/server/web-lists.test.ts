import { describe, expect, it } from 'vitest';
import { call, suiteService } from '../helpers/service.js';

type Page<K extends string> = Record<K, Record<string, unknown>[]> & { next_cursor: string | null };

/** The web UI's lists and the session document: paged, newest first, with the route's state. */
describe('session and plan lists', () => {
  const suite = suiteService({ ackTimeoutMs: 60_000 });

  it('GET /v1/sessions pages newest first with each route’s state; GET /v1/sessions/:id names the owner; the pair is checked', async () => {
    for (const id of ['l-1', 'l-2', 'l-3']) {
      const opened = await call(suite.url, 'adapter', 'POST', '/v1/sessions', {
        task_id: 't-l',
        session_id: id,
        profile_id: 'concrete-main',
        owner: 'alice',
      });
      expect(opened.status).toBe(201);
    }
    const first = (await call(suite.url, 'viewer', 'GET', '/v1/sessions?limit=2')).body as Page<'sessions'>;
    expect(first.sessions.map((s) => s.session_id)).toEqual(['l-3', 'l-2']);
    expect(first.sessions[0]).toMatchObject({
      task_id: 't-l',
      owner: 'alice',
      state: 'active',
      outcome: 'running',
    });
    const second = (
      await call(suite.url, 'viewer', 'GET', `/v1/sessions?limit=2&cursor=${first.next_cursor!}`)
    ).body as Page<'sessions'>;
    expect(second.sessions.map((s) => s.session_id)).toEqual(['l-1']);
    expect(second.next_cursor).toBeNull();
    expect((await call(suite.url, 'viewer', 'GET', '/v1/sessions?cursor=nonsense')).status).toBe(422);
    const one = await call(suite.url, 'viewer', 'GET', '/v1/sessions/l-1?task_id=t-l');
    expect(one.body).toMatchObject({
      session: { owner: 'alice', session_id: 'l-1' },
      route: { state: 'active' },
    });
    const foreign = await call(suite.url, 'viewer', 'GET', '/v1/sessions/l-1?task_id=other');
    const unknown = await call(suite.url, 'viewer', 'GET', '/v1/sessions/nobody?task_id=t-l');
    expect(foreign.status).toBe(404);
    expect(unknown).toMatchObject({ status: 404, body: foreign.body });
  });

  it('GET /v1/plans pages with error counts and the last error time', async () => {
    await call(suite.url, 'operator', 'PUT', '/v1/plans/pl-1', {});
    await call(suite.url, 'operator', 'PUT', '/v1/plans/pl-2', {});
    await call(suite.url, 'adapter', 'POST', '/v1/plans/pl-1/errors', {
      phase: 'strategize',
      message: 'timed out',
    });
    const first = (await call(suite.url, 'viewer', 'GET', '/v1/plans?limit=1')).body as Page<'plans'>;
    expect(first.plans).toHaveLength(1);
    expect(first.plans[0]).toMatchObject({ id: 'pl-1', state: 'errored', error_count: 1 });
    expect(Date.parse(String(first.plans[0]!.last_error_at))).not.toBeNaN();
    const second = (await call(suite.url, 'viewer', 'GET', `/v1/plans?cursor=${first.next_cursor!}`))
      .body as Page<'plans'>;
    expect(second.plans).toEqual([
      expect.objectContaining({ id: 'pl-2', error_count: 0, last_error_at: null }),
    ]);
  });
});
