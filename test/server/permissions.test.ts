import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSession, TokenTable } from '../../src/server/auth.js';
import {
  allowedRoles,
  allRoles,
  bearer,
  call,
  concretePath,
  keysDeep,
  listedEndpoints,
  overloadedEnvelope,
  roleTokens,
  schemaPropertyNames,
  slowPolicy,
  startLiveService,
  type Answer,
  type ListedEndpoint,
  type LiveService,
} from './live-service.js';

/** Credentials that are not one: each must be 401 on every non-public endpoint. */
const notCredentials: readonly { readonly name: string; readonly headers: Record<string, string> }[] = [
  { name: 'no credential', headers: {} },
  { name: 'an unknown bearer token', headers: { authorization: 'Bearer not-a-configured-token-0123456789' } },
  { name: 'a token differing in one character', headers: { authorization: `Bearer ${roleTokens.admin}x` } },
  { name: 'a Basic header', headers: { authorization: `Basic ${btoa(`admin:${roleTokens.admin}`)}` } },
  { name: 'a known token under another scheme', headers: { authorization: `Token ${roleTokens.admin}` } },
  { name: 'Bearer without a token', headers: { authorization: 'Bearer' } },
  { name: 'a token with a space', headers: { authorization: `Bearer ${roleTokens.admin} extra` } },
  { name: 'a token alone', headers: { authorization: roleTokens.admin } },
  { name: 'an oversized token', headers: { authorization: `Bearer ${'x'.repeat(4000)}` } },
  { name: 'a garbage session cookie', headers: { cookie: 'recourse_session=garbage' } },
];

/** What the probe gets from a public endpoint: 200, except sign-in (an empty body: 422) and sign-out (204). */
const publicProbeStatus: Readonly<Record<string, number>> = {
  'POST /v1/sign-in': 422,
  'POST /v1/sign-out': 204,
};

let live: LiveService;
let endpoints: ListedEndpoint[];

beforeAll(async () => {
  live = await startLiveService();
  endpoints = await listedEndpoints(live.url);
});

afterAll(async () => {
  await live?.close();
});

/**
 * A request that reaches the endpoint's handler without changing anything: unknown ids, an empty body. It comes
 * from our own origin, as the web UI's requests do (sign-in and sign-out refuse any other).
 */
function probe(endpoint: ListedEndpoint, headers: Record<string, string>): Promise<Answer> {
  return call(live.url, {
    method: endpoint.method,
    path: concretePath(endpoint.path, {}, 'permission-probe'),
    headers: { origin: live.url, ...headers },
    ...(endpoint.operation.requestBody === undefined ? {} : { body: {} }),
  });
}

function label(endpoint: ListedEndpoint): string {
  return `${endpoint.method} ${endpoint.path} (${endpoint.operation['x-recourse-access']})`;
}

describe('the permission matrix, enumerated from /openapi.json', () => {
  it('[API-04] lists every endpoint with a known access level, and the internal ones are the adapter’s', () => {
    expect(endpoints.length).toBeGreaterThanOrEqual(25);
    const unknown = endpoints.filter((e) => !(e.operation['x-recourse-access'] in allowedRoles)).map(label);
    expect(unknown).toEqual([]);
    const internal = endpoints.filter(
      (e) => e.path === '/v1/classify' || e.path.endsWith('/evidence') || e.path.endsWith('/ack'),
    );
    expect(internal.map((e) => e.path)).toEqual(
      expect.arrayContaining([
        '/v1/classify',
        '/v1/routes/{id}/evidence',
        '/v1/sessions/{id}/evidence',
        '/v1/routes/{id}/dispatches/{dispatch_id}/ack',
      ]),
    );
    expect(internal.filter((e) => e.operation['x-recourse-access'] !== 'adapter').map(label)).toEqual([]);
  });

  it.each(allRoles)(
    '[API-04][API-06] the %s role: allowed where its access permits, 403 elsewhere',
    async (role) => {
      const wrong: string[] = [];
      for (const endpoint of endpoints) {
        const answer = await probe(endpoint, bearer(role));
        const may = allowedRoles[endpoint.operation['x-recourse-access']]!.includes(role);
        if (may) {
          if (answer.status === 401 || answer.status === 403 || answer.status >= 500) {
            wrong.push(`${label(endpoint)}: ${answer.status} ${answer.text.slice(0, 120)}`);
          }
        } else {
          const code = (answer.json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
          if (answer.status !== 403 || code?.code !== 'forbidden' || typeof code.message !== 'string') {
            wrong.push(`${label(endpoint)}: ${answer.status} ${answer.text.slice(0, 120)}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    },
  );

  it.each(notCredentials)('[API-04] $name: 401 on every endpoint that is not public', async ({ headers }) => {
    const wrong: string[] = [];
    for (const endpoint of endpoints) {
      const answer = await probe(endpoint, headers);
      const isPublic = endpoint.operation['x-recourse-access'] === 'public';
      const error = (answer.json as { error?: { code?: unknown } } | undefined)?.error;
      const ok = isPublic
        ? answer.status === (publicProbeStatus[`${endpoint.method} ${endpoint.path}`] ?? 200)
        : answer.status === 401 && error?.code === 'unauthorized' && !answer.text.includes(roleTokens.admin);
      if (!ok) wrong.push(`${label(endpoint)}: ${answer.status} ${answer.text.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('401 comes before the body is read: a caller without a credential learns nothing from a bad body', async () => {
    const wrong: string[] = [];
    const guarded = endpoints.filter(
      (e) => e.operation.requestBody !== undefined && e.operation['x-recourse-access'] !== 'public',
    );
    for (const endpoint of guarded) {
      for (const body of ['{not json', 'x'.repeat(1024 * 1024 + 10)]) {
        const answer = await call(live.url, {
          method: endpoint.method,
          path: concretePath(endpoint.path, {}, 'permission-probe'),
          headers: { 'content-type': 'application/json' },
          body,
        });
        if (answer.status !== 401) wrong.push(`${label(endpoint)}: ${answer.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each(allRoles)('/v1/me says the %s role', async (role) => {
    const answer = await call(live.url, { method: 'GET', path: '/v1/me', headers: bearer(role) });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ role });
  });
});

describe('the browser session cookie', () => {
  async function cookieFor(token: string): Promise<string> {
    const answer = await call(live.url, { method: 'GET', path: `/?token=${encodeURIComponent(token)}` });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/');
    const setCookie = answer.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^recourse_session=[^;]+;/);
    expect(setCookie).toMatch(/;\s*HttpOnly(;|$)/);
    expect(setCookie).toMatch(/;\s*SameSite=Strict(;|$)/);
    expect(setCookie).toMatch(/;\s*Path=\/(;|$)/);
    expect(setCookie).not.toContain(token);
    return setCookie.split(';')[0]!;
  }

  const origin = () => live.url;

  it('GET /?token=T answers 303 with an HttpOnly SameSite=Strict cookie that reads /v1/me', async () => {
    for (const role of allRoles) {
      const cookie = await cookieFor(roleTokens[role]);
      const me = await call(live.url, { method: 'GET', path: '/v1/me', headers: { cookie } });
      expect(me.status).toBe(200);
      expect(me.json).toMatchObject({ role });
    }
  });

  it('an unknown token in the URL gets no cookie: 303 to the sign-in page, the token left behind', async () => {
    const answer = await call(live.url, { method: 'GET', path: '/?token=not-a-token-0123456789' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/sign-in?error=invalid_token');
    expect(answer.headers.get('set-cookie')).toBeNull();
  });

  it('a change made with the cookie needs a same-origin Origin header', async () => {
    const cookie = await cookieFor(roleTokens.operator);
    const change = (headers: Record<string, string>) =>
      call(live.url, {
        method: 'POST',
        path: '/v1/routes/cookie-probe/actions',
        headers: { cookie, ...headers },
        body: { action: 'stop', expected_generation: 1 },
      });
    const refused: Record<string, string>[] = [
      {},
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: `${origin()}.evil.example` },
      { origin: origin().replace('http:', 'ftp:') },
    ];
    for (const headers of refused) {
      const answer = await change(headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.json).toMatchObject({ error: { code: 'cross_origin' } });
    }
    // Same origin: the request reaches the handler (the route does not exist).
    const same = await change({ origin: origin() });
    expect(same.status).toBe(404);
    expect(same.json).toMatchObject({ error: { code: 'not_found' } });
    // Reads need no Origin.
    const read = await call(live.url, { method: 'GET', path: '/v1/routes', headers: { cookie } });
    expect(read.status).toBe(200);
  });

  it('the cookie carries its role’s permissions, not more', async () => {
    const cookie = await cookieFor(roleTokens.viewer);
    const answer = await call(live.url, {
      method: 'PUT',
      path: '/v1/profiles/cookie-profile',
      headers: { cookie, origin: origin() },
      body: { name: 'x', candidates: [{ profile_id: 'a' }] },
    });
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({ error: { code: 'forbidden' } });
  });

  it('a tampered or expired cookie is 401', async () => {
    const cookie = await cookieFor(roleTokens.viewer);
    const value = cookie.slice('recourse_session='.length);
    const [version, role, expires, held, signature] = value.split('.') as [
      string,
      string,
      string,
      string,
      string,
    ];
    const flipped = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    // The same signing key the service derives from its tokens: a fresh cookie signed here is accepted, so the
    // expired one below fails for its age alone.
    const table = new TokenTable(allRoles.map((r) => ({ role: r, token: roleTokens[r] })));
    const key = table.derivedKey();
    const viewer = table.session(key, roleTokens.viewer)!;
    const admin = table.session(key, roleTokens.admin)!;
    const fresh = signSession(key, viewer, Date.now());
    const expired = signSession(key, viewer, Date.now() - 13 * 3600 * 1000);
    const v1Body = `v1.viewer.${expires}`;
    const cases: Record<string, string> = {
      'role raised': `${version}.admin.${expires}.${held}.${signature}`,
      'expiry pushed': `${version}.${role}.${Number(expires) + 3600}.${held}.${signature}`,
      'signature changed': `${version}.${role}.${expires}.${held}.${flipped}`,
      'signature dropped': `${version}.${role}.${expires}.${held}`,
      'version changed': `v3.${role}.${expires}.${held}.${signature}`,
      'fingerprint swapped for the admin token’s': `${version}.${role}.${expires}.${admin.fingerprint}.${signature}`,
      // Validly signed, but for the admin token under the viewer role: the fingerprint must match the role.
      'fingerprint of another role’s token': signSession(
        key,
        { role: 'viewer', fingerprint: admin.fingerprint },
        Date.now(),
      ),
      // The old form, bound to a role only, validly signed: it fails closed (sign in again).
      'a v1 cookie': `${v1Body}.${createHmac('sha256', key).update(v1Body).digest('base64url')}`,
      expired,
    };
    const ok = await call(live.url, {
      method: 'GET',
      path: '/v1/me',
      headers: { cookie: `recourse_session=${fresh}` },
    });
    expect(ok.status).toBe(200);
    for (const [name, tampered] of Object.entries(cases)) {
      const answer = await call(live.url, {
        method: 'GET',
        path: '/v1/me',
        headers: { cookie: `recourse_session=${tampered}` },
      });
      expect(answer.status, name).toBe(401);
      expect(answer.json, name).toMatchObject({ error: { code: 'unauthorized' } });
    }
  });
});

/** Names a request field may not have (API-05, OUT-02, OUT-03): a regular expression or a class assignment. */
const regexName =
  /^(pattern|patterns|regex|regexes|regexp|regexps|regular_expression|match|matcher|matches)$|regex/i;
const classAssignmentName =
  /^(class|classes|policy_class|code_class|class_of|remap|remaps|remapping|mapping)$|remap/i;

describe('what /openapi.json proves absent', () => {
  function bodyPropertyNames(except: readonly string[] = []): string[] {
    const names: string[] = [];
    for (const e of endpoints.filter((x) => !except.includes(x.path))) {
      schemaPropertyNames(e.operation.requestBody?.content['application/json'].schema, names);
      for (const p of e.operation.parameters ?? []) names.push(p.name);
    }
    return names;
  }

  it('[API-05][OUT-02][OUT-03] no request field accepts a regular expression or assigns a class', () => {
    const names = bodyPropertyNames();
    // The walk sees the documented fields (it would pass vacuously on an empty document otherwise).
    expect(names).toEqual(
      expect.arrayContaining(['profile_id', 'action', 'expected_generation', 'envelope']),
    );
    expect(names.filter((n) => regexName.test(n))).toEqual([]);
    expect(names.filter((n) => classAssignmentName.test(n))).toEqual([]);
  });

  it('[API-05][OUT-02][OUT-03] a profile document with such a field at any level is refused and changes nothing', async () => {
    // The profile body is any JSON in the document (the engine's validator checks it), so show it by refusal.
    const base = { name: 'Absence', candidates: [{ profile_id: 'a', policy: slowPolicy() }] };
    const saved = await call(live.url, {
      method: 'PUT',
      path: '/v1/profiles/absence',
      headers: bearer('admin'),
      body: base,
    });
    expect(saved.status).toBe(200);
    const names = [
      'pattern',
      'regex',
      'regexp',
      'match',
      'class',
      'classes',
      'policy_class',
      'code_class',
      'remap',
    ];
    const placements: Record<string, (name: string) => unknown> = {
      profile: (name) => ({ ...base, [name]: 'rate_limited' }),
      candidate: (name) => ({ ...base, candidates: [{ ...base.candidates[0], [name]: 'transient' }] }),
      policy: (name) => ({
        ...base,
        candidates: [{ profile_id: 'a', policy: { ...slowPolicy(), [name]: '.*' } }],
      }),
      'class policy': (name) => ({
        ...base,
        candidates: [
          {
            profile_id: 'a',
            policy: { ...slowPolicy(), transient: { ...slowPolicy().transient, [name]: 'overloaded' } },
          },
        ],
      }),
      'legacy map': (name) => ({ ...base, candidates: [{ profile_id: 'a', policy: { [name]: 'stop' } }] }),
    };
    for (const [where, build] of Object.entries(placements)) {
      for (const name of names) {
        const answer = await call(live.url, {
          method: 'PUT',
          path: '/v1/profiles/absence',
          headers: bearer('admin'),
          body: build(name),
        });
        expect(answer.status, `${name} in the ${where}`).toBe(422);
        const errors = (answer.json as { errors: { path: string }[] }).errors;
        expect(
          errors.some((e) => e.path.endsWith(`/${name}`)),
          `${name} in the ${where}: ${answer.text}`,
        ).toBe(true);
      }
    }
    // A legacy map may name a code's action, never move a code to another class.
    const remap = await call(live.url, {
      method: 'PUT',
      path: '/v1/profiles/absence',
      headers: bearer('admin'),
      body: { ...base, candidates: [{ profile_id: 'a', policy: { rate_limited: 'hard' } }] },
    });
    expect(remap.status).toBe(422);
    const after = await call(live.url, {
      method: 'GET',
      path: '/v1/profiles/absence',
      headers: bearer('viewer'),
    });
    expect(after.json).toEqual(saved.json);
  });

  it('[API-05] no other body takes a pattern or a class either: strict bodies refuse them', async () => {
    // The probe id names a plan, so plan endpoints reach their body checks (an unknown plan is 404 first).
    await call(live.url, {
      method: 'PUT',
      path: '/v1/plans/absence-probe',
      headers: bearer('operator'),
      body: {},
    });
    const wrong: string[] = [];
    for (const e of endpoints.filter(
      (x) => x.operation.requestBody !== undefined && x.path !== '/v1/profiles/{id}',
    )) {
      const role = allowedRoles[e.operation['x-recourse-access']]![0]!;
      for (const name of ['pattern', 'regex', 'class', 'remap']) {
        const answer = await call(live.url, {
          method: e.method,
          path: concretePath(e.path, {}, 'absence-probe'),
          headers: bearer(role),
          body: { [name]: '.*' },
        });
        const errors =
          (answer.json as { errors?: { path: string; message: string }[] } | undefined)?.errors ?? [];
        if (
          answer.status !== 422 ||
          !errors.some((x) => x.path === `/${name}` && x.message.startsWith('unknown field'))
        ) {
          wrong.push(`${label(e)} ${name}: ${answer.status} ${answer.text.slice(0, 100)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('[API-06][API-08] only admin edits a profile; no endpoint assigns offices or edits policy otherwise', () => {
    const changesProfiles = endpoints.filter((e) => e.path.startsWith('/v1/profiles') && e.method !== 'GET');
    expect(changesProfiles.map((e) => `${e.method} ${e.path}`).sort()).toEqual([
      'DELETE /v1/profiles/{id}',
      'PUT /v1/profiles/{id}',
    ]);
    expect(changesProfiles.every((e) => e.operation['x-recourse-access'] === 'admin')).toBe(true);
    const assigning = endpoints.filter((e) => /office|assign|polic/i.test(e.path));
    expect(assigning.map(label)).toEqual([]);
    // Every other change names no policy field.
    const policyFields = endpoints
      .filter((e) => !e.path.startsWith('/v1/profiles'))
      .flatMap((e) => schemaPropertyNames(e.operation.requestBody?.content['application/json'].schema))
      .filter((n) => /polic|candidate|on_exhausted|retry|wait_for_reset/i.test(n));
    expect(policyFields).toEqual([]);
  });

  it('[API-06][API-08] operator, viewer and adapter cannot create, replace or delete a profile', async () => {
    const document = { name: 'Guarded', candidates: [{ profile_id: 'a', policy: slowPolicy() }] };
    const created = await call(live.url, {
      method: 'PUT',
      path: '/v1/profiles/guarded',
      headers: bearer('admin'),
      body: document,
    });
    expect(created.status).toBe(200);
    for (const role of ['operator', 'viewer', 'adapter'] as const) {
      const replace = await call(live.url, {
        method: 'PUT',
        path: '/v1/profiles/guarded',
        headers: bearer(role),
        body: { ...document, candidates: [{ profile_id: 'a', policy: slowPolicy('stop') }] },
      });
      expect(replace.status, role).toBe(403);
      const create = await call(live.url, {
        method: 'PUT',
        path: `/v1/profiles/made-by-${role}`,
        headers: bearer(role),
        body: document,
      });
      expect(create.status, role).toBe(403);
      const remove = await call(live.url, {
        method: 'DELETE',
        path: '/v1/profiles/guarded',
        headers: bearer(role),
      });
      expect(remove.status, role).toBe(403);
      // An office route started by an orchestrator cannot carry a policy either.
      if (role !== 'viewer') {
        const office = await call(live.url, {
          method: 'POST',
          path: '/v1/routes',
          headers: bearer(role),
          body: { profile_id: 'guarded', caller: 'office', policy: slowPolicy('stop') },
        });
        expect(office.status, role).toBe(422);
        expect(office.json).toMatchObject({ errors: [{ path: '/policy', message: 'unknown field' }] });
      }
    }
    const after = await call(live.url, { method: 'GET', path: '/v1/profiles', headers: bearer('viewer') });
    const ids = (after.json as { profiles: { id: string; version: number }[] }).profiles;
    expect(ids.find((p) => p.id === 'guarded')?.version).toBe(1);
    expect(ids.some((p) => p.id.startsWith('made-by-'))).toBe(false);
  });

  it('[API-07] reading a profile or a route exposes no credential, raw evidence or payload', async () => {
    const secret = 'sk-ant-api03-SECRETSECRETSECRETSECRETSECRET0123456789';
    const profile = await call(live.url, {
      method: 'PUT',
      path: '/v1/profiles/readable',
      headers: bearer('admin'),
      body: {
        name: 'Readable',
        candidates: [
          { profile_id: 'first', provider: 'anthropic', model: 'large', policy: slowPolicy() },
          { profile_id: 'second', policy: slowPolicy() },
        ],
      },
    });
    expect(profile.status).toBe(200);
    // A profile cannot hold a credential in the first place.
    const withKey = await call(live.url, {
      method: 'PUT',
      path: '/v1/profiles/readable',
      headers: bearer('admin'),
      body: { name: 'Readable', candidates: [{ profile_id: 'first', api_key: secret }] },
    });
    expect(withKey.status).toBe(422);
    const started = await call(live.url, {
      method: 'POST',
      path: '/v1/routes',
      headers: bearer('adapter'),
      body: {
        route_id: 'readable-route',
        profile_id: 'readable',
        payload: { prompt: 'private prompt', secret },
      },
    });
    expect(started.status).toBe(201);
    const dispatch = (started.json as { dispatch: { id: string } }).dispatch.id;
    const ack = await call(live.url, {
      method: 'POST',
      path: `/v1/routes/readable-route/dispatches/${dispatch}/ack`,
      headers: bearer('adapter'),
    });
    expect(ack.status).toBe(200);
    const failed = await call(live.url, {
      method: 'POST',
      path: '/v1/routes/readable-route/evidence',
      headers: bearer('adapter'),
      body: {
        generation: 1,
        envelope: {
          ...overloadedEnvelope,
          headers: { authorization: `Bearer ${secret}`, 'x-api-key': secret },
          body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded key=${secret}"}}`,
        },
        replay: { assistant_output: false, tool_activity: false },
      },
    });
    expect(failed.status).toBe(200);
    expect((failed.json as { route: { state: string } }).route.state).toBe('retry_wait');
    const reads = [
      '/v1/profiles',
      '/v1/profiles/readable',
      '/v1/routes',
      '/v1/routes/readable-route',
      '/v1/routes/readable-route/attempts',
    ];
    for (const path of reads) {
      const answer = await call(live.url, { method: 'GET', path, headers: bearer('viewer') });
      expect(answer.status, path).toBe(200);
      const leaking = keysDeep(answer.json).filter((k) =>
        /token|secret|api_?key|password|passwd|credential|envelope|raw|payload|header/i.test(k),
      );
      expect(leaking, path).toEqual([]);
      expect(answer.text, path).not.toContain(secret);
      expect(answer.text, path).not.toContain('private prompt');
    }
  });

  it('[OUT-04] the classifier takes evidence only: no model, prompt or external classifier option', () => {
    const classify = endpoints.find((e) => e.path === '/v1/classify' && e.method === 'POST');
    const schema = classify?.operation.requestBody?.content['application/json'].schema;
    expect(Object.keys(schema?.properties ?? {}).sort()).toEqual(['envelope', 'generation', 'invocation_id']);
    const text = endpoints.map((e) => `${e.path} ${e.operation.summary}`).join('\n');
    expect(text).not.toMatch(/\bllm\b|language model|\bai\b|embedding|inference/i);
  });

  it('[OUT-05] no endpoint buys credits, upgrades, authenticates an account or edits provider configuration', () => {
    // Signing a browser in to Recourse itself (a configured Recourse token for the session cookie) is no provider
    // account: it takes that one token and nothing else.
    const ownSession = ['/v1/sign-in', '/v1/sign-out'];
    const signIn = endpoints.find((e) => e.path === '/v1/sign-in');
    expect(
      Object.keys(signIn?.operation.requestBody?.content['application/json'].schema.properties ?? {}),
    ).toEqual(['token']);
    const offending = endpoints
      .filter((e) => !ownSession.includes(e.path))
      .filter((e) =>
        /credit|billing|purchase|\bbuy|subscri|upgrade|log ?in|sign ?in|oauth|authenticat|account|provider[ _-]?config|api[ _-]?key/i.test(
          `${e.path} ${e.operation.summary}`,
        ),
      );
    expect(offending.map(label)).toEqual([]);
    const names = bodyPropertyNames(ownSession).filter((n) =>
      /credit|account|api_?key|token|secret|password|provider_config/i.test(n),
    );
    expect(names).toEqual([]);
  });

  it('[OUT-06] every change to a route is fenced: no request can skip the generation or the safety gate', () => {
    const body = (path: string) =>
      endpoints.find((e) => e.path === path && e.method === 'POST')?.operation.requestBody?.content[
        'application/json'
      ].schema;
    expect(body('/v1/routes/{id}/actions')?.required).toContain('expected_generation');
    expect(body('/v1/routes/{id}/evidence')?.required).toContain('generation');
    expect(body('/v1/routes/{id}/success')?.required).toContain('generation');
    const bypass = bodyPropertyNames().filter((n) =>
      /force|unsafe|override|bypass|skip_safety|safety|ignore|unfenced|any_generation/i.test(n),
    );
    expect(bypass).toEqual([]);
  });

  it('[OUT-07] no endpoint routes by cost, usage or telemetry', () => {
    const offending = endpoints.filter((e) =>
      /telemetry|cost|price|pricing|usage|budget|spend|billing/i.test(`${e.path} ${e.operation.summary}`),
    );
    expect(offending.map(label)).toEqual([]);
    const names = bodyPropertyNames().filter((n) =>
      /telemetry|cost|price|usage|budget|spend|weight|score/i.test(n),
    );
    expect(names).toEqual([]);
    const list = endpoints.find((e) => e.path === '/v1/routes' && e.method === 'GET');
    expect((list?.operation.parameters ?? []).map((p) => p.name).sort()).toEqual([
      'cursor',
      'limit',
      'profile_id',
      'state',
    ]);
  });
});
