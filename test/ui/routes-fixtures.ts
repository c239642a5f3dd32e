import { expect } from 'vitest';
import type { UiService } from './harness.js';
import { overloaded } from '../helpers/service.js';

/**
 * Routes made as an orchestrator and an adapter would make them, for the route board and route view tests: each
 * route gets its own dynamic profile whose candidates are named after it, so the shared circuits one route's
 * failure opens never move another route.
 */
export interface RouteDoc {
  readonly id: string;
  readonly state: string;
  readonly outcome: string;
  readonly candidate: string;
  readonly generation: number;
  readonly deadline_at: string | null;
  readonly next_candidate: string | null;
  readonly dispatch: { readonly id: string } | null;
}

const off = { enabled: false, max_retries: 0, initial_interval_seconds: 0 };
const noWait = { enabled: false, max_wait_seconds: 0 };

/** Transient: `retries` from `intervalSeconds`, then `exhausted`. Hard: wait for a trusted reset up to 2 h, then stop. */
export function policy(retries: number, intervalSeconds: number, exhausted: 'skip' | 'stop') {
  return {
    version: 1,
    transient: {
      retry:
        retries > 0
          ? { enabled: true, max_retries: retries, initial_interval_seconds: intervalSeconds }
          : off,
      wait_for_reset: noWait,
      on_exhausted: exhausted,
    },
    hard: { retry: off, wait_for_reset: { enabled: true, max_wait_seconds: 7200 }, on_exhausted: 'stop' },
  };
}

/** A secret planted in the provider's text: the page must never show it (UI-12). */
export const plantedSecret = 'sk-ant-api03-PLANTEDsecretROUTES0123456789abcdefXYZ';

/** A 429 with Retry-After (seconds) and provider text that carries a planted secret. */
export function rateLimited(retryAfterSeconds: number) {
  return {
    kind: 'http',
    provider: 'anthropic',
    status: 429,
    headers: { 'retry-after': String(retryAfterSeconds) },
    body: JSON.stringify({
      type: 'error',
      error: {
        type: 'rate_limit_error',
        message: `Rate limit for key ${plantedSecret} <script>alert(1)</script>`,
      },
    }),
  };
}

/** Claude Code's usage-limit line with a trusted reset time `inSeconds` from now. */
export function usageLimit(inSeconds: number) {
  return {
    kind: 'stderr',
    agent: 'claude-code',
    text: `Claude AI usage limit reached|${Math.floor(Date.now() / 1000) + inSeconds}`,
  };
}

export function candidatesOf(id: string): [string, string, string] {
  return [`${id}-claude`, `${id}-codex`, `${id}-gemini`];
}

/** Saves the route's own profile (as admin) and starts the route (as the adapter). */
export async function startRoute(
  service: UiService,
  id: string,
  options: { retries?: number; intervalSeconds?: number; exhausted?: 'skip' | 'stop' } = {},
): Promise<RouteDoc> {
  const [first, second, third] = candidatesOf(id);
  const rules = policy(options.retries ?? 3, options.intervalSeconds ?? 600, options.exhausted ?? 'skip');
  const saved = await service.call('PUT', `/v1/profiles/p-${id}`, {
    name: `Profile for ${id}`,
    candidates: [
      { profile_id: first, provider: 'anthropic', model: 'claude-sonnet-4-5', policy: rules },
      { profile_id: second, provider: 'openai', model: 'gpt-5-codex', policy: rules },
      { profile_id: third, provider: 'google', model: 'gemini-2.5-pro', policy: rules },
    ],
  });
  expect(saved.status).toBe(200);
  const started = await service.call<RouteDoc>(
    'POST',
    '/v1/routes',
    { route_id: id, profile_id: `p-${id}` },
    'adapter',
  );
  expect(started.status).toBe(201);
  return started.body;
}

/** The adapter reports the route's current attempt failed with `envelope` (safe to replay: nothing happened). */
export async function fail(
  service: UiService,
  route: RouteDoc,
  envelope: unknown,
  replay: Record<string, boolean> = {},
): Promise<RouteDoc> {
  const answer = await service.call<{ route: RouteDoc }>(
    'POST',
    `/v1/routes/${encodeURIComponent(route.id)}/evidence`,
    { envelope, generation: route.generation, invocation_id: route.dispatch!.id, replay },
    'adapter',
  );
  expect(answer.status).toBe(200);
  return answer.body.route;
}

/** Another person acts on the route through the API (as an operator), with what they saw. */
export async function act(service: UiService, route: RouteDoc, action: string): Promise<RouteDoc> {
  const answer = await service.call<{ route: RouteDoc }>(
    'POST',
    `/v1/routes/${encodeURIComponent(route.id)}/actions`,
    { action, expected_generation: route.generation, expected_state: route.state },
    'operator',
  );
  expect(answer.status).toBe(200);
  return answer.body.route;
}

/** The route's attempt succeeded (acknowledged first, as an adapter does). */
export async function succeed(service: UiService, route: RouteDoc): Promise<RouteDoc> {
  const path = `/v1/routes/${encodeURIComponent(route.id)}`;
  await service.call('POST', `${path}/dispatches/${route.dispatch!.id}/ack`, undefined, 'adapter');
  const answer = await service.call<{ route: RouteDoc }>(
    'POST',
    `${path}/success`,
    { generation: route.generation, invocation_id: route.dispatch!.id },
    'adapter',
  );
  expect(answer.status).toBe(200);
  return answer.body.route;
}

/** A route in each state the board shows, under ids that say which. */
export async function routesInEveryState(service: UiService, prefix: string) {
  const waitRetry = await fail(service, await startRoute(service, `${prefix}-wait`), rateLimited(30));
  const waitReset = await fail(service, await startRoute(service, `${prefix}-reset`), usageLimit(1800));
  const switching = await fail(
    service,
    await startRoute(service, `${prefix}-switch`, { retries: 0 }),
    rateLimited(30),
  );
  const needs = await fail(service, await startRoute(service, `${prefix}-needs`), rateLimited(30), {
    tool_activity: true,
  });
  const retrying = await act(
    service,
    await fail(service, await startRoute(service, `${prefix}-retrying`), rateLimited(30)),
    'retry_now',
  );
  const running = await startRoute(service, `${prefix}-running`);
  const finished = await succeed(service, await startRoute(service, `${prefix}-done`));
  const all = { waitRetry, waitReset, switching, needs, retrying, running, finished };
  expect(Object.fromEntries(Object.entries(all).map(([k, r]) => [k, r.state]))).toEqual({
    waitRetry: 'retry_wait',
    waitReset: 'waiting_for_reset',
    switching: 'switching',
    needs: 'action_required',
    retrying: 'retrying',
    running: 'active',
    finished: 'active',
  });
  return all;
}

/**
 * A session opened by the orchestrator (the adapter's role) on the shared `concrete-main` profile, its first prompt
 * acknowledged, then failed by an overloaded provider (its Retry-After `retryAfter` seconds when given): the route
 * waits to retry (`retry_wait`), which is what the retry card shows.
 */
export async function failingSession(
  service: UiService,
  session: { readonly taskId: string; readonly sessionId: string; readonly owner?: string },
  retryAfter?: number,
): Promise<RouteDoc> {
  const { taskId, sessionId } = session;
  const opened = await service.call<{ route: RouteDoc }>(
    'POST',
    '/v1/sessions',
    { task_id: taskId, session_id: sessionId, profile_id: 'concrete-main', owner: session.owner ?? 'alice' },
    'adapter',
  );
  expect(opened.status).toBe(201);
  const route = opened.body.route;
  await service.call(
    'POST',
    `/v1/routes/${encodeURIComponent(route.id)}/dispatches/${route.dispatch!.id}/ack`,
    undefined,
    'adapter',
  );
  const envelope =
    retryAfter === undefined ? overloaded : { ...overloaded, headers: { 'retry-after': String(retryAfter) } };
  const failed = await service.call<{ route: RouteDoc }>(
    'POST',
    `/v1/sessions/${encodeURIComponent(sessionId)}/evidence`,
    { task_id: taskId, envelope, invocation_id: route.dispatch!.id, replay: {} },
    'adapter',
  );
  expect(failed.status).toBe(200);
  expect(failed.body.route.state).toBe('retry_wait');
  return failed.body.route;
}
