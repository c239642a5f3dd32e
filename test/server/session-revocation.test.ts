import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/server/service.js';
import type { Role } from '../../src/server/auth.js';

/**
 * With `RECOURSE_SECRET` (what several nodes share) the cookie key does not change with the tokens, so the cookie
 * itself must name the token it was traded for: removing the token from the configuration ends its sessions.
 */
const secret = 'a-shared-cookie-secret-0123456789';
const leaked = 'LEAKEDOPTOKEN-123456789';
const kept = 'KEPTOPERATORTOKEN-123456789';
const admin = 'ADMINTOKEN-0123456789abcdef';

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'recourse-revoke-'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function serve(tokens: { role: Role; token: string }[]): Promise<RunningService> {
  return startService({
    port: 0,
    host: '127.0.0.1',
    database: join(folder, 'recourse.db'),
    tokens,
    secret,
    version: 'test',
    logLevel: 'silent',
  });
}

async function cookieFor(url: string, token: string): Promise<string> {
  const answer = await fetch(`${url}/?token=${token}`, { redirect: 'manual' });
  expect(answer.status).toBe(303);
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0]!;
  expect(cookie).toMatch(/^recourse_session=v2\./);
  expect(cookie).not.toContain(token);
  return cookie;
}

async function me(url: string, cookie: string): Promise<{ status: number; body: unknown }> {
  const answer = await fetch(`${url}/v1/me`, { headers: { cookie } });
  return { status: answer.status, body: await answer.json() };
}

describe('a session cookie ends with the token it was traded for', () => {
  it('removing a token from the configuration ends its cookies after a restart, with the same secret', async () => {
    const first = await serve([
      { role: 'operator', token: leaked },
      { role: 'operator', token: kept },
      { role: 'admin', token: admin },
    ]);
    let leakedCookie: string;
    let keptCookie: string;
    try {
      leakedCookie = await cookieFor(first.url, leaked);
      keptCookie = await cookieFor(first.url, kept);
      expect(await me(first.url, leakedCookie)).toMatchObject({ status: 200, body: { role: 'operator' } });
    } finally {
      await first.close();
    }
    const second = await serve([
      { role: 'operator', token: kept },
      { role: 'admin', token: admin },
    ]);
    try {
      const bearer = await fetch(`${second.url}/v1/me`, { headers: { authorization: `Bearer ${leaked}` } });
      expect(bearer.status).toBe(401);
      expect(await me(second.url, leakedCookie)).toMatchObject({
        status: 401,
        body: { error: { code: 'unauthorized' } },
      });
      const change = await fetch(`${second.url}/v1/routes/revoked-probe/actions`, {
        method: 'POST',
        headers: { cookie: leakedCookie, origin: second.url, 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'stop', expected_generation: 1 }),
      });
      expect(change.status).toBe(401);
      // The same secret, the token still configured: its cookie still works on the restarted node.
      expect(await me(second.url, keptCookie)).toMatchObject({ status: 200, body: { role: 'operator' } });
    } finally {
      await second.close();
    }
  });

  it('a token moved to another role does not keep its old role through the cookie', async () => {
    const first = await serve([
      { role: 'admin', token: admin },
      { role: 'operator', token: leaked },
    ]);
    let cookie: string;
    try {
      cookie = await cookieFor(first.url, leaked);
    } finally {
      await first.close();
    }
    const second = await serve([
      { role: 'admin', token: admin },
      { role: 'viewer', token: leaked },
    ]);
    try {
      expect((await me(second.url, cookie)).status).toBe(401);
      const again = await cookieFor(second.url, leaked);
      expect(await me(second.url, again)).toMatchObject({ status: 200, body: { role: 'viewer' } });
    } finally {
      await second.close();
    }
  });
});
