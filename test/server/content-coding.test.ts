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
