import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { call, policy, suiteService, tokens } from '../helpers/service.js';

/** A body is read as it was sent: one that says it is compressed is refused, whether it is or not. */
describe('a request body with a Content-Encoding', () => {
  const live = suiteService({ webRoot: null });

  it('is 415 unsupported_media_type naming the coding, gzipped or only labelled so; nothing changes', async () => {
    const saved = await call(live.url, 'admin', 'PUT', '/v1/profiles/p', {
      name: 'p',
      candidates: [{ profile_id: 'a', provider: 'one', policy: policy(1, 3600, 'stop') }],
    });
    expect(saved.status).toBe(200);
    const started = await call(live.url, 'adapter', 'POST', '/v1/routes', { route_id: 'r', profile_id: 'p' });
    expect(started.status).toBe(201);
    const stop = JSON.stringify({ action: 'stop', expected_generation: 1 });
    const send = (body: string | Uint8Array, coding: string) =>
      fetch(`${live.url}/v1/routes/r/actions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens.operator}`,
          'content-type': 'application/json',
          'content-encoding': coding,
        },
        body,
      });
    for (const [body, coding] of [
      [gzipSync(stop), 'gzip'],
      [stop, 'gzip'],
      [stop, 'br'],
      [stop, 'identity, gzip'],
    ] as const) {
      const answer = await send(body, coding);
      expect(answer.status, coding).toBe(415);
      const refusal = (await answer.json()) as { error: { code: string; message: string } };
      expect(refusal.error.code).toBe('unsupported_media_type');
      expect(refusal.error.message).toContain('Content-Encoding');
    }
    const route = await call(live.url, 'viewer', 'GET', '/v1/routes/r');
    expect((route.body as { state: string }).state).toBe('active');
    // `identity` is no coding at all.
    const plain = await send(stop, 'identity');
    expect(plain.status).toBe(200);
  });
});

/** JSON is UTF-8 (RFC 8259 8.1): bytes that are not are refused, not decoded into replacement characters. */
describe('a request body that is not UTF-8', () => {
  const live = suiteService({ webRoot: null });

  it('is 400 malformed_json saying so, whatever its charset says; nothing is recorded; UTF-8 is kept exactly', async () => {
    const created = await call(live.url, 'operator', 'PUT', '/v1/plans/p', {});
    expect(created.status).toBe(200);
    const report = (bytes: Buffer, type: string) =>
      fetch(`${live.url}/v1/plans/p/errors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.adapter}`, 'content-type': type },
        body: bytes,
      });
    const text = '{"phase":"strategize","message":"Zeitüberschreitung"}';
    for (const type of ['application/json; charset=iso-8859-1', 'application/json']) {
      const latin1 = await report(Buffer.from(text, 'latin1'), type);
      expect(latin1.status, type).toBe(400);
      expect(await latin1.json()).toEqual({
        error: { code: 'malformed_json', message: 'the body is not UTF-8: send JSON encoded as UTF-8' },
      });
    }
    expect(
      ((await call(live.url, 'viewer', 'GET', '/v1/plans/p/errors')).body as { errors: [] }).errors,
    ).toEqual([]);
    const utf8 = await report(Buffer.from(text, 'utf8'), 'application/json');
    expect(utf8.status).toBe(200);
    expect(((await utf8.json()) as { record: { message: string } }).record.message).toBe(
      'Zeitüberschreitung',
    );
  });
});
