import { describe, expect, it } from 'vitest';
import { call, policy, suiteService } from '../helpers/service.js';

interface Refusal {
  error: { code: string };
  errors: { path: string; message: string }[];
}

/** An endpoint that takes no body refuses a field sent in one, as every strict body does, rather than drop it. */
describe('a body sent to an endpoint that takes none', () => {
  const live = suiteService({ webRoot: null });
  const profile = (name: string) => ({
    name,
    candidates: [{ profile_id: 'a', provider: 'one', policy: policy(1, 60, 'stop') }],
  });

  it('[API-01] DELETE /v1/profiles/{id} with {"version": N} is 422 at /version and deletes nothing', async () => {
    expect((await call(live.url, 'admin', 'PUT', '/v1/profiles/kept', profile('one'))).status).toBe(200);
    expect((await call(live.url, 'admin', 'PUT', '/v1/profiles/kept', profile('two'))).status).toBe(200);
    // The client fences the delete as a PUT is fenced, on the version it saw; another edit came since.
    const deleted = await call(live.url, 'admin', 'DELETE', '/v1/profiles/kept', { version: 1 });
    expect(deleted.status).toBe(422);
    expect((deleted.body as Refusal).errors[0]!.path).toBe('/version');
    const still = await call(live.url, 'viewer', 'GET', '/v1/profiles/kept');
    expect(still.status).toBe(200);
    expect((still.body as { name: string }).name).toBe('two');
    // Nothing, or an empty object, is no body.
    expect((await call(live.url, 'admin', 'DELETE', '/v1/profiles/kept', {})).status).toBe(204);
  });

  it('an acknowledgement with a field is 422 and records nothing; with {} it is recorded', async () => {
    expect((await call(live.url, 'admin', 'PUT', '/v1/profiles/p', profile('p'))).status).toBe(200);
    const started = await call(live.url, 'adapter', 'POST', '/v1/routes', { route_id: 'r', profile_id: 'p' });
    const dispatchId = (started.body as { dispatch: { id: string } }).dispatch.id;
    const ack = `/v1/routes/r/dispatches/${dispatchId}/ack`;
    for (const body of [{ dispatch_id: 'another' }, [], 'yes']) {
      const refused = await call(live.url, 'adapter', 'POST', ack, JSON.stringify(body));
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect((refused.body as Refusal).error.code).toBe('invalid_input');
    }
    const route = await call(live.url, 'viewer', 'GET', '/v1/routes/r');
    expect((route.body as { dispatch: { acknowledged: boolean } }).dispatch.acknowledged).toBe(false);
    const acknowledged = await call(live.url, 'adapter', 'POST', ack, {});
    expect(acknowledged.status).toBe(200);
    expect((acknowledged.body as { result: string }).result).toBe('acknowledged');
  });
});
