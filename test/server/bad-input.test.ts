import { Writable } from 'node:stream';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/server/auth.js';
import {
  allowedRoles,
  allRoles,
  bearer,
  call,
  concretePath,
  listedEndpoints,
  overloadedEnvelope,
  slowPolicy,
  startLiveService,
  type Answer,
  type ListedEndpoint,
  type LiveService,
} from './live-service.js';

/**
 * At least 150 bad requests across every route and every role, generated as data: each one's status, its body
 * shape (`{error: {code, message}}`, 422 also `errors: [{path, message}]` with JSON pointers), no stack trace or
 * file path, no 5xx anywhere, and the database logically unchanged by the whole batch.
 */
interface BadCase {
  readonly name: string;
  readonly role: Role | null;
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as it is (with the headers given); anything else as JSON. */
  readonly body?: unknown;
  readonly status: number;
  readonly code?: string;
  /** 422: pointers that must be among `errors`. */
  readonly pointers?: readonly string[];
  /** 409: the authoritative snapshot of this route comes with the refusal. */
  readonly route?: string;
  /** An event stream that must say `reload` and end (Last-Event-ID garbage). */
  readonly reload?: boolean;
}

const hostile: Readonly<Record<string, string>> = {
  NUL: 'a\u0000b',
  'a control character': 'a\u0001b',
  'a new line': 'a\nb',
  'a bidi override': '\u202Eabc',
  'a path traversal': '../../etc/passwd',
  '10,000 characters': 'x'.repeat(10_000),
};

/** Existing state the batch must not change. */
const state = {
  profile: 'main',
  spare: 'spare',
  active: 'r-active',
  waiting: 'r-wait',
  stopped: 'r-stopped',
  task: 't1',
  session: 's1',
  owner: 'owner-1',
};

const validProfile = {
  name: 'Main',
  candidates: [
    { profile_id: 'a', policy: slowPolicy() },
    { profile_id: 'b', policy: slowPolicy() },
  ],
};

/** A valid body for each endpoint that takes one (by method and OpenAPI path), aimed at existing state. */
const validBodies: Readonly<Record<string, unknown>> = {
  'PUT /v1/profiles/{id}': validProfile,
  'POST /v1/routes': { profile_id: state.profile },
  'POST /v1/routes/{id}/actions': { action: 'stop', expected_generation: 1 },
  'POST /v1/routes/{id}/evidence': { generation: 1, envelope: overloadedEnvelope },
  'POST /v1/routes/{id}/success': { generation: 1 },
  'POST /v1/routes/{id}/prompts': {},
  'POST /v1/classify': { envelope: overloadedEnvelope },
  'POST /v1/sessions': { task_id: 't2', session_id: 's2', profile_id: 'concrete', owner: 'o' },
  'POST /v1/sessions/{id}/evidence': { task_id: state.task, envelope: overloadedEnvelope },
  'POST /v1/sessions/{id}/success': { task_id: state.task },
  'POST /v1/sessions/{id}/prompts': { task_id: state.task },
  'POST /v1/sessions/{id}/stop': { task_id: state.task },
  'POST /v1/sessions/{id}/retry/cancel': { task_id: state.task, owner: state.owner },
  'POST /v1/sign-in': { token: 'not-a-configured-token-0123' },
  // An instant before any route: nothing is purged, so the database stays as it was.
  'POST /v1/routes/purge': { finished_before: '2000-01-01T00:00:00Z' },
  'POST /v1/sessions/{id}/recovery': { task_id: state.task, choice: 'resume', message_id: 'no-such-message' },
};

/** The existing resource each path names when a case aims at real state. */
function existing(path: string): string {
  return concretePath(
    path,
    {
      id: path.startsWith('/v1/sessions')
        ? state.session
        : path.startsWith('/v1/profiles')
          ? state.profile
          : state.active,
      dispatch_id: 'no-such-dispatch',
    },
    'x',
  );
}

function unknownPath(path: string, id = 'no-such-thing'): string {
  return concretePath(path, { id, dispatch_id: 'no-such-dispatch' }, id);
}

function key(e: ListedEndpoint): string {
  return `${e.method} ${e.path}`;
}

/** Builds the table from the served endpoint list, so a new endpoint gets its transport cases automatically. */
function badCases(endpoints: readonly ListedEndpoint[]): BadCase[] {
  const cases: BadCase[] = [];
  const withBody = endpoints.filter((e) => e.operation.requestBody !== undefined);
  const withoutBody = endpoints.filter((e) => e.operation.requestBody === undefined);

  for (const e of withBody) {
    const roles = allowedRoles[e.operation['x-recourse-access']]!;
    const forbidden = allRoles.filter((r) => !roles.includes(r));
    const path = existing(e.path);
    const first = roles[0]!;
    const json = { 'content-type': 'application/json' };
    // Malformed JSON, from every role the endpoint allows.
    for (const role of roles) {
      cases.push({
        name: `${key(e)} malformed JSON`,
        role,
        method: e.method,
        path,
        headers: json,
        body: '{"a":',
        status: 400,
        code: 'malformed_json',
      });
    }
    for (const [what, text] of Object.entries({
      'single quotes': "{'a': 1}",
      'trailing garbage': '{"a": 1}}',
      'a bare word': 'nul',
      'a NUL byte': '{"a":"\u0000"}x',
    })) {
      cases.push({
        name: `${key(e)} ${what}`,
        role: first,
        method: e.method,
        path,
        headers: json,
        body: text,
        status: 400,
        code: 'malformed_json',
      });
    }
    cases.push({
      name: `${key(e)} a prototype key`,
      role: first,
      method: e.method,
      path,
      headers: json,
      body: '{"__proto__": {"admin": true}}',
      status: 400,
      code: 'malformed_json',
    });
    // Too large, the wrong media type.
    cases.push({
      name: `${key(e)} a body over 1 MiB`,
      role: first,
      method: e.method,
      path,
      headers: json,
      body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }),
      status: 413,
      code: 'body_too_large',
    });
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      cases.push({
        name: `${key(e)} sent as ${type}`,
        role: first,
        method: e.method,
        path,
        headers: { 'content-type': type },
        body: JSON.stringify(validBodies[key(e)] ?? {}),
        status: 415,
        code: 'unsupported_media_type',
      });
    }
    // Not an object.
    for (const [what, text] of Object.entries({
      'an array': '[]',
      'a number': '7',
      'a string': '"s"',
      null: 'null',
    })) {
      cases.push({
        name: `${key(e)} ${what} as the body`,
        role: first,
        method: e.method,
        path,
        headers: json,
        body: text,
        status: 422,
        code: 'invalid_input',
        pointers: [''],
      });
    }
    // Unknown fields, and (where the schema says) missing ones.
    cases.push({
      name: `${key(e)} an unknown field`,
      role: first,
      method: e.method,
      path,
      body: { ...(validBodies[key(e)] as object), zz_unknown: 1 },
      status: 422,
      code: 'invalid_input',
      pointers: ['/zz_unknown'],
    });
    const required = e.operation.requestBody!.content['application/json'].schema.required ?? [];
    if (required.length > 0) {
      cases.push({
        name: `${key(e)} an empty object`,
        role: first,
        method: e.method,
        path,
        body: {},
        status: 422,
        code: 'invalid_input',
        pointers: required.map((r) => `/${r}`),
      });
    }
    // Forbidden roles and no credential: refused before the body is read, whatever it is.
    for (const role of forbidden) {
      cases.push({
        name: `${key(e)} malformed JSON from the ${role} role`,
        role,
        method: e.method,
        path,
        headers: json,
        body: '{"a":',
        status: 403,
        code: 'forbidden',
      });
    }
    // A public endpoint (sign-in) reads its body from anyone.
    if (e.operation['x-recourse-access'] !== 'public')
      cases.push({
        name: `${key(e)} malformed JSON without a credential`,
        role: null,
        method: e.method,
        path,
        headers: json,
        body: '{"a":',
        status: 401,
        code: 'unauthorized',
      });
  }

  // Unknown query parameters, on every endpoint.
  for (const e of endpoints) {
    const role = allowedRoles[e.operation['x-recourse-access']]![0]!;
    const query = e.operation.parameters?.some((p) => p.name === 'task_id') ? `task_id=${state.task}&` : '';
    cases.push({
      name: `${key(e)} an unknown query parameter`,
      role: e.operation['x-recourse-access'] === 'public' ? null : role,
      method: e.method,
      path: `${existing(e.path)}?${query}zz_unknown=1`,
      ...(e.operation.requestBody === undefined ? {} : { body: validBodies[key(e)] ?? {} }),
      status: 422,
      code: 'invalid_input',
      pointers: ['/zz_unknown'],
    });
  }

  // Unknown ids, and hostile ids in the path: every endpoint with an id.
  for (const e of endpoints.filter((x) => x.path.includes('{id}'))) {
    const role = allowedRoles[e.operation['x-recourse-access']]![0]!;
    const query = e.operation.parameters?.some((p) => p.name === 'task_id') ? `?task_id=${state.task}` : '';
    const body = e.operation.requestBody === undefined ? {} : { body: validBodies[key(e)] ?? {} };
    // PUT creates a profile under a new id; a hostile one is a field error at /id.
    if (e.method === 'PUT') {
      for (const [what, id] of Object.entries(hostile)) {
        if (id.length > 1000) continue;
        cases.push({
          name: `${key(e)} ${what} as the id`,
          role,
          method: e.method,
          path: unknownPath(e.path, id),
          ...body,
          status: 422,
          code: 'invalid_input',
          pointers: ['/id'],
        });
      }
      continue;
    }
    cases.push({
      name: `${key(e)} an unknown id`,
      role,
      method: e.method,
      path: unknownPath(e.path) + query,
      ...body,
      status: 404,
      code: 'not_found',
    });
    for (const [what, id] of Object.entries(hostile)) {
      if (id.length > 1000) continue;
      cases.push({
        name: `${key(e)} ${what} as the id`,
        role,
        method: e.method,
        path: unknownPath(e.path, id) + query,
        ...body,
        status: 404,
        code: 'not_found',
      });
    }
    cases.push({
      name: `${key(e)} a 10,000-character id`,
      role,
      method: e.method,
      path: unknownPath(e.path, 'x'.repeat(10_000)) + query,
      ...body,
      status: 414,
      code: 'uri_too_long',
    });
  }
  // A session named with another task's id is the same 404 as an unknown one (NOT-43).
  for (const e of endpoints.filter((x) => x.path.startsWith('/v1/sessions/{id}'))) {
    const role = allowedRoles[e.operation['x-recourse-access']]![0]!;
    const valid = validBodies[key(e)] as Record<string, unknown> | undefined;
    cases.push({
      name: `${key(e)} a foreign task id`,
      role,
      method: e.method,
      path: existing(e.path) + (valid === undefined ? '?task_id=other-task' : ''),
      ...(valid === undefined ? {} : { body: { ...valid, task_id: 'other-task' } }),
      status: 404,
      code: 'not_found',
    });
  }

  // Wrong types, out-of-range numbers, unknown enum values, hostile strings: field by field.
  const field = (
    endpoint: string,
    path: string,
    role: Role,
    name: string,
    value: unknown,
    expected: { status?: number; code?: string; pointer?: string } = {},
  ) => {
    const [method, template] = endpoint.split(' ') as [string, string];
    const status = expected.status ?? 422;
    cases.push({
      name: `${endpoint} ${name}=${JSON.stringify(value).slice(0, 40)}`,
      role,
      method,
      path,
      body: { ...(validBodies[`${method} ${template}`] as object), [name]: value },
      status,
      ...(expected.code === undefined
        ? status === 422
          ? { code: 'invalid_input' }
          : {}
        : { code: expected.code }),
      ...(status === 422 ? { pointers: [expected.pointer ?? `/${name}`] } : {}),
    });
  };
  const start = 'POST /v1/routes';
  for (const name of ['route_id', 'session_id', 'profile_id']) {
    field(start, '/v1/routes', 'operator', name, 42);
    field(start, '/v1/routes', 'operator', name, '');
    for (const value of Object.values(hostile)) field(start, '/v1/routes', 'adapter', name, value);
  }
  field(start, '/v1/routes', 'admin', 'caller', 'orchestra');
  field(start, '/v1/routes', 'admin', 'caller', null);
  field(start, '/v1/routes', 'admin', 'payload', { big: 'x'.repeat(70_000) });
  field(start, '/v1/routes', 'admin', 'payload', JSON.parse('['.repeat(100) + ']'.repeat(100)) as unknown, {
    pointer: '/payload' + '/0'.repeat(64),
  });

  const act = 'POST /v1/routes/{id}/actions';
  const actPath = `/v1/routes/${state.active}/actions`;
  field(act, actPath, 'operator', 'action', 'explode');
  field(act, actPath, 'operator', 'action', 7);
  field(act, actPath, 'admin', 'expected_generation', 0);
  field(act, actPath, 'admin', 'expected_generation', -1);
  field(act, actPath, 'admin', 'expected_generation', 1.5);
  field(act, actPath, 'admin', 'expected_generation', '1');
  field(act, actPath, 'admin', 'expected_generation', 2 ** 60);
  field(act, actPath, 'operator', 'expected_state', 'sleeping');

  const evidence = 'POST /v1/routes/{id}/evidence';
  const evidencePath = `/v1/routes/${state.active}/evidence`;
  field(evidence, evidencePath, 'adapter', 'generation', 'one');
  field(evidence, evidencePath, 'adapter', 'generation', 0);
  field(evidence, evidencePath, 'adapter', 'envelope', 'text');
  field(
    evidence,
    evidencePath,
    'adapter',
    'envelope',
    { kind: 'carrier_pigeon' },
    { pointer: '/envelope/kind' },
  );
  field(
    evidence,
    evidencePath,
    'adapter',
    'envelope',
    { ...overloadedEnvelope, status: 1000 },
    { pointer: '/envelope/status' },
  );
  field(
    evidence,
    evidencePath,
    'adapter',
    'envelope',
    { ...overloadedEnvelope, extra: true },
    { pointer: '/envelope/extra' },
  );
  field(
    evidence,
    evidencePath,
    'adapter',
    'replay',
    { tool_activity: 'yes' },
    { pointer: '/replay/tool_activity' },
  );
  field(
    evidence,
    evidencePath,
    'adapter',
    'replay',
    { assistant_text: 'x'.repeat(70_000) },
    { pointer: '/replay/assistant_text' },
  );
  field(evidence, evidencePath, 'adapter', 'prompt_open', 'maybe');
  for (const value of Object.values(hostile))
    field(evidence, evidencePath, 'adapter', 'invocation_id', value);

  const success = 'POST /v1/routes/{id}/success';
  const successPath = `/v1/routes/${state.active}/success`;
  field(success, successPath, 'adapter', 'generation', null);
  for (const value of Object.values(hostile)) field(success, successPath, 'adapter', 'invocation_id', value);
  field(
    'POST /v1/routes/{id}/prompts',
    `/v1/routes/${state.active}/prompts`,
    'adapter',
    'expected_generation',
    'latest',
  );

  const classify = 'POST /v1/classify';
  field(classify, '/v1/classify', 'adapter', 'envelope', null);
  field(classify, '/v1/classify', 'adapter', 'envelope', [overloadedEnvelope]);
  field(
    classify,
    '/v1/classify',
    'adapter',
    'envelope',
    { ...overloadedEnvelope, kind: 'fax' },
    { pointer: '/envelope/kind' },
  );
  field(classify, '/v1/classify', 'adapter', 'invocation_id', 'inv-1', { pointer: '/generation' });
  field(classify, '/v1/classify', 'adapter', 'generation', 3, { pointer: '/generation' });

  const open = 'POST /v1/sessions';
  for (const name of ['task_id', 'session_id', 'profile_id', 'owner']) {
    field(open, '/v1/sessions', 'operator', name, false);
    for (const value of Object.values(hostile)) field(open, '/v1/sessions', 'adapter', name, value);
  }
  const sessionEvidence = 'POST /v1/sessions/{id}/evidence';
  const sessionPath = `/v1/sessions/${state.session}`;
  field(
    sessionEvidence,
    `${sessionPath}/evidence`,
    'adapter',
    'envelope',
    { kind: 'http' },
    { pointer: '/envelope/status' },
  );
  field(sessionEvidence, `${sessionPath}/evidence`, 'adapter', 'replay', 'none');
  for (const value of Object.values(hostile)) {
    field('POST /v1/sessions/{id}/success', `${sessionPath}/success`, 'adapter', 'invocation_id', value);
    // Cancel answers an unknown owner as it answers an unknown session (NOT-43).
    field('POST /v1/sessions/{id}/retry/cancel', `${sessionPath}/retry/cancel`, 'operator', 'owner', value, {
      status: value.length > 256 ? 422 : 404,
      code: value.length > 256 ? 'invalid_input' : 'not_found',
    });
  }

  // Profile documents: 422 with a pointer at each problem.
  const put = (name: string, document: unknown, pointers: string[], headers: Record<string, string> = {}) =>
    cases.push({
      name: `PUT profile: ${name}`,
      role: 'admin',
      method: 'PUT',
      path: `/v1/profiles/${state.profile}`,
      headers,
      body: document,
      status: 422,
      code: 'invalid_input',
      pointers,
    });
  const withPolicy = (policy: unknown) => ({ ...validProfile, candidates: [{ profile_id: 'a', policy }] });
  const transient = slowPolicy().transient;
  put('an unknown policy version', withPolicy({ ...slowPolicy(), version: 2 }), [
    '/candidates/0/policy/version',
  ]);
  put('a policy version as a string', withPolicy({ ...slowPolicy(), version: '1' }), [
    '/candidates/0/policy/version',
  ]);
  put(
    'an unknown outcome',
    withPolicy({ ...slowPolicy(), transient: { ...transient, on_exhausted: 'explode' } }),
    ['/candidates/0/policy/transient/on_exhausted'],
  );
  put(
    'too many retries',
    withPolicy({
      ...slowPolicy(),
      transient: { ...transient, retry: { ...transient.retry, max_retries: 11 } },
    }),
    ['/candidates/0/policy/transient/retry/max_retries'],
  );
  put(
    'negative retries',
    withPolicy({
      ...slowPolicy(),
      transient: { ...transient, retry: { ...transient.retry, max_retries: -1 } },
    }),
    ['/candidates/0/policy/transient/retry/max_retries'],
  );
  put(
    'a zero interval',
    withPolicy({
      ...slowPolicy(),
      transient: { ...transient, retry: { ...transient.retry, initial_interval_seconds: 0 } },
    }),
    ['/candidates/0/policy/transient/retry/initial_interval_seconds'],
  );
  put(
    'a fractional interval',
    withPolicy({
      ...slowPolicy(),
      transient: { ...transient, retry: { ...transient.retry, initial_interval_seconds: 2.5 } },
    }),
    ['/candidates/0/policy/transient/retry/initial_interval_seconds'],
  );
  put(
    'a wait over seven days',
    withPolicy({
      ...slowPolicy(),
      transient: { ...transient, wait_for_reset: { enabled: true, max_wait_seconds: 604_801 } },
    }),
    ['/candidates/0/policy/transient/wait_for_reset/max_wait_seconds'],
  );
  put('an unknown class', withPolicy({ ...slowPolicy(), soft: transient }), ['/candidates/0/policy/soft']);
  put('a missing class', withPolicy({ version: 1, transient }), ['/candidates/0/policy/hard']);
  put('a legacy key in a version 1 document', withPolicy({ ...slowPolicy(), on_provider_error: 'stop' }), [
    '/candidates/0/policy/on_provider_error',
  ]);
  put('an unknown legacy action', withPolicy({ on_provider_error: 'pray' }), [
    '/candidates/0/policy/on_provider_error',
  ]);
  put('no name', { candidates: validProfile.candidates }, ['/name']);
  put('a 10,000-character name', { ...validProfile, name: hostile['10,000 characters'] }, ['/name']);
  put('no candidates', { name: 'x', candidates: [] }, ['/candidates']);
  put('candidates as an object', { name: 'x', candidates: { a: 1 } }, ['/candidates']);
  put('a candidate with a hostile id', { name: 'x', candidates: [{ profile_id: '\u202E../x' }] }, [
    '/candidates/0/profile_id',
  ]);
  put('two candidates with one id', { name: 'x', candidates: [{ profile_id: 'a' }, { profile_id: 'a' }] }, [
    '/candidates/1/profile_id',
  ]);
  put('every candidate disabled', { name: 'x', candidates: [{ profile_id: 'a', enabled: false }] }, [
    '/candidates',
  ]);
  put(
    '33 candidates',
    { name: 'x', candidates: Array.from({ length: 33 }, (_v, i) => ({ profile_id: `c${i}` })) },
    ['/candidates'],
  );
  put('an id differing from the path', { ...validProfile, id: 'other' }, ['/id']);
  put('a negative version field', { ...validProfile, version: -1 }, ['/version']);
  put('a version field as a string', { ...validProfile, version: '1' }, ['/version']);
  for (const ifMatch of ['abc', '"x"', 'W/"abc"', '*', '"1", "2"', '-1']) {
    put(`If-Match ${ifMatch}`, validProfile, ['/version'], { 'if-match': ifMatch });
  }
  cases.push({
    name: 'PUT profile: a hostile id in the path',
    role: 'admin',
    method: 'PUT',
    path: `/v1/profiles/${encodeURIComponent('\u0000../x')}`,
    body: validProfile,
    status: 422,
    code: 'invalid_input',
    pointers: ['/id'],
  });

  // Stale and conflicting writes: 409 with the authoritative state.
  const refusal = (name: string, c: Omit<BadCase, 'name' | 'status'>) =>
    cases.push({ name, status: 409, ...c });
  refusal('action with a stale generation', {
    role: 'operator',
    method: 'POST',
    path: actPath,
    body: { action: 'stop', expected_generation: 99 },
    code: 'stale_generation',
    route: state.active,
  });
  refusal('action with a state the route is not in', {
    role: 'admin',
    method: 'POST',
    path: actPath,
    body: { action: 'stop', expected_generation: 1, expected_state: 'retry_wait' },
    code: 'stale_state',
    route: state.active,
  });
  refusal('retry now on an active route', {
    role: 'operator',
    method: 'POST',
    path: actPath,
    body: { action: 'retry_now', expected_generation: 1 },
    code: 'not_allowed',
    route: state.active,
  });
  refusal('skip now on an active route', {
    role: 'operator',
    method: 'POST',
    path: actPath,
    body: { action: 'skip_now', expected_generation: 1 },
    code: 'not_allowed',
    route: state.active,
  });
  refusal('action on a waiting route with a stale generation', {
    role: 'operator',
    method: 'POST',
    path: `/v1/routes/${state.waiting}/actions`,
    body: { action: 'retry_now', expected_generation: 7 },
    code: 'stale_generation',
    route: state.waiting,
  });
  refusal('evidence with a stale generation', {
    role: 'adapter',
    method: 'POST',
    path: evidencePath,
    body: { generation: 99, envelope: overloadedEnvelope },
    code: 'stale_generation',
    route: state.active,
  });
  refusal('success with a stale generation', {
    role: 'adapter',
    method: 'POST',
    path: successPath,
    body: { generation: 99 },
    code: 'stale_generation',
    route: state.active,
  });
  refusal('a prompt with a stale generation', {
    role: 'adapter',
    method: 'POST',
    path: `/v1/routes/${state.active}/prompts`,
    body: { expected_generation: 99 },
    code: 'stale_generation',
    route: state.active,
  });
  refusal('an acknowledgement of no dispatch', {
    role: 'adapter',
    method: 'POST',
    path: `/v1/routes/${state.active}/dispatches/never-sent/ack`,
    code: 'stale_dispatch',
    route: state.active,
  });
  refusal('a route id that exists', {
    role: 'operator',
    method: 'POST',
    path: '/v1/routes',
    body: { route_id: state.active, profile_id: state.profile },
    code: 'route_exists',
  });
  refusal('a session that exists', {
    role: 'adapter',
    method: 'POST',
    path: '/v1/sessions',
    body: { task_id: state.task, session_id: state.session, profile_id: 'concrete', owner: state.owner },
    code: 'session_exists',
  });
  refusal('a session whose route id is taken', {
    role: 'adapter',
    method: 'POST',
    path: '/v1/sessions',
    body: { task_id: 't9', session_id: 'taken', profile_id: 'concrete', owner: 'o' },
    code: 'route_exists',
  });
  refusal('deleting a profile routes name', {
    role: 'admin',
    method: 'DELETE',
    path: `/v1/profiles/${state.profile}`,
    code: 'in_use',
  });
  refusal('a stale If-Match', {
    role: 'admin',
    method: 'PUT',
    path: `/v1/profiles/${state.profile}`,
    headers: { 'if-match': '"99"' },
    body: validProfile,
    code: 'version_conflict',
  });
  refusal('a stale version field', {
    role: 'admin',
    method: 'PUT',
    path: `/v1/profiles/${state.profile}`,
    body: { ...validProfile, version: 98 },
    code: 'version_conflict',
  });
  refusal('create over an existing profile (version 0)', {
    role: 'admin',
    method: 'PUT',
    path: `/v1/profiles/${state.spare}`,
    headers: { 'if-match': '"0"' },
    body: validProfile,
    code: 'version_conflict',
  });
  cases.push({
    name: 'start on an unknown profile',
    role: 'operator',
    method: 'POST',
    path: '/v1/routes',
    body: { profile_id: 'no-such-profile' },
    status: 404,
    code: 'not_found',
  });

  // Listing: bad cursor, limit, state, profile; the session queries.
  const list = (query: string, pointer: string) =>
    cases.push({
      name: `GET /v1/routes?${query.slice(0, 40)}`,
      role: 'viewer',
      method: 'GET',
      path: `/v1/routes?${query}`,
      status: 422,
      code: 'invalid_input',
      pointers: [pointer],
    });
  for (const limit of ['0', '-1', '1001', '1.5', 'abc', '', 'Infinity', '1&limit=2'])
    list(`limit=${limit}`, '/limit');
  for (const cursor of ['', '%00', 'x'.repeat(300), '%E2%80%AEabc', '..%2F..%2Fetc'])
    list(`cursor=${cursor}`, '/cursor');
  for (const value of ['sleeping', 'ACTIVE', 'active&state=retry_wait']) list(`state=${value}`, '/state');
  for (const value of ['%00', '%E2%80%AE', '']) list(`profile_id=${value}`, '/profile_id');
  for (const e of withoutBody.filter((x) => x.operation.parameters?.some((p) => p.name === 'task_id'))) {
    const role = allowedRoles[e.operation['x-recourse-access']]![0]!;
    cases.push({
      name: `${key(e)} without task_id`,
      role,
      method: e.method,
      path: existing(e.path),
      status: 422,
      code: 'invalid_input',
      pointers: ['/task_id'],
    });
    cases.push({
      name: `${key(e)} with two task_ids`,
      role,
      method: e.method,
      path: `${existing(e.path)}?task_id=${state.task}&task_id=x`,
      status: 422,
      code: 'invalid_input',
      pointers: ['/task_id'],
    });
  }
  cases.push({
    name: 'GET /v1/events a last_event_id over 32 characters',
    role: 'viewer',
    method: 'GET',
    path: `/v1/events?last_event_id=${'9'.repeat(40)}`,
    status: 422,
    code: 'invalid_input',
    pointers: ['/last_event_id'],
  });

  // Last-Event-ID garbage: a `reload` event, never a 5xx.
  for (const [role, value] of [
    ['viewer', 'garbage'],
    ['operator', '-1'],
    ['admin', '1e3'],
    ['adapter', '99999999999999'],
    ['viewer', '0x10'],
    ['operator', '1.5'],
    ['admin', '9'.repeat(30)],
  ] as const) {
    cases.push({
      name: `GET /v1/events Last-Event-ID ${value}`,
      role,
      method: 'GET',
      path: '/v1/events',
      headers: { 'last-event-id': value },
      status: 200,
      reload: true,
    });
  }
  cases.push({
    name: 'GET /v1/events ?last_event_id=garbage',
    role: 'adapter',
    method: 'GET',
    path: '/v1/events?last_event_id=garbage',
    status: 200,
    reload: true,
  });

  // No such endpoint, a bad URL.
  cases.push({
    name: 'an unknown path',
    role: 'admin',
    method: 'GET',
    path: '/v1/nothing-here',
    status: 404,
    code: 'not_found',
  });
  cases.push({
    name: 'an unknown method',
    role: 'admin',
    method: 'PATCH',
    path: `/v1/profiles/${state.profile}`,
    body: {},
    status: 404,
    code: 'not_found',
  });
  cases.push({
    name: 'a very long unknown path',
    role: 'admin',
    method: 'GET',
    path: `/v1/${'y'.repeat(10_000)}`,
    status: 404,
    code: 'not_found',
  });
  cases.push({
    name: 'bad percent-encoding in the path',
    role: 'viewer',
    method: 'GET',
    path: '/v1/routes/%E0%A4%A',
    status: 400,
    code: 'bad_url',
  });
  cases.push({
    name: 'headers too large',
    role: 'viewer',
    method: 'GET',
    path: '/v1/routes',
    headers: { 'x-padding': 'p'.repeat(20_000) },
    status: 431,
    code: 'headers_too_large',
  });
  return cases;
}

const jsonPointer = /^(\/([^~/]|~[01])*)*$/;
/** A stack frame or a source path in an answer. */
const stackTrace = /\n\s+at |\bat [\w.<>]+ \(|node:internal|node_modules|\/work\/|[\w-]+\.(ts|js|mjs):\d+/;

/** Every row of every table, as sorted JSON lines: equal dumps are the same logical database. */
function dump(file: string): Record<string, string[]> {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[];
    const result: Record<string, string[]> = {};
    for (const { name } of tables) {
      const rows = db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).all();
      result[name] = rows
        .map((row) => JSON.stringify(row, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('hex') : v)))
        .sort();
    }
    return result;
  } finally {
    db.close();
  }
}

/** The dump without the given attempt rows and the attempts' id counter. */
function logical(tables: Record<string, string[]>, historyOnly: readonly string[]): Record<string, string[]> {
  return {
    ...tables,
    attempts: (tables.attempts ?? []).filter((row) => !historyOnly.includes(row)),
    sqlite_sequence: (tables.sqlite_sequence ?? []).filter((row) => !row.includes('"name":"attempts"')),
  };
}

let live: LiveService;
let endpoints: ListedEndpoint[];
const logLines: string[] = [];

async function ok(answer: Promise<Answer>, status: number): Promise<Answer> {
  const settled = await answer;
  expect(settled.status, settled.text).toBe(status);
  return settled;
}

beforeAll(async () => {
  live = await startLiveService({
    logLevel: 'warn',
    logDestination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    }),
  });
  endpoints = await listedEndpoints(live.url);
  const url = live.url;
  // State to protect: two profiles, an active, a waiting and a stopped route, a task session, a route whose id
  // a new session would take.
  await ok(
    call(url, {
      method: 'PUT',
      path: `/v1/profiles/${state.profile}`,
      headers: bearer('admin'),
      body: validProfile,
    }),
    200,
  );
  await ok(
    call(url, {
      method: 'PUT',
      path: `/v1/profiles/${state.spare}`,
      headers: bearer('admin'),
      body: { name: 'Spare', candidates: [{ profile_id: 'c' }] },
    }),
    200,
  );
  // A plan under the id every `{id}` path uses, so plan endpoints reach their body checks.
  await ok(
    call(url, { method: 'PUT', path: `/v1/plans/${state.active}`, headers: bearer('operator'), body: {} }),
    200,
  );
  const started: Record<string, string> = {};
  for (const id of [state.active, state.waiting, state.stopped]) {
    const answer = await ok(
      call(url, {
        method: 'POST',
        path: '/v1/routes',
        headers: bearer('adapter'),
        body: { route_id: id, profile_id: state.profile, payload: { n: 1 } },
      }),
      201,
    );
    started[id] = (answer.json as { dispatch: { id: string } }).dispatch.id;
    await ok(
      call(url, {
        method: 'POST',
        path: `/v1/routes/${encodeURIComponent(id)}/dispatches/${started[id]}/ack`,
        headers: bearer('adapter'),
      }),
      200,
    );
  }
  const waiting = await ok(
    call(url, {
      method: 'POST',
      path: `/v1/routes/${state.waiting}/evidence`,
      headers: bearer('adapter'),
      body: {
        generation: 1,
        envelope: overloadedEnvelope,
        replay: { assistant_output: false, tool_activity: false },
      },
    }),
    200,
  );
  expect((waiting.json as { route: { state: string } }).route.state).toBe('retry_wait');
  await ok(
    call(url, {
      method: 'POST',
      path: `/v1/routes/${state.stopped}/actions`,
      headers: bearer('operator'),
      body: { action: 'stop', expected_generation: 1 },
    }),
    200,
  );
  // A session deleted while its acknowledged attempt runs: its route (`session:taken`) stays until the attempt
  // answers, and the session id cannot be opened again meanwhile.
  const taken = await ok(
    call(url, {
      method: 'POST',
      path: '/v1/sessions',
      headers: bearer('adapter'),
      body: { task_id: 't-taken', session_id: 'taken', profile_id: 'concrete', owner: 'o' },
    }),
    201,
  );
  const takenDispatch = (taken.json as { route: { dispatch: { id: string } } }).route.dispatch.id;
  await ok(
    call(url, {
      method: 'POST',
      path: `/v1/routes/${encodeURIComponent('session:taken')}/dispatches/${takenDispatch}/ack`,
      headers: bearer('adapter'),
    }),
    200,
  );
  await ok(
    call(url, { method: 'DELETE', path: '/v1/sessions/taken?task_id=t-taken', headers: bearer('operator') }),
    204,
  );
  const session = await ok(
    call(url, {
      method: 'POST',
      path: '/v1/sessions',
      headers: bearer('adapter'),
      body: { task_id: state.task, session_id: state.session, profile_id: 'concrete', owner: state.owner },
    }),
    201,
  );
  const route = (session.json as { route: { id: string; dispatch: { id: string } } }).route;
  await ok(
    call(url, {
      method: 'POST',
      path: `/v1/routes/${encodeURIComponent(route.id)}/dispatches/${route.dispatch.id}/ack`,
      headers: bearer('adapter'),
    }),
    200,
  );
  await live.service.recourse.engine.idle();
});

afterAll(async () => {
  await live?.close();
});

describe('bad requests', () => {
  it('at least 150 of them, across every endpoint and every role, each refused cleanly; the database unchanged', async () => {
    const cases = badCases(endpoints);
    expect(cases.length).toBeGreaterThanOrEqual(150);
    // Every endpoint and every role appears in the table.
    for (const e of endpoints) {
      const template = new RegExp(`^${e.path.replace(/\{[a-z_]+\}/g, '[^/]+')}(\\?|$)`);
      expect(
        cases.some((c) => c.method === e.method && template.test(c.path)),
        key(e),
      ).toBe(true);
    }
    for (const role of allRoles)
      expect(
        cases.some((c) => c.role === role),
        role,
      ).toBe(true);

    await live.service.recourse.engine.idle();
    const before = dump(live.database);
    expect(Object.keys(before).length).toBeGreaterThan(3);
    expect(before.routes?.length).toBeGreaterThanOrEqual(5);

    const wrong: string[] = [];
    for (const c of cases) {
      const answer = await call(live.url, {
        method: c.method,
        path: c.path,
        headers: { ...(c.role === null ? {} : bearer(c.role)), ...c.headers },
        ...(c.body === undefined ? {} : { body: c.body }),
      });
      const problems = check(c, answer);
      if (problems.length > 0) wrong.push(`${c.name} [${c.role ?? 'anonymous'}]: ${problems.join('; ')}`);
    }
    expect(wrong).toEqual([]);

    await live.service.recourse.engine.idle();
    const after = dump(live.database);
    // A refused stale failure is still kept as a history-only attempt row (docs/engine.md, `record_attempt`):
    // exactly one per stale evidence report, authorizing nothing. Everything else is as it was.
    const staleReports = cases.filter((c) => c.path.endsWith('/evidence') && c.code?.startsWith('stale_'));
    const historyOnly = (after.attempts ?? []).filter(
      (row) => !(before.attempts ?? []).includes(row) && /"decision":"stale: /.test(row),
    );
    expect(historyOnly).toHaveLength(staleReports.length);
    expect(logical(after, historyOnly)).toEqual(logical(before, []));
    expect(logLines.filter((line) => /internal error|"level":(50|60)/.test(line))).toEqual([]);
  });
});

function check(c: BadCase, answer: Answer): string[] {
  const problems: string[] = [];
  const got = `${answer.status} ${answer.text.slice(0, 200)}`;
  if (answer.status >= 500) problems.push(`a 5xx: ${got}`);
  if (answer.status !== c.status) problems.push(`expected ${c.status}, got ${got}`);
  if (stackTrace.test(answer.text)) problems.push(`a stack trace or file path: ${answer.text.slice(0, 300)}`);
  if (c.reload === true) {
    if (!(answer.headers.get('content-type') ?? '').startsWith('text/event-stream'))
      problems.push('not an event stream');
    if (!/^event: reload$/m.test(answer.text)) problems.push(`no reload event: ${answer.text.slice(0, 200)}`);
    return problems;
  }
  const body = answer.json as
    | {
        error?: { code?: unknown; message?: unknown };
        errors?: unknown;
        route?: { id?: unknown; generation?: unknown };
        current?: unknown;
      }
    | undefined;
  if (typeof body !== 'object' || body === null || typeof body.error !== 'object' || body.error === null) {
    return [...problems, `not {error: {code, message}}: ${got}`];
  }
  if (typeof body.error.code !== 'string' || typeof body.error.message !== 'string')
    problems.push(`error without code and message: ${got}`);
  if (c.code !== undefined && body.error.code !== c.code)
    problems.push(`code ${String(body.error.code)}, expected ${c.code}`);
  if (answer.status === 422) {
    const errors = body.errors as { path?: unknown; message?: unknown }[] | undefined;
    if (!Array.isArray(errors) || errors.length === 0) problems.push(`422 without errors: ${got}`);
    else {
      for (const e of errors) {
        if (typeof e.path !== 'string' || !jsonPointer.test(e.path) || typeof e.message !== 'string') {
          problems.push(`not {path: JSON pointer, message}: ${JSON.stringify(e).slice(0, 100)}`);
        }
      }
      for (const pointer of c.pointers ?? []) {
        if (!errors.some((e) => e.path === pointer))
          problems.push(`no error at ${JSON.stringify(pointer)}: ${got}`);
      }
    }
  }
  if (c.route !== undefined && (body.route?.id !== c.route || typeof body.route.generation !== 'number')) {
    problems.push(`no snapshot of ${c.route}: ${got}`);
  }
  if (c.code === 'version_conflict' && typeof body.current !== 'object') problems.push('no current document');
  return problems;
}
