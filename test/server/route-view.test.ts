import { describe, expect, it } from 'vitest';
import type { RouteDocument } from '../../src/server/route-document.js';
import { call, overloaded, suiteService } from '../helpers/service.js';

interface Attempt {
  decision: string;
  deadline_at: string | null;
  delay_seconds: number | null;
  delay_source: string | null;
  at: string;
}

/** Waits up to an hour for a reset, retries from 7 s, then stops. */
const waitingPolicy = {
  version: 1,
  transient: {
    retry: { enabled: true, max_retries: 3, initial_interval_seconds: 7 },
    wait_for_reset: { enabled: true, max_wait_seconds: 3600 },
    on_exhausted: 'stop',
  },
  hard: {
    retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
    wait_for_reset: { enabled: false, max_wait_seconds: 0 },
    on_exhausted: 'stop',
  },
};
const noWaitPolicy = {
  ...waitingPolicy,
  transient: { ...waitingPolicy.transient, wait_for_reset: { enabled: false, max_wait_seconds: 0 } },
};

/** What the web UI's route view reads: the cause in words, provider and model, each attempt's delay and source. */
describe('the route view', () => {
  const live = suiteService({ webRoot: null, ackTimeoutMs: 60_000 });

  async function failedRoute(routeId: string, policy: unknown, envelope: unknown) {
    const saved = await call(live.url, 'admin', 'PUT', `/v1/profiles/view-${routeId}`, {
      name: 'View',
      candidates: [
        { profile_id: 'first', provider: 'acme', model: 'large-1', policy },
        { profile_id: 'second', policy },
      ],
    });
    expect(saved.status).toBe(200);
    const started = await call(live.url, 'adapter', 'POST', '/v1/routes', {
      route_id: routeId,
      profile_id: `view-${routeId}`,
    });
    expect(started.status).toBe(201);
    const before = started.body as RouteDocument;
    const ack = await call(
      live.url,
      'adapter',
      'POST',
      `/v1/routes/${routeId}/dispatches/${before.dispatch!.id}/ack`,
    );
    expect(ack.status).toBe(200);
    const failed = await call(live.url, 'adapter', 'POST', `/v1/routes/${routeId}/evidence`, {
      generation: 1,
      envelope,
      replay: { assistant_output: false, tool_activity: false },
    });
    expect(failed.status).toBe(200);
    const attempts = await call(live.url, 'viewer', 'GET', `/v1/routes/${routeId}/attempts`);
    return {
      before,
      after: (failed.body as { route: RouteDocument }).route,
      attempts: (attempts.body as { attempts: Attempt[] }).attempts,
    };
  }

  it('[API-03] before a failure: no cause, provider and model from the candidate; after: the failure’s, in words', async () => {
    const { before, after } = await failedRoute('view-policy', noWaitPolicy, overloaded);
    expect(before).toMatchObject({ cause: null, provider: 'acme', model: 'large-1' });
    expect(after.state).toBe('retry_wait');
    expect(after.cause).toEqual(expect.any(String));
    expect(after.cause).not.toMatch(/overloaded_error|529|\{/);
    expect(after.provider).toBe(after.last_failure!.provider_id ?? 'acme');
    const read = await call(live.url, 'viewer', 'GET', '/v1/routes/view-policy');
    expect(read.body).toMatchObject({ cause: after.cause, provider: after.provider, model: after.model });
  });

  it('[API-03] a retry on the policy’s schedule says so: delay_seconds 7, delay_source policy', async () => {
    const { attempts } = await (async () => {
      const a = await call(live.url, 'viewer', 'GET', '/v1/routes/view-policy/attempts');
      return { attempts: (a.body as { attempts: Attempt[] }).attempts };
    })();
    const retry = attempts.find((a) => a.decision === 'retry');
    expect(retry).toMatchObject({ delay_seconds: 7, delay_source: 'policy' });
    expect(Date.parse(retry!.deadline_at!) - Date.parse(retry!.at)).toBe(7000);
  });

  it('[API-03] a wait for the provider’s Retry-After says retry_after, with its delay', async () => {
    const limited = {
      kind: 'http',
      provider: 'anthropic',
      status: 429,
      headers: { 'retry-after': '120' },
      body: '{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}',
    };
    const { after, attempts } = await failedRoute('view-retry-after', waitingPolicy, limited);
    expect(after.state).toBe('waiting_for_reset');
    const wait = attempts.find((a) => a.decision === 'wait_for_reset');
    expect(wait?.delay_source).toBe('retry_after');
    expect(wait?.delay_seconds).toBeGreaterThanOrEqual(119);
    expect(wait?.delay_seconds).toBeLessThanOrEqual(121);
  });

  it('[API-03] each attempt keeps its own source after later failures (recorded with the decision, not guessed)', async () => {
    const operatorRetry = await call(live.url, 'operator', 'POST', '/v1/routes/view-retry-after/actions', {
      action: 'retry_now',
      expected_generation: 1,
      expected_state: 'waiting_for_reset',
    });
    expect(operatorRetry.status).toBe(200);
    const retrying = (operatorRetry.body as { route: RouteDocument }).route;
    expect(retrying.state).toBe('retrying');
    await call(
      live.url,
      'adapter',
      'POST',
      `/v1/routes/view-retry-after/dispatches/${retrying.dispatch!.id}/ack`,
    );
    const failedAgain = await call(live.url, 'adapter', 'POST', '/v1/routes/view-retry-after/evidence', {
      generation: retrying.generation,
      envelope: overloaded,
      replay: { assistant_output: false, tool_activity: false },
    });
    expect(failedAgain.status).toBe(200);
    const attempts = (
      (await call(live.url, 'viewer', 'GET', '/v1/routes/view-retry-after/attempts')).body as {
        attempts: Attempt[];
      }
    ).attempts;
    // The last failure carries no hint now; the first wait still says the provider's Retry-After set it.
    expect(attempts.map((a) => [a.decision, a.delay_source])).toEqual([
      ['wait_for_reset', 'retry_after'],
      ['retry', 'policy'],
    ]);
  });
});
