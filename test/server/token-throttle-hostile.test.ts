import { afterEach, describe, expect, it, vi } from 'vitest';
import { bearer, call, roleTokens, startLiveService, type LiveService } from './live-service.js';
import { startTestService } from '../helpers/service.js';

/** A wrong bearer token, different each time. */
function wrong(i: number): Record<string, string> {
  return { authorization: `Bearer wrong-token-${i}-0123456789` };
}

async function refuseTimes(live: LiveService, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const refused = await call(live.url, { method: 'GET', path: '/v1/routes', headers: wrong(i) });
    expect(refused.status).toBe(401);
  }
}

describe('the throttle measures its window on a clock that does not jump', () => {
  afterEach(() => vi.restoreAllMocks());

  it('the wall clock stepped back an hour (NTP) does not lock an address out for that hour', async () => {
    const live = await startLiveService({
      tokenThrottle: { failures: 2, windowMs: 300, countLoopback: true },
    });
    try {
      await refuseTimes(live, 2);
      expect(
        (await call(live.url, { method: 'GET', path: '/v1/routes', headers: bearer('viewer') })).status,
      ).toBe(429);
      const wall = Date.now.bind(Date);
      vi.spyOn(Date, 'now').mockImplementation(() => wall() - 3_600_000);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const right = await call(live.url, { method: 'GET', path: '/v1/routes', headers: bearer('viewer') });
      expect(right.headers.get('retry-after')).toBeNull();
      expect(right.status).toBe(200);
    } finally {
      vi.restoreAllMocks();
      await live.close();
    }
  });

  it('the wall clock stepped forward an hour does not end the wait early', async () => {
    const live = await startLiveService({
      tokenThrottle: { failures: 2, windowMs: 60_000, countLoopback: true },
    });
    try {
      await refuseTimes(live, 2);
      const wall = Date.now.bind(Date);
      vi.spyOn(Date, 'now').mockImplementation(() => wall() + 3_600_000);
      const right = await call(live.url, { method: 'GET', path: '/v1/routes', headers: bearer('viewer') });
      expect(right.status).toBe(429);
      expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(50);
    } finally {
      vi.restoreAllMocks();
      await live.close();
    }
  });
});

describe('/openapi.json tells of the throttle', () => {
  it('every endpoint that takes a token may answer 429 too_many_refused_tokens, and says so', async () => {
    const live = await startLiveService();
    try {
      type Operation = {
        responses: Record<string, unknown>;
        'x-recourse-access'?: string;
        security?: unknown[];
      };
      const document = (await call(live.url, { method: 'GET', path: '/openapi.json' })).json as {
        paths: Record<string, Record<string, Operation>>;
      };
      const missing: string[] = [];
      let checked = 0;
      for (const [path, operations] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          if (operation.responses['401'] === undefined) continue;
          checked += 1;
          if (operation.responses['429'] === undefined) missing.push(`${method.toUpperCase()} ${path}`);
        }
      }
      expect(checked).toBeGreaterThan(10);
      expect(missing).toEqual([]);
    } finally {
      await live.close();
    }
  });
});

describe('a sign-in link sent back with an ?error= that names no problem', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'])(
    '/sign-in?error=%s shows no problem (and nothing of the JavaScript object it names)',
    async (name) => {
      const { service, stop } = await startTestService({ webRoot: null });
      try {
        for (const path of [`/sign-in?error=${name}`, `/?error=${name}`]) {
          const answer = await call(service.url, { method: 'GET', path });
          expect(answer.status).toBe(200);
          expect(answer.text).toContain('The service is running');
          expect(answer.text).not.toContain('role="alert"');
          expect(answer.text).not.toMatch(/native code|\[object Object\]/);
        }
      } finally {
        await stop();
      }
    },
  );

  it('the known problems are still said', async () => {
    const { service, stop } = await startTestService({ webRoot: null });
    try {
      const answer = await call(service.url, {
        method: 'GET',
        path: '/sign-in?error=too_many_refused_tokens',
      });
      expect(answer.text).toContain('Too many tokens were refused from this address');
      expect(answer.text).not.toContain(roleTokens.admin);
    } finally {
      await stop();
    }
  });
});
