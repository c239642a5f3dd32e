import { describe, expect, it } from 'vitest';
import type { RouteDocument } from '../../src/server/route-document.js';
import { call, overloaded, policy, suiteService } from '../helpers/service.js';

/**
 * The HTTP API against a real server on a real SQLite file, over real HTTP. The server dispatches to an
 * orchestrator that acknowledges through the ack route (no webhook: it follows `route.dispatch` events), so these
 * tests acknowledge dispatches themselves where a route needs it.
 */
type RouteAnswer = {
  result: string;
  decision?: string;
  route: RouteDocument;
  error?: { code: string; message: string };
};

const suite = suiteService({ ackTimeoutMs: 60_000 });

/**
 * Each route gets its own profile whose candidates run on their own (made-up) providers: a failure opens its
 * provider's shared circuit, and a route on another profile must not start behind it.
 */
async function startRoute(id: string): Promise<RouteDocument> {
  const saved = await call(suite.url, 'admin', 'PUT', `/v1/profiles/${id}`, {
    name: `Profile of ${id}`,
    candidates: [
      { profile_id: 'first', provider: `${id}-one`, policy: policy(3, 5, 'skip') },
      { profile_id: 'second', provider: `${id}-two`, policy: policy(1, 5, 'stop') },
    ],
  });
  expect(saved.status).toBe(200);
  const started = await call(suite.url, 'adapter', 'POST', '/v1/routes', { route_id: id, profile_id: id });
  expect(started.status).toBe(201);
  const route = started.body as RouteDocument;
  const acked = await call(
    suite.url,
    'adapter',
    'POST',
    `/v1/routes/${id}/dispatches/${route.dispatch!.id}/ack`,
  );
  expect(acked.status).toBe(200);
  return (acked.body as RouteAnswer).route;
}

/** Reports an overload on the route's current dispatch (what each replay flag says is `replay`). */
function reportOverload(route: RouteDocument, replay: Record<string, boolean> = {}) {
  return call(suite.url, 'adapter', 'POST', `/v1/routes/${route.id}/evidence`, {
    envelope: overloaded,
    generation: route.generation,
    invocation_id: route.dispatch!.id,
    replay,
  });
}

describe('profiles', () => {
  it('[API-01] [API-02] a legacy policy document in, the normalized version 1 document out', async () => {
    const legacy = await call(suite.url, 'admin', 'PUT', '/v1/profiles/legacy', {
      name: 'Legacy',
      candidates: [{ profile_id: 'x', policy: { transient: 'retry', hard: 'stop' } }],
    });
    // A legacy shape this project does not know is a field-addressed 422; a v1 one is normalized.
    if (legacy.status === 422) {
      expect((legacy.body as { errors: { path: string }[] }).errors[0]!.path).toMatch(
        /^\/candidates\/0\/policy/,
      );
    }
    const saved = await call(suite.url, 'admin', 'PUT', '/v1/profiles/v1doc', {
      name: 'V1',
      candidates: [{ profile_id: 'x', policy: policy(2, 10, 'stop') }],
    });
    expect(saved.status).toBe(200);
    const body = saved.body as {
      version: number;
      candidates: { enabled: boolean; policy: { version: number } }[];
    };
    expect(body.version).toBe(1);
    expect(body.candidates[0]!.enabled).toBe(true);
    expect(body.candidates[0]!.policy.version).toBe(1);
    expect(saved.headers.get('etag')).toBe('"1"');
    const read = await call(suite.url, 'viewer', 'GET', '/v1/profiles/v1doc');
    expect(read.body).toEqual(saved.body);
    const list = await call(suite.url, 'viewer', 'GET', '/v1/profiles');
    expect((list.body as { profiles: { id: string }[] }).profiles.map((p) => p.id)).toContain('v1doc');
  });

  it('a stale version (If-Match or a version field) is 409 with the current document; nothing changes', async () => {
    const document = { name: 'Edit', candidates: [{ profile_id: 'x', policy: policy(1, 5, 'stop') }] };
    expect((await call(suite.url, 'admin', 'PUT', '/v1/profiles/edit', document)).status).toBe(200);
    const v2 = await call(
      suite.url,
      'admin',
      'PUT',
      '/v1/profiles/edit',
      { ...document, name: 'Edit 2' },
      { 'if-match': '"1"' },
    );
    expect(v2.status).toBe(200);
    expect((v2.body as { version: number }).version).toBe(2);
    const stale = await call(suite.url, 'admin', 'PUT', '/v1/profiles/edit', {
      ...document,
      name: 'Lost',
      version: 1,
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      error: { code: 'version_conflict' },
      current: { version: 2, name: 'Edit 2' },
    });
    const staleHeader = await call(
      suite.url,
      'admin',
      'PUT',
      '/v1/profiles/edit',
      { ...document, name: 'Lost' },
      { 'if-match': '1' },
    );
    expect(staleHeader.status).toBe(409);
    expect((await call(suite.url, 'viewer', 'GET', '/v1/profiles/edit')).body).toMatchObject({
      version: 2,
      name: 'Edit 2',
    });
  });

  it('an unchanged save keeps its version; the path id wins and a different body id is refused', async () => {
    const document = { name: 'Same', candidates: [{ profile_id: 'x', policy: policy(1, 5, 'stop') }] };
    await call(suite.url, 'admin', 'PUT', '/v1/profiles/same', document);
    const again = await call(suite.url, 'admin', 'PUT', '/v1/profiles/same', document);
    expect((again.body as { version: number }).version).toBe(1);
    const other = await call(suite.url, 'admin', 'PUT', '/v1/profiles/same', { ...document, id: 'other' });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ errors: [{ path: '/id' }] });
  });

  it('[API-02] a DELETE with a stale If-Match is 409 with the current document and deletes nothing', async () => {
    const document = { name: 'Mine', candidates: [{ profile_id: 'x', policy: policy(1, 5, 'stop') }] };
    await call(suite.url, 'admin', 'PUT', '/v1/profiles/contested', document);
    // Another admin edits it to version 2 meanwhile; a delete of the version 1 this one saw must not take it.
    await call(suite.url, 'admin', 'PUT', '/v1/profiles/contested', { ...document, name: 'Theirs' });
    const stale = await call(suite.url, 'admin', 'DELETE', '/v1/profiles/contested', undefined, {
      'if-match': '"1"',
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      error: { code: 'version_conflict' },
      current: { version: 2, name: 'Theirs' },
    });
    const garbled = await call(suite.url, 'admin', 'DELETE', '/v1/profiles/contested', undefined, {
      'if-match': '"two"',
    });
    expect(garbled.status).toBe(422);
    expect((await call(suite.url, 'viewer', 'GET', '/v1/profiles/contested')).status).toBe(200);
    const current = await call(suite.url, 'admin', 'DELETE', '/v1/profiles/contested', undefined, {
      'if-match': '"2"',
    });
    expect(current.status).toBe(204);
    expect((await call(suite.url, 'viewer', 'GET', '/v1/profiles/contested')).status).toBe(404);
  });

  it('[API-02] a profile deleted and created again goes on from its last version: an If-Match from before the delete is stale', async () => {
    const document = { name: 'First life', candidates: [{ profile_id: 'x', policy: policy(1, 5, 'stop') }] };
    await call(suite.url, 'admin', 'PUT', '/v1/profiles/reborn', document);
    await call(suite.url, 'admin', 'PUT', '/v1/profiles/reborn', { ...document, name: 'Edited' });
    expect((await call(suite.url, 'admin', 'DELETE', '/v1/profiles/reborn')).status).toBe(204);
    // A client that saw version 2 before the delete: its edit must not create or overwrite anything.
    const lateEdit = await call(suite.url, 'admin', 'PUT', '/v1/profiles/reborn', document, {
      'if-match': '"2"',
    });
    expect(lateEdit.status).toBe(409);
    expect((await call(suite.url, 'viewer', 'GET', '/v1/profiles/reborn')).status).toBe(404);
    const again = await call(suite.url, 'admin', 'PUT', '/v1/profiles/reborn', {
      ...document,
      name: 'Second life',
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ version: 3, name: 'Second life' });
    expect(again.headers.get('etag')).toBe('"3"');
    // Edits and deletes holding a version of the deleted profile are stale for the new one.
    for (const version of ['"1"', '"2"']) {
      const edit = await call(suite.url, 'admin', 'PUT', '/v1/profiles/reborn', document, {
        'if-match': version,
      });
      expect(edit.status).toBe(409);
      expect(edit.body).toMatchObject({ error: { code: 'version_conflict' }, current: { version: 3 } });
      const remove = await call(suite.url, 'admin', 'DELETE', '/v1/profiles/reborn', undefined, {
        'if-match': version,
      });
      expect(remove.status).toBe(409);
    }
    const current = await call(suite.url, 'viewer', 'GET', '/v1/profiles/reborn');
    expect(current.body).toMatchObject({ version: 3, name: 'Second life' });
  });

  it('deleting a profile a route names is refused (409 in_use); an unused one is deleted, then 404', async () => {
    await startRoute('uses-fleet');
    const refused = await call(suite.url, 'admin', 'DELETE', '/v1/profiles/uses-fleet');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'in_use' } });
    const document = { name: 'Gone', candidates: [{ profile_id: 'x', policy: policy(1, 5, 'stop') }] };
    await call(suite.url, 'admin', 'PUT', '/v1/profiles/gone', document);
    expect((await call(suite.url, 'admin', 'DELETE', '/v1/profiles/gone')).status).toBe(204);
    expect((await call(suite.url, 'viewer', 'GET', '/v1/profiles/gone')).status).toBe(404);
    expect((await call(suite.url, 'admin', 'DELETE', '/v1/profiles/gone')).status).toBe(404);
  });
});

describe('routes, reports and actions', () => {
  it('[API-03] a failure report answers with the code, class, retry ordinal of its maximum, an absolute deadline and the pending outcome', async () => {
    const route = await startRoute('r-api03');
    const before = Date.now();
    const failed = await reportOverload(route, { assistant_output: false, tool_activity: false });
    expect(failed.status).toBe(200);
    const answer = failed.body as RouteAnswer;
    expect(answer.result).toBe('changed');
    expect(answer.route).toMatchObject({
      state: 'retry_wait',
      outcome: 'waiting',
      code: 'provider_overloaded',
      class: 'transient',
      retry_ordinal: 1,
      max_retries: 3,
      pending_outcome: 'skip',
      next_candidate: 'second',
    });
    const deadline = Date.parse(answer.route.deadline_at!);
    expect(answer.route.deadline_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(deadline).toBeGreaterThanOrEqual(before + 4_000);
    const read = await call(suite.url, 'viewer', 'GET', '/v1/routes/r-api03');
    expect(read.body).toMatchObject({
      state: 'retry_wait',
      retry_ordinal: 1,
      deadline_at: answer.route.deadline_at,
    });
    const attempts = await call(suite.url, 'viewer', 'GET', '/v1/routes/r-api03/attempts');
    const history = (attempts.body as { attempts: { code: string; policy: unknown; decision: string }[] })
      .attempts;
    expect(history.at(-1)).toMatchObject({ code: 'provider_overloaded', class: 'transient' });
    expect(history.at(-1)!.policy).not.toBeNull();
  });

  it('[RTE-19] [RTE-21] a manual action carries the expected generation: a stale one is 409 with the snapshot, a repeated cancel is unchanged', async () => {
    const route = await startRoute('r-actions');
    await reportOverload(route);
    const stale = await call(suite.url, 'operator', 'POST', '/v1/routes/r-actions/actions', {
      action: 'cancel',
      expected_generation: route.generation + 5,
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ error: { code: 'stale_generation' }, route: { state: 'retry_wait' } });
    const cancelled = await call(suite.url, 'operator', 'POST', '/v1/routes/r-actions/actions', {
      action: 'cancel',
      expected_generation: route.generation,
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      result: 'changed',
      route: { state: 'action_required', reason: 'cancelled' },
    });
    const again = await call(suite.url, 'operator', 'POST', '/v1/routes/r-actions/actions', {
      action: 'cancel',
      expected_generation: route.generation,
    });
    expect(again.status).toBe(200);
    expect((again.body as RouteAnswer).result).toBe('unchanged');
    const wrongState = await call(suite.url, 'operator', 'POST', '/v1/routes/r-actions/actions', {
      action: 'retry_now',
      expected_generation: route.generation,
      expected_state: 'retry_wait',
    });
    expect(wrongState.status).toBe(409);
    expect(wrongState.body).toMatchObject({
      error: { code: 'stale_state' },
      route: { state: 'action_required' },
    });
  });

  it('skip now switches to the next candidate; its dispatch waits for the acknowledgement', async () => {
    const route = await startRoute('r-skip');
    await reportOverload(route);
    const skipped = await call(suite.url, 'operator', 'POST', '/v1/routes/r-skip/actions', {
      action: 'skip_now',
      expected_generation: route.generation,
    });
    expect(skipped.status).toBe(200);
    const switching = (skipped.body as RouteAnswer).route;
    expect(switching).toMatchObject({ state: 'switching', next_candidate: 'second' });
    const ack = await call(
      suite.url,
      'adapter',
      'POST',
      `/v1/routes/r-skip/dispatches/${switching.dispatch!.id}/ack`,
    );
    expect(ack.status).toBe(200);
    expect(ack.body).toMatchObject({
      result: 'acknowledged',
      route: { state: 'active', candidate: 'second' },
    });
    const repeat = await call(
      suite.url,
      'adapter',
      'POST',
      `/v1/routes/r-skip/dispatches/${switching.dispatch!.id}/ack`,
    );
    expect(repeat.body).toMatchObject({ result: 'unchanged' });
    const foreign = await call(
      suite.url,
      'adapter',
      'POST',
      '/v1/routes/r-skip/dispatches/not-an-intent/ack',
    );
    expect(foreign.status).toBe(409);
    expect(foreign.body).toMatchObject({ error: { code: 'stale_dispatch' } });
  });

  it('an unsafe failure (tool activity) stops for a person; success after a retry makes the route active', async () => {
    const unsafe = await startRoute('r-unsafe');
    const stopped = await reportOverload(unsafe, { tool_activity: true });
    expect(stopped.body).toMatchObject({ route: { state: 'action_required', reason: 'unsafe' } });
    const retried = await call(suite.url, 'operator', 'POST', '/v1/routes/r-unsafe/actions', {
      action: 'retry_now',
      expected_generation: unsafe.generation,
    });
    const retrying = (retried.body as RouteAnswer).route;
    expect(retrying.state).toBe('retrying');
    await call(suite.url, 'adapter', 'POST', `/v1/routes/r-unsafe/dispatches/${retrying.dispatch!.id}/ack`);
    const done = await call(suite.url, 'adapter', 'POST', '/v1/routes/r-unsafe/success', {
      generation: retrying.generation,
      invocation_id: retrying.dispatch!.id,
    });
    expect(done.body).toMatchObject({ result: 'changed', route: { state: 'active', outcome: 'succeeded' } });
    const late = await call(suite.url, 'adapter', 'POST', '/v1/routes/r-unsafe/evidence', {
      envelope: overloaded,
      generation: unsafe.generation,
      replay: {},
    });
    expect(late.status).toBe(409);
  });

  it('routes are listed by state a page at a time', async () => {
    for (const id of ['page-1', 'page-2', 'page-3']) await startRoute(id);
    const first = await call(suite.url, 'viewer', 'GET', '/v1/routes?state=active&limit=2');
    const page = first.body as { routes: RouteDocument[]; next_cursor: string | null };
    expect(page.routes).toHaveLength(2);
    expect(page.next_cursor).not.toBeNull();
    const rest = await call(
      suite.url,
      'viewer',
      'GET',
      `/v1/routes?state=active&limit=1000&cursor=${page.next_cursor}`,
    );
    const ids = [...page.routes, ...(rest.body as { routes: RouteDocument[] }).routes].map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['page-1', 'page-2', 'page-3']));
    expect(ids.every((id) => id !== 'r-api03')).toBe(true);
  });

  it('a route id that exists is 409; an unknown route is 404 for reads, reports and actions', async () => {
    await startRoute('dup');
    const dup = await call(suite.url, 'adapter', 'POST', '/v1/routes', {
      route_id: 'dup',
      profile_id: 'dup',
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ error: { code: 'route_exists' } });
    expect((await call(suite.url, 'viewer', 'GET', '/v1/routes/nope')).status).toBe(404);
    expect((await call(suite.url, 'viewer', 'GET', '/v1/routes/nope/attempts')).status).toBe(404);
    const action = await call(suite.url, 'operator', 'POST', '/v1/routes/nope/actions', {
      action: 'stop',
      expected_generation: 1,
    });
    expect(action.status).toBe(404);
    const report = await call(suite.url, 'adapter', 'POST', '/v1/routes/nope/evidence', {
      envelope: overloaded,
      generation: 1,
    });
    expect(report.status).toBe(404);
  });

  it('POST /v1/classify answers the classification; an invalid envelope is 422 under /envelope', async () => {
    const ok = await call(suite.url, 'adapter', 'POST', '/v1/classify', { envelope: overloaded });
    expect(ok.body).toMatchObject({ code: 'provider_overloaded', class: 'transient' });
    const bad = await call(suite.url, 'adapter', 'POST', '/v1/classify', { envelope: { status: 'x' } });
    expect(bad.status).toBe(422);
    expect((bad.body as { errors: { path: string }[] }).errors[0]!.path).toMatch(/^\/envelope\//);
  });
});
