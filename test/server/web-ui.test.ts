import { request as httpRequest } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, suiteService, tokens, type TestRole } from '../helpers/service.js';

/** A fake Vite build: index.html and one asset of each type the server serves. */
const webRoot = mkdtempSync(join(tmpdir(), 'recourse-web-'));
const indexHtml =
  '<!doctype html><html><body><div id="root"></div><script src="/assets/app-1a2b.js"></script></body></html>';
const files: Record<string, [string, string]> = {
  'app-1a2b.js': ['console.log(1)', 'text/javascript; charset=utf-8'],
  'app-1a2b.css': ['body{}', 'text/css; charset=utf-8'],
  'logo-9f.svg': ['<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml'],
  'icon-9f.png': ['PNG', 'image/png'],
  'font-9f.woff2': ['wOF2', 'font/woff2'],
  'manifest-9f.json': ['{}', 'application/json; charset=utf-8'],
  'app-1a2b.js.map': ['{"version":3}', 'application/json; charset=utf-8'],
};
mkdirSync(join(webRoot, 'assets'));
writeFileSync(join(webRoot, 'index.html'), indexHtml);
for (const [name, [body]] of Object.entries(files)) writeFileSync(join(webRoot, 'assets', name), body);
// Beside the build, never served.
writeFileSync(join(webRoot, 'secret.txt'), 'not for you');
writeFileSync(join(webRoot, 'assets', 'notes.txt'), 'not served either');
afterAll(() => rmSync(webRoot, { recursive: true, force: true }));

const csp =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function expectHtmlHeaders(headers: Headers, what: string): void {
  expect(headers.get('content-type'), what).toBe('text/html; charset=utf-8');
  expect(headers.get('cache-control'), what).toBe('no-cache');
  expect(headers.get('content-security-policy'), what).toBe(csp);
  expect(headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(headers.get('referrer-policy'), what).toBe('no-referrer');
}

/** A request sent exactly as written (fetch would resolve `..` and re-encode the path before sending it). */
function raw(base: string, path: string): Promise<{ status: number; body: string; type: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the built web UI', () => {
  const live = suiteService({ webRoot });
  const uiPaths = [
    '/',
    '/profiles',
    '/profiles/main',
    '/routes',
    '/routes/r-1/attempts',
    '/sessions',
    '/sessions/s-1',
    '/plans',
    '/plans/p-1',
    '/sign-in',
    '/sign-in?error=invalid_token',
  ];

  it.each(uiPaths)('%s answers index.html with no-cache and the security headers', async (path) => {
    const answer = await call(live.url, null, 'GET', path);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(indexHtml);
    expectHtmlHeaders(answer.headers, path);
  });

  it('serves each asset with its content type, cached for a year as immutable', async () => {
    for (const [name, [body, type]] of Object.entries(files)) {
      const answer = await call(live.url, null, 'GET', `/assets/${name}`);
      expect(answer.status, name).toBe(200);
      expect(answer.headers.get('content-type'), name).toBe(type);
      expect(answer.headers.get('cache-control'), name).toBe('public, max-age=31536000, immutable');
      expect(answer.headers.get('x-content-type-options'), name).toBe('nosniff');
      expect(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body), name).toBe(body);
    }
  });

  it('a missing asset, a file of another type and every traversal attempt are the JSON 404', async () => {
    const attempts = [
      '/assets/missing-00.js',
      '/assets/notes.txt',
      '/assets/../secret.txt',
      '/assets/../../package.json',
      '/assets/%2e%2e/secret.txt',
      '/assets/%2E%2E%2Fsecret.txt',
      '/assets/..%2fsecret.txt',
      '/assets/..%5csecret.txt',
      '/assets/..\\secret.txt',
      '/assets/app-1a2b.js%00.png',
      '/assets/./app-1a2b.js',
      '/assets/',
      '/secret.txt',
      '/index.html/../secret.txt',
    ];
    for (const path of attempts) {
      const answer = await raw(live.url, path);
      expect(answer.status, path).toBe(404);
      expect(answer.type, path).toContain('application/json');
      expect(JSON.parse(answer.body), path).toMatchObject({ error: { code: 'not_found' } });
      expect(answer.body, path).not.toContain('not for you');
    }
  });

  it('an unknown token in the URL goes to /sign-in?error=invalid_token, with no cookie and no token', async () => {
    const token = 'not-a-configured-token-0123456789';
    const answer = await fetch(`${live.url}/?token=${token}`, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/sign-in?error=invalid_token');
    expect(answer.headers.get('set-cookie')).toBeNull();
    expect(await answer.text()).not.toContain(token);
  });

  it('a known token in the URL still answers 303 to / with the cookie', async () => {
    const answer = await fetch(`${live.url}/?token=${tokens.viewer}`, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/');
    expect(answer.headers.get('set-cookie')).toMatch(
      /^recourse_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/,
    );
  });

  it('UI pages are counted under the bounded `ui` label, never their paths', async () => {
    await call(live.url, null, 'GET', '/sessions/some-session-id-0123');
    await call(live.url, null, 'GET', '/assets/app-1a2b.js');
    const metrics = await call(live.url, 'viewer', 'GET', '/metrics');
    const text = String(metrics.body);
    expect(text).toMatch(/route="ui"/);
    expect(text).not.toContain('some-session-id');
    expect(text).not.toContain('app-1a2b');
  });
});

describe('without a built UI', () => {
  const live = suiteService({ webRoot: null });

  it.each(['/', '/profiles', '/routes/r-1', '/sign-in'])(
    '%s keeps the plain landing page, with the headers',
    async (path) => {
      const answer = await call(live.url, null, 'GET', path);
      expect(answer.status).toBe(200);
      expect(String(answer.body)).toContain('The service is running');
      expectHtmlHeaders(answer.headers, path);
    },
  );

  it('the sign-in page says when a token was not valid; assets are 404', async () => {
    const answer = await call(live.url, null, 'GET', '/sign-in?error=invalid_token');
    expect(String(answer.body)).toContain('That token is not valid.');
    const asset = await call(live.url, null, 'GET', '/assets/app.js');
    expect(asset.status).toBe(404);
    expect(asset.body).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('sign-in and sign-out', () => {
  const live = suiteService({ webRoot: null });
  const origin = () => ({ origin: live.url });

  it('[API-04] POST /v1/sign-in with a configured token and our Origin: 204 and the session cookie', async () => {
    for (const role of Object.keys(tokens) as TestRole[]) {
      const answer = await call(live.url, null, 'POST', '/v1/sign-in', { token: tokens[role] }, origin());
      expect(answer.status, role).toBe(204);
      const cookie = answer.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/^recourse_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
      expect(cookie).not.toContain(tokens[role]);
      const me = await call(live.url, null, 'GET', '/v1/me', undefined, { cookie: cookie.split(';')[0]! });
      expect(me.body).toMatchObject({ role });
    }
  });

  it('a wrong token is 401 with no cookie and no echo of the token', async () => {
    const token = 'wrong-token-0123456789abcdef';
    const answer = await call(live.url, null, 'POST', '/v1/sign-in', { token }, origin());
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: { code: 'unauthorized' } });
    expect(answer.headers.get('set-cookie')).toBeNull();
    expect(JSON.stringify(answer.body)).not.toContain(token);
  });

  it('without our Origin (none, another site, null) sign-in and sign-out are 403 and set no cookie', async () => {
    const refused: Record<string, string>[] = [
      {},
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: `${live.url}.evil.example` },
    ];
    for (const headers of refused) {
      const signIn = await call(live.url, null, 'POST', '/v1/sign-in', { token: tokens.admin }, headers);
      expect(signIn.status, JSON.stringify(headers)).toBe(403);
      expect(signIn.body).toMatchObject({ error: { code: 'cross_origin' } });
      expect(signIn.headers.get('set-cookie')).toBeNull();
      const signOut = await call(live.url, null, 'POST', '/v1/sign-out', undefined, headers);
      expect(signOut.status, JSON.stringify(headers)).toBe(403);
      expect(signOut.headers.get('set-cookie')).toBeNull();
    }
  });

  it('a token longer than 512 characters is refused as invalid input before any lookup', async () => {
    const answer = await call(live.url, null, 'POST', '/v1/sign-in', { token: 'x'.repeat(513) }, origin());
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ errors: [{ path: '/token' }] });
  });

  it('behind a TLS proxy (X-Forwarded-Proto: https) the cookie is Secure, so it never travels over plain HTTP', async () => {
    const link = await fetch(`${live.url}/?token=${tokens.viewer}`, {
      redirect: 'manual',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(link.headers.get('set-cookie')).toMatch(/; Max-Age=43200; Secure$/);
    const signIn = await call(
      live.url,
      null,
      'POST',
      '/v1/sign-in',
      { token: tokens.viewer },
      {
        ...origin(),
        'x-forwarded-proto': 'https, http',
      },
    );
    expect(signIn.headers.get('set-cookie')).toMatch(/; Max-Age=43200; Secure$/);
    const signOut = await call(live.url, null, 'POST', '/v1/sign-out', undefined, {
      ...origin(),
      'x-forwarded-proto': 'https',
    });
    expect(signOut.headers.get('set-cookie')).toBe(
      'recourse_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure',
    );
    // Plain HTTP said by the proxy: no Secure (the browser would drop the cookie).
    const plain = await fetch(`${live.url}/?token=${tokens.viewer}`, {
      redirect: 'manual',
      headers: { 'x-forwarded-proto': 'http' },
    });
    expect(plain.headers.get('set-cookie')).toMatch(/; Max-Age=43200$/);
  });

  it('POST /v1/sign-out with our Origin: 204 and the cookie cleared', async () => {
    const answer = await call(live.url, null, 'POST', '/v1/sign-out', undefined, origin());
    expect(answer.status).toBe(204);
    expect(answer.headers.get('set-cookie')).toBe(
      'recourse_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0',
    );
  });
});

describe('GET /v1/me', () => {
  const live = suiteService({ webRoot: null });
  const expected: Record<TestRole, Record<string, boolean>> = {
    viewer: { read: true, operate: false, admin: false, orchestrate: false, adapter: false },
    operator: { read: true, operate: true, admin: false, orchestrate: true, adapter: false },
    admin: { read: true, operate: true, admin: true, orchestrate: true, adapter: false },
    adapter: { read: true, operate: false, admin: false, orchestrate: true, adapter: true },
  };

  it.each(Object.keys(expected) as TestRole[])(
    'the %s role: its role, what it may do, the server time',
    async (role) => {
      const before = Date.now();
      const answer = await call(live.url, role, 'GET', '/v1/me');
      expect(answer.status).toBe(200);
      const body = answer.body as { role: string; server_time: string; may: Record<string, boolean> };
      expect(body.role).toBe(role);
      expect(body.may).toEqual(expected[role]);
      expect(body.server_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(body.server_time)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(body.server_time)).toBeLessThanOrEqual(Date.now() + 1000);
    },
  );
});
