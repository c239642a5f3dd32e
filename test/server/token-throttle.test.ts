import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey, throttledAddress, TokenThrottle } from '../../src/server/token-throttle.js';
import { bearer, call, roleTokens, startLiveService, type LiveService } from './live-service.js';

/** A GET from another loopback address (127.0.0.2), as a second client on another host would be. */
function getFrom(localAddress: string, url: string, path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url + path,
      { localAddress, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('refused tokens from one address are throttled', () => {
  let live: LiveService;
  beforeAll(async () => {
    live = await startLiveService({ tokenThrottle: { failures: 3, windowMs: 60_000, countLoopback: true } });
  });
  afterAll(() => live?.close());

  it('after 3 refused tokens every token it sends is refused 429 with Retry-After, the right one too; another address is not', async () => {
    for (let i = 0; i < 3; i++) {
      const refused = await call(live.url, {
        method: 'GET',
        path: '/v1/routes',
        headers: { authorization: `Bearer wrong-token-${i}-0123456789` },
      });
      expect(refused.status).toBe(401);
    }
    const right = await call(live.url, { method: 'GET', path: '/v1/routes', headers: bearer('viewer') });
    expect(right.status).toBe(429);
    expect(right.json).toMatchObject({ error: { code: 'too_many_refused_tokens' } });
    const wait = Number(right.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(right.text).not.toContain(roleTokens.viewer);

    // Signing in from the same address: refused before the token is looked at.
    const signIn = await call(live.url, {
      method: 'POST',
      path: '/v1/sign-in',
      headers: { origin: live.url },
      body: { token: roleTokens.admin },
    });
    expect(signIn.status).toBe(429);
    expect(signIn.headers.get('set-cookie')).toBeNull();
    // The sign-in link: sent back to the sign-in page with the reason, no cookie.
    const link = await call(live.url, { method: 'GET', path: `/?token=${roleTokens.admin}` });
    expect(link.status).toBe(303);
    expect(link.headers.get('location')).toBe('/sign-in?error=too_many_refused_tokens');
    expect(link.headers.get('set-cookie')).toBeNull();

    // A client on another address is not held back by this one.
    expect(await getFrom('127.0.0.2', live.url, '/v1/routes', roleTokens.viewer)).toBe(200);
    // Public endpoints need no token and stay open.
    expect((await call(live.url, { method: 'GET', path: '/healthz' })).status).toBe(200);
  });

  it('a session cookie is not a guess and is not throttled', async () => {
    const other = await startLiveService({
      tokenThrottle: { failures: 1, windowMs: 60_000, countLoopback: true },
    });
    try {
      const signIn = await call(other.url, {
        method: 'POST',
        path: '/v1/sign-in',
        headers: { origin: other.url },
        body: { token: roleTokens.viewer },
      });
      expect(signIn.status).toBe(204);
      const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
      const wrong = await call(other.url, {
        method: 'GET',
        path: '/v1/routes',
        headers: { authorization: 'Bearer wrong-token-0123456789' },
      });
      expect(wrong.status).toBe(401);
      const withCookie = await call(other.url, { method: 'GET', path: '/v1/routes', headers: { cookie } });
      expect(withCookie.status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('refused tokens from loopback', () => {
  it('are not counted by default: one local client with a wrong token does not lock out the others (the adapter, the CLI)', async () => {
    const live = await startLiveService({ tokenThrottle: { failures: 2, windowMs: 60_000 } });
    try {
      for (let i = 0; i < 5; i++) {
        const refused = await call(live.url, {
          method: 'GET',
          path: '/v1/routes',
          headers: { authorization: `Bearer wrong-token-${i}-0123456789` },
        });
        expect(refused.status).toBe(401);
      }
      const right = await call(live.url, { method: 'GET', path: '/v1/routes', headers: bearer('viewer') });
      expect(right.status).toBe(200);
    } finally {
      await live.close();
    }
  });
});

describe('behind a proxy on this host', () => {
  it('the client the proxy names is counted: its wrong tokens hold it back, not the local clients or other proxied ones', async () => {
    const live = await startLiveService({ tokenThrottle: { failures: 2, windowMs: 60_000 } });
    const via = (client: string, token: string) =>
      call(live.url, {
        method: 'GET',
        path: '/v1/routes',
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `10.9.9.9, ${client}` },
      });
    try {
      expect((await via('203.0.113.9', 'wrong-token-a-0123456789')).status).toBe(401);
      expect((await via('203.0.113.9', 'wrong-token-b-0123456789')).status).toBe(401);
      const held = await via('203.0.113.9', roleTokens.viewer);
      expect(held.status).toBe(429);
      expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
      // The entries before the proxy's own are the client's to write: changing them changes nothing.
      expect((await via('203.0.113.9', roleTokens.viewer)).status).toBe(429);
      expect((await via('203.0.113.10', roleTokens.viewer)).status).toBe(200);
      const local = await call(live.url, { method: 'GET', path: '/v1/routes', headers: bearer('viewer') });
      expect(local.status).toBe(200);
    } finally {
      await live.close();
    }
  });

  it('reads X-Forwarded-For (last entry), X-Real-IP and Forwarded only from a loopback peer', () => {
    const xff = { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' };
    expect(throttledAddress('127.0.0.1', xff)).toBe('203.0.113.9');
    expect(throttledAddress('::1', xff)).toBe('203.0.113.9');
    expect(throttledAddress('::ffff:127.0.0.1', { 'x-real-ip': ' 203.0.113.7 ' })).toBe('203.0.113.7');
    expect(
      throttledAddress('127.0.0.1', { forwarded: 'for=192.0.2.60;proto=https, for="[2001:db8::1]:4711"' }),
    ).toBe('2001:db8::1');
    expect(throttledAddress('127.0.0.1', { forwarded: 'for=unknown' })).toBe('127.0.0.1');
    expect(throttledAddress('127.0.0.1', {})).toBe('127.0.0.1');
    // A remote peer names itself: any header it sends could name anyone.
    expect(throttledAddress('198.51.100.4', xff)).toBe('198.51.100.4');
  });
});

describe('clientKey', () => {
  it('counts an IPv4-mapped address as its IPv4 one, an IPv6 address by its /64, and knows loopback', () => {
    expect(clientKey('203.0.113.7')).toEqual({ key: '203.0.113.7', loopback: false });
    expect(clientKey('::ffff:203.0.113.7')).toEqual({ key: '203.0.113.7', loopback: false });
    expect(clientKey('::FFFF:127.0.0.1')).toEqual({ key: '127.0.0.1', loopback: true });
    expect(clientKey('127.8.9.10').loopback).toBe(true);
    expect(clientKey('::1')).toEqual({ key: '0:0:0:0::/64', loopback: true });
    expect(clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd').key).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::9').key).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1').key).toBe('2001:db8:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toEqual({ key: 'fe80:0:0:0::/64', loopback: false });
    expect(clientKey('::ffff:c000:280')).toEqual({ key: '192.0.2.128', loopback: false });
  });

  it('one host rotating through its /64 is one client to the throttle', () => {
    const throttle = new TokenThrottle({ failures: 3, windowMs: 60_000 }, () => 0);
    for (let i = 1; i <= 3; i++) throttle.refused(`2001:db8:1:2::${i.toString(16)}`);
    expect(throttle.waitMs('2001:db8:1:2:ffff::1')).toBe(60_000);
    expect(throttle.waitMs('2001:db8:1:3::1')).toBe(0);
  });
});

describe('TokenThrottle', () => {
  it('lets an address try again when its oldest refusal leaves the window, and forgets quiet addresses', () => {
    let now = 1_000;
    const throttle = new TokenThrottle({ failures: 2, windowMs: 10_000 }, () => now);
    throttle.refused('a');
    now += 4_000;
    throttle.refused('a');
    expect(throttle.waitMs('a')).toBe(6_000);
    expect(throttle.waitMs('b')).toBe(0);
    now += 6_000;
    expect(throttle.waitMs('a')).toBe(0);
    throttle.refused('a');
    expect(throttle.waitMs('a')).toBe(4_000);
    now += 20_000;
    expect(throttle.waitMs('a')).toBe(0);
  });

  it('remembers at most 10,000 addresses: a spray of addresses cannot grow memory without bound', () => {
    const throttle = new TokenThrottle({ failures: 1, windowMs: 60_000 }, () => 0);
    for (let i = 0; i < 10_005; i++) throttle.refused(`10.0.${i >> 8}.${i & 255}`);
    expect(throttle.waitMs('10.0.0.0')).toBe(0);
    expect(throttle.waitMs('10.0.39.20')).toBe(60_000);
  });
});
