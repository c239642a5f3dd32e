import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, tokens } from '../helpers/service.js';

/** Event streams are bounded in all and per role: one more is refused with 503, Retry-After and a JSON error. */
let stop: () => Promise<void>;
let base: string;
const open: AbortController[] = [];

beforeAll(async () => {
  const started = await startTestService({ streamLimits: { total: 3, perRole: 2 } });
  stop = started.stop;
  base = started.service.url;
});

afterAll(async () => {
  for (const c of open) c.abort();
  await stop();
});

/** Opens a stream and keeps it open (its body is never read), or answers the refusal. */
async function stream(role: keyof typeof tokens): Promise<Response> {
  const controller = new AbortController();
  const response = await fetch(`${base}/v1/events`, {
    headers: { authorization: `Bearer ${tokens[role]}` },
    signal: controller.signal,
  });
  if (response.status === 200) open.push(controller);
  return response;
}

describe('event-stream limits', () => {
  it('over the per-role limit, then over the total, a stream is refused with 503, Retry-After and a JSON error', async () => {
    expect((await stream('viewer')).status).toBe(200);
    expect((await stream('viewer')).status).toBe(200);
    const overRole = await stream('viewer');
    expect(overRole.status).toBe(503);
    expect(overRole.headers.get('retry-after')).toBe('30');
    expect(overRole.headers.get('content-type')).toMatch(/application\/json/);
    const roleBody = (await overRole.json()) as { error: { code: string; message: string } };
    expect(roleBody.error.code).toBe('too_many_streams');
    expect(roleBody.error.message).toMatch(/viewer role has 2 event streams open/);
    // Another role still opens one, up to the total.
    expect((await stream('operator')).status).toBe(200);
    const overTotal = await stream('admin');
    expect(overTotal.status).toBe(503);
    const totalBody = (await overTotal.json()) as { error: { code: string; message: string } };
    expect(totalBody.error).toMatchObject({ code: 'too_many_streams' });
    expect(totalBody.error.message).toMatch(/3 event streams open/);
    // A closed stream frees its place.
    open.shift()!.abort();
    await expect
      .poll(async () => {
        const again = await stream('admin');
        if (again.status !== 200) await again.body?.cancel();
        return again.status;
      })
      .toBe(200);
  });
});
