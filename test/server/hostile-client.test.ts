import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { signSession, TokenTable } from '../../src/server/auth.js';
import { startTestService, suiteService, tokens, type TestRole } from '../helpers/service.js';

/**
 * What a demanding or hostile client meets at the edges of the HTTP contract, each over a real connection: the
 * challenge of a 401, the size of a 422, a body that is empty, a request that arrives while the server shuts down,
 * and an event stream whose client stops reading.
 */
const suite = suiteService();

/** A route with an acknowledged-or-not dispatch, on its own profile. */
async function startedRoute(id: string): Promise<{ id: string; dispatch: { id: string } }> {
  const saved = await fetch(`${suite.url}/v1/profiles/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: id, candidates: [{ profile_id: 'only', provider: `${id}-provider` }] }),
  });
  expect(saved.status).toBe(200);
  const started = await fetch(`${suite.url}/v1/routes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens.adapter}`, 'content-type': 'application/json' },
    body: JSON.stringify({ route_id: id, profile_id: id }),
  });
  expect(started.status).toBe(201);
  return (await started.json()) as { id: string; dispatch: { id: string } };
}

describe('a 401', () => {
  it('carries a Bearer challenge (RFC 9110 11.6.1), naming a refused token invalid_token (RFC 6750 3.1)', async () => {
    const none = await fetch(`${suite.url}/v1/me`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="recourse"');
    const wrong = await fetch(`${suite.url}/v1/routes/x/actions`, {
      method: 'POST',
      headers: { authorization: 'Bearer not-a-configured-token', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="recourse", error="invalid_token"');
    expect(await wrong.json()).toEqual({
      error: { code: 'unauthorized', message: 'the bearer token is not valid' },
    });
  });
});

describe('the Authorization header', () => {
  it('takes one or more spaces after Bearer (RFC 6750 2.1), and nothing else between scheme and token', async () => {
    for (const header of [`Bearer  ${tokens.viewer}`, `bearer   ${tokens.viewer}`]) {
      const me = await fetch(`${suite.url}/v1/me`, { headers: { authorization: header } });
      expect(me.status, header).toBe(200);
      expect(((await me.json()) as { role: string }).role).toBe('viewer');
    }
    for (const header of [
      `Bearer\t${tokens.viewer}`,
      `Bearer${tokens.viewer}`,
      `Bearer ${tokens.viewer} x`,
    ]) {
      const me = await fetch(`${suite.url}/v1/me`, { headers: { authorization: header } });
      expect(me.status, header).toBe(401);
    }
  });
});

describe('a 422', () => {
  it('lists the first 50 field errors and counts them all: 20,000 unknown fields do not come back 20,000 times', async () => {
    const body: Record<string, unknown> = { action: 'cancel', expected_generation: 1 };
    for (let i = 0; i < 20_000; i += 1) body[`field${i}`] = i;
    const answer = await fetch(`${suite.url}/v1/routes/x/actions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(422);
    const text = await answer.text();
    const refusal = JSON.parse(text) as { error: { message: string }; errors: { path: string }[] };
    expect(refusal.error).toEqual({
      code: 'invalid_input',
      message: '20000 invalid fields; the first 50 are listed',
    });
    expect(refusal.errors).toHaveLength(50);
    expect(refusal.errors[0]).toEqual({ path: '/field0', message: 'unknown field' });
    expect(text.length).toBeLessThan(4096);
  });
});

describe('an empty body', () => {
  it('is no body, whatever its Content-Type says, where the endpoint takes none; a body that is needed stays 400', async () => {
    const route = await startedRoute('empty-body');
    const ack = await fetch(`${suite.url}/v1/routes/${route.id}/dispatches/${route.dispatch.id}/ack`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.adapter}`, 'content-type': 'application/json' },
      body: '',
    });
    expect(ack.status).toBe(200);
    expect(((await ack.json()) as { result: string }).result).toBe('acknowledged');
    // What `curl -X POST -d ''` sends.
    const prompt = await fetch(`${suite.url}/v1/routes/${route.id}/prompts`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.adapter}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: '',
    });
    expect(prompt.status).toBe(200);
    const action = await fetch(`${suite.url}/v1/routes/${route.id}/actions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.operator}`, 'content-type': 'application/json' },
      body: '',
    });
    expect(action.status).toBe(400);
    expect(((await action.json()) as { error: { code: string } }).error.code).toBe('malformed_json');
  });
});

describe('a key that could reach a prototype', () => {
  it('is refused as 400 malformed_json saying so, not as "not valid JSON", wherever it is in the body', async () => {
    for (const body of [
      '{"profile_id":"p","payload":{"user":{"__proto__":{"admin":true}}}}',
      '{"profile_id":"p","payload":{"constructor":{"prototype":{"admin":true}}}}',
    ]) {
      const answer = await fetch(`${suite.url}/v1/routes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.adapter}`, 'content-type': 'application/json' },
        body,
      });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({
        error: {
          code: 'malformed_json',
          message:
            'the body holds a "__proto__" key, or a "constructor" key with "prototype" in it: rename it',
        },
      });
    }
    // A "constructor" that is only a word is data; beside an array of 300,000 items it is still read (422: too big).
    const large = await fetch(`${suite.url}/v1/routes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.adapter}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        profile_id: 'p',
        payload: { constructor: 'x', items: new Array(300_000).fill(0) },
      }),
    });
    expect(large.status).toBe(422);
  });
});

describe('recourse_route_actions_total', () => {
  it('counts a route action whose body was refused (422) as invalid, as documented', async () => {
    const invalidStops = async () => {
      const text = await (
        await fetch(`${suite.url}/metrics`, { headers: { authorization: `Bearer ${tokens.viewer}` } })
      ).text();
      const line = /^recourse_route_actions_total\{action="stop",result="invalid"\} (\d+)$/m.exec(text);
      return line === null ? 0 : Number(line[1]);
    };
    const before = await invalidStops();
    const refused = await fetch(`${suite.url}/v1/routes/any/actions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'stop', expected_generation: 0 }),
    });
    expect(refused.status).toBe(422);
    expect(await invalidStops()).toBe(before + 1);
  });
});

describe('/openapi.json', () => {
  it('tells every refusal an endpoint may answer (401, 403, 429, 400, 413, 415, 422), each with the error shape', async () => {
    type Responses = Record<string, { content?: { 'application/json': { schema: { $ref: string } } } }>;
    const document = (await (await fetch(`${suite.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Responses }>>;
      components: { schemas: { Error: { required: string[] } } };
    };
    const action = document.paths['/v1/routes/{id}/actions']!.post!.responses;
    for (const status of ['400', '401', '403', '404', '409', '413', '415', '422', '429']) {
      expect(action[status]?.content?.['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    }
    expect(action['200']!.content).toBeUndefined();
    expect(Object.keys(document.paths['/v1/routes/{id}']!.get!.responses).sort()).toEqual([
      '200',
      '401',
      '403',
      '404',
      '422',
      '429',
    ]);
    // Public: no credential to refuse; an unknown query parameter is 422 here too.
    expect(Object.keys(document.paths['/healthz']!.get!.responses).sort()).toEqual(['200', '422']);
    expect(document.components.schemas.Error.required).toEqual(['error']);
  });
});

/** A raw connection to the service, collecting whatever it is sent. */
async function rawConnection(url: string): Promise<{ socket: Socket; received: () => string }> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return { socket, received: () => text };
}

describe('shutting down', () => {
  it('a request that arrives while the server closes is 503 closed, in the shape of every error', async () => {
    const { service, stop } = await startTestService();
    const { socket, received } = await rawConnection(service.url);
    const arrived = new Promise((resolve) => service.app.server.once('request', resolve));
    const body = JSON.stringify({ action: 'cancel', expected_generation: 1 });
    // A request whose body is still arriving keeps its connection busy, so closing does not end it at once.
    socket.write(
      `POST /v1/routes/nothing/actions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tokens.operator}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await arrived;
    const closing = stop();
    await expect.poll(() => service.app.server.listening).toBe(false);
    socket.write(
      `${body.slice(5)}GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tokens.viewer}\r\n\r\n`,
    );
    await expect.poll(() => received().split('HTTP/1.1 ').length - 1).toBe(2);
    socket.destroy();
    await closing;
    const [, first, second] = received().split('HTTP/1.1 ') as [string, string, string];
    expect(first.startsWith('404 ')).toBe(true);
    expect(second.startsWith('503 ')).toBe(true);
    expect(second.toLowerCase()).toContain('connection: close');
    const json = JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4)) as unknown;
    expect(json).toEqual({
      error: {
        code: 'closed',
        message: 'the server is shutting down: send the request again once it is back',
      },
    });
  });
});

describe('an event stream whose client stops reading', () => {
  it('is cut off past 4 MiB behind, and its place among the open streams is free again', async () => {
    const { service, stop } = await startTestService({
      streamLimits: { total: 4, perRole: 4, perToken: 1 },
    });
    try {
      // About 6 MB of events to replay: more than the 4 MiB a stream may hold back, and the socket's buffers.
      for (let i = 0; i < 60; i += 1)
        service.hub.publish({ type: 'padding', data: { pad: 'x'.repeat(100_000) } });
      await service.hub.drained();
      const { socket } = await rawConnection(service.url);
      const opened = new Promise((resolve) => service.app.server.once('request', resolve));
      socket.pause();
      socket.write(
        `GET /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tokens.viewer}\r\nLast-Event-ID: 0\r\n\r\n`,
      );
      await opened;
      // Without the cut, the stalled stream keeps the token's one place for as long as its client lives.
      await expect
        .poll(
          async () => {
            const again = await fetch(`${service.url}/v1/events`, {
              headers: { authorization: `Bearer ${tokens.viewer}` },
            });
            await again.body?.cancel();
            return again.status;
          },
          { timeout: 10_000, interval: 200 },
        )
        .toBe(200);
      socket.destroy();
    } finally {
      await stop();
    }
  });
});

describe('an event stream opened with the session cookie', () => {
  it('ends when the cookie expires; connecting again with it is 401', async () => {
    // The key every node derives from the configured tokens, and a cookie signed 12 hours less 1.5 s ago.
    const table = new TokenTable(
      Object.entries(tokens).map(([role, token]) => ({ role: role as TestRole, token })),
    );
    const key = table.derivedKey();
    const cookie = signSession(key, table.session(key, tokens.viewer)!, Date.now() - 12 * 3600 * 1000 + 1500);
    const stream = await fetch(`${suite.url}/v1/events`, {
      headers: { cookie: `recourse_session=${cookie}` },
      signal: AbortSignal.timeout(15_000),
    });
    expect(stream.status).toBe(200);
    // Read to its end: without one, the read is aborted and the test fails.
    expect(await stream.text()).toMatch(/^retry: 2000/);
    const again = await fetch(`${suite.url}/v1/events`, {
      headers: { cookie: `recourse_session=${cookie}` },
    });
    expect(again.status).toBe(401);
  });
});
