import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { RouteDocument } from '../../src/server/route-document.js';
import { startService, type RunningService, type ServiceOptions } from '../../src/server/service.js';

export const tokens = {
  admin: 'admin-token-0123456789abcdef',
  operator: 'operator-token-0123456789abcdef',
  viewer: 'viewer-token-0123456789abcdef',
  adapter: 'adapter-token-0123456789abcdef',
} as const;

export type TestRole = keyof typeof tokens;

/** A real service on a real SQLite file in a fresh folder, listening on a free loopback port. */
export async function startTestService(
  options: Partial<ServiceOptions> = {},
): Promise<{ service: RunningService; dir: string; database: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'recourse-service-'));
  const database = options.database ?? join(dir, 'recourse.db');
  const service = await startService({
    port: 0,
    host: '127.0.0.1',
    database,
    tokens: Object.entries(tokens).map(([role, token]) => ({ role: role as TestRole, token })),
    version: 'test',
    logLevel: 'silent',
    ...options,
  });
  return {
    service,
    dir,
    database,
    stop: async () => {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One service for the enclosing suite: started before its tests, stopped after them. `url` and `service` are
 * read inside tests (they exist once the suite has started).
 */
export function suiteService(options: Partial<ServiceOptions> = {}): {
  readonly url: string;
  readonly service: RunningService;
} {
  let started: Awaited<ReturnType<typeof startTestService>> | null = null;
  beforeAll(async () => {
    started = await startTestService(options);
  });
  afterAll(async () => started?.stop());
  const running = () => {
    if (started === null) throw new Error('the suite service is read before the suite started');
    return started.service;
  };
  return {
    get url() {
      return running().url;
    },
    get service() {
      return running();
    },
  };
}

/** An answer: tests cast `body` to the document they expect (`as Doc<RouteDocument>`). */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Headers;
}

/** A JSON request as one role; the answer's status and parsed body. */
export async function call(
  base: string,
  role: TestRole | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(base + path, {
    method,
    headers: {
      ...(role === null ? {} : { authorization: `Bearer ${tokens[role]}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** A class policy document: retries from `interval` seconds, then `exhausted`. */
export function policy(maxRetries: number, intervalSeconds: number, exhausted: 'skip' | 'stop') {
  const off = { enabled: false, max_retries: 0, initial_interval_seconds: 0 };
  const noWait = { enabled: false, max_wait_seconds: 0 };
  return {
    version: 1,
    transient: {
      retry: { enabled: maxRetries > 0, max_retries: maxRetries, initial_interval_seconds: intervalSeconds },
      wait_for_reset: noWait,
      on_exhausted: exhausted,
    },
    hard: { retry: off, wait_for_reset: noWait, on_exhausted: 'stop' },
  };
}

/** A 529 overload: transient, retried by a policy that retries. */
export const overloaded = {
  kind: 'http',
  provider: 'anthropic',
  status: 529,
  body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
};

/**
 * Opens session `sessionId` of task-1 on the concrete-main profile for alice, acknowledges its first dispatch and
 * reports an overload on it, so its interactive retry waits with a notice. Returns the route as the report left it.
 */
export async function failingSession(base: string, sessionId: string): Promise<RouteDocument> {
  const opened = await call(base, 'adapter', 'POST', '/v1/sessions', {
    task_id: 'task-1',
    session_id: sessionId,
    profile_id: 'concrete-main',
    owner: 'alice',
  });
  expect(opened.status).toBe(201);
  const { route } = opened.body as { route: RouteDocument };
  const dispatchId = route.dispatch!.id;
  await call(
    base,
    'adapter',
    'POST',
    `/v1/routes/${encodeURIComponent(route.id)}/dispatches/${encodeURIComponent(dispatchId)}/ack`,
  );
  const failed = await call(base, 'adapter', 'POST', `/v1/sessions/${sessionId}/evidence`, {
    task_id: 'task-1',
    envelope: overloaded,
    invocation_id: dispatchId,
    replay: {},
  });
  expect(failed.status).toBe(200);
  return (failed.body as { route: RouteDocument }).route;
}
