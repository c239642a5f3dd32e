import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, tokens } from '../helpers/service.js';

/**
 * Event streams are bounded in all, per role and per token: one more is refused with 503, Retry-After and a JSON
 * error.
 */
let stop: () => Promise<void>;
let base: string;
const open: AbortController[] = [];

beforeAll(async () => {
  const started = await startTestService({ streamLimits: { total: 3, perRole: 2, perToken: 2 } });
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

describe('the per-token limit', () => {
  const secondViewer = 'second-viewer-token-0123456789';
  let service: Awaited<ReturnType<typeof startTestService>>;
  const held: AbortController[] = [];

  beforeAll(async () => {
    service = await startTestService({
      streamLimits: { total: 10, perRole: 10, perToken: 2 },
      tokens: [
        ...Object.entries(tokens).map(([role, token]) => ({ role: role as keyof typeof tokens, token })),
        { role: 'viewer', token: secondViewer },
      ],
    });
  });

  afterAll(async () => {
    for (const c of held) c.abort();
    await service.stop();
  });

  async function open(headers: Record<string, string>): Promise<Response> {
    const controller = new AbortController();
    const response = await fetch(`${service.service.url}/v1/events`, { headers, signal: controller.signal });
    if (response.status === 200) held.push(controller);
    return response;
  }

  it('one token over its limit is refused, while another token of the same role still opens streams; its cookie counts as the token', async () => {
    const first = { authorization: `Bearer ${tokens.viewer}` };
    expect((await open(first)).status).toBe(200);
    // The browser cookie traded for the same token counts against the same token.
    const signIn = await fetch(`${service.service.url}/v1/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: new URL(service.service.url).origin },
      body: JSON.stringify({ token: tokens.viewer }),
    });
    expect(signIn.status).toBeLessThan(400);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    expect((await open({ cookie })).status).toBe(200);
    const over = await open({ cookie });
    expect(over.status).toBe(503);
    expect(over.headers.get('retry-after')).toBe('30');
    const body = (await over.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('too_many_streams');
    expect(body.error.message).toMatch(/this token has 2 event streams open/);
    expect(body.error.message).not.toContain(tokens.viewer);
    expect((await open(first)).status).toBe(503);
    // Another person's viewer token is not shut out by the first one's streams.
    expect((await open({ authorization: `Bearer ${secondViewer}` })).status).toBe(200);
  });
});
