import { expect } from 'vitest';
import type { UiService } from './harness.js';
import { envelopesOf, fake, planted } from '../helpers/planted-credentials.js';

/**
 * A small fleet for the pages to show, made through the API as an orchestrator and an admin would: a dynamic
 * profile of three candidates, routes waiting to retry and stopped for a person, a task session with its retry
 * notice, and plans with recorded errors. Every failure carries planted credentials (40 in all), so a sweep of
 * the pages can prove none reaches the DOM.
 */
export interface Fleet {
  readonly profileId: string;
  readonly waitingRouteId: string;
  readonly stoppedRouteIds: readonly string[];
  readonly session: { readonly sessionId: string; readonly taskId: string };
  readonly planId: string;
  /** Every planted secret, whole (at least 40). */
  readonly secrets: readonly string[];
}

const off = { enabled: false, max_retries: 0, initial_interval_seconds: 0 };
const noWait = { enabled: false, max_wait_seconds: 0 };

function candidate(id: string, retries: number, interval: number, hardOutcome: 'skip' | 'stop') {
  return {
    profile_id: id,
    enabled: true,
    policy: {
      version: 1,
      transient: {
        retry: { enabled: true, max_retries: retries, initial_interval_seconds: interval },
        wait_for_reset: { enabled: true, max_wait_seconds: 7200 },
        on_exhausted: 'skip',
      },
      hard: { retry: off, wait_for_reset: noWait, on_exhausted: hardOutcome },
    },
  };
}

/**
 * The evidence's distinct secrets (formats may share one key), and more for the plan errors: enough to make at least
 * 40, and never fewer than four, so the plan pages carry secrets too however many formats the evidence plants.
 */
const evidenceSecrets = [...new Set(planted.map((p) => p.secret))];
const planSecrets = Array.from(
  { length: Math.max(4, 40 - evidenceSecrets.length) },
  (_, i) => `sk-proj-${fake(100 + i, 40)}`,
);

export async function seedFleet(service: UiService, prefix = 'ui'): Promise<Fleet> {
  const profileId = `${prefix}-fleet`;
  const saved = await service.call('PUT', `/v1/profiles/${profileId}`, {
    id: profileId,
    name: 'Overnight fleet',
    version: 0,
    candidates: [
      candidate('claude-code', 3, 600, 'skip'),
      candidate('codex', 2, 300, 'stop'),
      candidate('gemini-cli', 1, 60, 'stop'),
    ],
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);

  // Each planted format fails one route: the first with an overload (waiting to retry), the rest with the
  // credential in a hard failure (stopped or switched), so the secrets sit in stored failures the pages show.
  const routeIds: string[] = [];
  for (const [index, p] of planted.entries()) {
    const id = `${prefix}-route-${String(index).padStart(2, '0')}`;
    const started = await service.call<{ dispatch: { id: string } }>('POST', '/v1/routes', {
      route_id: id,
      profile_id: profileId,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    await service.call(
      'POST',
      `/v1/routes/${id}/dispatches/${started.body.dispatch.id}/ack`,
      undefined,
      'adapter',
    );
    const envelopes = envelopesOf(p);
    const envelope =
      index === 0
        ? {
            kind: 'http',
            provider: 'anthropic',
            status: 529,
            headers: { 'x-api-key': p.secret },
            body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded ${p.secret}"}}`,
          }
        : envelopes[index % envelopes.length]!.envelope;
    const failed = await service.call(
      'POST',
      `/v1/routes/${id}/evidence`,
      { envelope, generation: 1, invocation_id: started.body.dispatch.id, replay: {} },
      'adapter',
    );
    expect(failed.status, JSON.stringify(failed.body)).toBe(200);
    routeIds.push(id);
  }

  const session = { sessionId: `${prefix}-session`, taskId: `${prefix}-task` };
  const opened = await service.call<{ route: { id: string; dispatch: { id: string } } }>(
    'POST',
    '/v1/sessions',
    {
      task_id: session.taskId,
      session_id: session.sessionId,
      profile_id: `${prefix}-concrete`,
      owner: 'alice',
    },
    'adapter',
  );
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  const route = opened.body.route;
  await service.call(
    'POST',
    `/v1/routes/${encodeURIComponent(route.id)}/dispatches/${route.dispatch.id}/ack`,
    undefined,
    'adapter',
  );
  const sessionFailed = await service.call(
    'POST',
    `/v1/sessions/${session.sessionId}/evidence`,
    {
      task_id: session.taskId,
      envelope: {
        kind: 'stderr',
        agent: 'claude-code',
        text: `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}} ${planted[1]!.prose}`,
      },
      invocation_id: route.dispatch.id,
      replay: {},
    },
    'adapter',
  );
  expect(sessionFailed.status, JSON.stringify(sessionFailed.body)).toBe(200);

  // Plan errors carry the rest of the secrets; a plan that stops taking errors gives way to a new one.
  const planId = `${prefix}-plan`;
  let current = planId;
  for (const [i, secret] of planSecrets.entries()) {
    const record = {
      phase: 'strategize',
      message: i % 2 === 0 ? `Rate limit exceeded for key ${secret}` : `Tool failed: token=${secret}`,
      exception_type: i % 2 === 0 ? 'RateLimitError' : 'ToolError',
      stack: `Error: boom\n    at run (agent.js:1:1) Authorization: Bearer ${secret}`,
    };
    if (i === 0) expect((await service.call('PUT', `/v1/plans/${current}`, {}, 'operator')).status).toBe(200);
    let recorded = await service.call('POST', `/v1/plans/${current}/errors`, record, 'adapter');
    if (recorded.status === 409) {
      current = `${planId}-${i}`;
      expect((await service.call('PUT', `/v1/plans/${current}`, {}, 'operator')).status).toBe(200);
      recorded = await service.call('POST', `/v1/plans/${current}/errors`, record, 'adapter');
    }
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(200);
  }

  return {
    profileId,
    waitingRouteId: routeIds[0]!,
    stoppedRouteIds: routeIds.slice(1),
    session,
    planId,
    secrets: [...evidenceSecrets, ...planSecrets],
  };
}
