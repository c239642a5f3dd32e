import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Role } from '../../src/server/auth.js';
import { startService, type RunningService, type ServiceOptions } from '../../src/server/service.js';

/** One bearer token per role (16 or more visible characters, as `parseTokens` requires). */
export const roleTokens: Readonly<Record<Role, string>> = {
  viewer: 'viewer-token-0123456789abcdef',
  operator: 'operator-token-0123456789abcdef',
  admin: 'admin-token-0123456789abcdef',
  adapter: 'adapter-token-0123456789abcdef',
};

export const allRoles = Object.keys(roleTokens) as Role[];

/**
 * The permission matrix: who may call an endpoint of each `x-recourse-access` level. Written here independently of
 * `src/server/auth.ts` so a change there fails the tests: API-04 (the classify, evidence and ack endpoints are the
 * adapter's alone), API-06 (profile edits need admin).
 */
export const allowedRoles: Readonly<Record<string, readonly Role[]>> = {
  public: allRoles,
  read: ['viewer', 'operator', 'admin', 'adapter'],
  operate: ['operator', 'admin'],
  admin: ['admin'],
  adapter: ['adapter'],
  orchestrate: ['operator', 'admin', 'adapter'],
};

export interface LiveService {
  readonly service: RunningService;
  readonly url: string;
  /** The SQLite file in its own temporary folder. */
  readonly database: string;
  close(): Promise<void>;
}

/** A real service on a real SQLite file in a fresh temporary folder, listening on a free loopback port. */
export async function startLiveService(
  options: Partial<
    Pick<ServiceOptions, 'logLevel' | 'logDestination' | 'ackTimeoutMs' | 'tokenThrottle'>
  > = {},
): Promise<LiveService> {
  const folder = await mkdtemp(join(tmpdir(), 'recourse-server-'));
  const database = join(folder, 'recourse.db');
  const service = await startService({
    port: 0,
    host: '127.0.0.1',
    database,
    tokens: allRoles.map((role) => ({ role, token: roleTokens[role] })),
    version: 'test',
    logLevel: 'silent',
    // The suites send hundreds of refused tokens from one address on purpose (every endpoint, every wrong
    // credential); token-throttle.test.ts tests the limit itself.
    tokenThrottle: { failures: 1_000_000, windowMs: 60_000 },
    ...options,
  });
  return {
    service,
    url: service.url,
    database,
    async close() {
      await service.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body as JSON, or undefined when it is not JSON (an event stream, a page). */
  readonly json: unknown;
}

export interface Call {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as it is; anything else as JSON with `content-type: application/json`. */
  readonly body?: unknown;
}

/**
 * One real HTTP request. An event stream is read only until its first chunk (or its end when it ends at once:
 * a `reload`), then cancelled, so a stream never holds the test.
 */
export async function call(url: string, request: Call): Promise<Answer> {
  const headers: Record<string, string> = { ...request.headers };
  let body: string | undefined;
  if (typeof request.body === 'string') body = request.body;
  else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url + request.path, {
    method: request.method,
    headers,
    redirect: 'manual',
    ...(body === undefined ? {} : { body }),
  });
  let text: string;
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    text = await firstChunks(response);
  } else {
    text = await response.text();
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Reads an event stream for up to `ms` or until it ends, then cancels it. */
async function firstChunks(response: Response, ms = 300): Promise<string> {
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    let timer: NodeJS.Timeout | undefined;
    const next = await Promise.race([
      reader.read(),
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), left);
      }),
    ]);
    clearTimeout(timer);
    if (next === null || next.done) break;
    text += decoder.decode(next.value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return text;
}

export function bearer(role: Role): Record<string, string> {
  return { authorization: `Bearer ${roleTokens[role]}` };
}

/** What `/openapi.json` says of one operation (only the parts the tests read). */
export interface Operation {
  readonly summary: string;
  readonly 'x-recourse-access': string;
  readonly parameters?: readonly { readonly name: string; readonly in: string; readonly required: boolean }[];
  readonly requestBody?: {
    readonly required: boolean;
    readonly content: { readonly 'application/json': { readonly schema: JsonSchema } };
  };
}

export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly additionalProperties?: JsonSchema | boolean;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly enum?: readonly unknown[];
}

export interface ListedEndpoint {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** OpenAPI's form: `/v1/routes/{id}`. */
  readonly path: string;
  readonly operation: Operation;
}

/** Every operation `/openapi.json` lists, read from the running server. */
export async function listedEndpoints(url: string): Promise<ListedEndpoint[]> {
  const answer = await call(url, { method: 'GET', path: '/openapi.json' });
  if (answer.status !== 200) throw new Error(`/openapi.json answered ${answer.status}`);
  const document = answer.json as { paths: Record<string, Record<string, Operation>> };
  const listed: ListedEndpoint[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      listed.push({ method: method.toUpperCase() as ListedEndpoint['method'], path, operation });
    }
  }
  return listed;
}

/** The path with each `{name}` replaced (URL-encoded) by `values[name]`, or by `fallback`. */
export function concretePath(
  path: string,
  values: Readonly<Record<string, string>>,
  fallback: string,
): string {
  return path.replace(/\{([a-z_]+)\}/g, (_all, name: string) => encodeURIComponent(values[name] ?? fallback));
}

/** Every key of every object in a JSON value, at any depth. */
export function keysDeep(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) keysDeep(item, into);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      into.push(key);
      keysDeep(child, into);
    }
  }
  return into;
}

/** Every property name a JSON schema declares, at any depth (nested objects, items, unions). */
export function schemaPropertyNames(schema: JsonSchema | boolean | undefined, into: string[] = []): string[] {
  if (schema === undefined || typeof schema === 'boolean') return into;
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    into.push(name);
    schemaPropertyNames(property, into);
  }
  schemaPropertyNames(schema.items, into);
  schemaPropertyNames(schema.additionalProperties, into);
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
    schemaPropertyNames(branch, into);
  }
  return into;
}

/** A version 1 policy document: retries every hour (nothing fires while a test runs), then `on_exhausted`. */
export function slowPolicy(onExhausted: 'skip' | 'stop' = 'skip') {
  return {
    version: 1,
    transient: {
      retry: { enabled: true, max_retries: 3, initial_interval_seconds: 3600 },
      wait_for_reset: { enabled: false, max_wait_seconds: 0 },
      on_exhausted: onExhausted,
    },
    hard: {
      retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
      wait_for_reset: { enabled: false, max_wait_seconds: 0 },
      on_exhausted: 'stop',
    },
  };
}

/** An overloaded-provider failure: transient, retried by `slowPolicy`. */
export const overloadedEnvelope = {
  kind: 'http',
  provider: 'anthropic',
  status: 529,
  body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
};
