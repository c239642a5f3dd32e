import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTokens } from '../../src/server/auth.js';
import { call, roleTokens, startLiveService, type LiveService } from './live-service.js';

/** Small refusals and defaults of the service, each over real HTTP (or on the files it really creates). */
let live: LiveService;

beforeAll(async () => {
  live = await startLiveService();
});

afterAll(async () => {
  await live.close();
});

describe('the service hardening', () => {
  it('the Authorization scheme is case-insensitive (RFC 9110 11.1): bearer, BEARER and Bearer all work', async () => {
    for (const scheme of ['bearer', 'BEARER', 'bEaReR', 'Bearer']) {
      const answer = await call(live.url, {
        method: 'GET',
        path: '/v1/me',
        headers: { authorization: `${scheme} ${roleTokens.operator}` },
      });
      expect(answer.status, scheme).toBe(200);
      expect(answer.json, scheme).toMatchObject({ role: 'operator' });
    }
  });

  it('/?token=GOOD&token=x signs nobody in and leaves no token in the address bar', async () => {
    for (const query of [
      `token=${roleTokens.viewer}&token=x`,
      `token=x&token=${roleTokens.viewer}`,
      `token=${roleTokens.viewer}&token=${roleTokens.viewer}`,
    ]) {
      const answer = await fetch(`${live.url}/?${query}`, { redirect: 'manual' });
      expect(answer.status, query).toBe(303);
      expect(answer.headers.get('location'), query).toBe('/sign-in?error=invalid_token');
      expect(answer.headers.get('set-cookie'), query).toBeNull();
      await answer.body?.cancel();
    }
  });

  it('a refused value with control characters is echoed with them escaped, not stripped', async () => {
    const answer = await call(live.url, {
      method: 'POST',
      path: '/v1/routes',
      headers: { authorization: `Bearer ${roleTokens.adapter}` },
      body: { route_id: 's\u001b9\u202e', profile_id: 'none' },
    });
    expect(answer.status).toBe(422);
    // The JSON body carries the message; in it the characters are written out as escapes.
    expect(answer.text).not.toContain('\u001b');
    expect(answer.text).not.toContain('\u202e');
    expect(JSON.stringify(answer.json)).toContain('s\\\\u001b9\\\\u202e');
  });

  it('the SQLite database, its WAL, shared-memory and lock files are created owner-only (0600)', () => {
    for (const suffix of ['', '-wal', '-shm', '.lock']) {
      const mode = statSync(`${live.database}${suffix}`).mode & 0o777;
      expect(mode.toString(8), `database${suffix}`).toBe('600');
    }
  });
});

describe('the tokens file', () => {
  it('a token under two roles is refused, naming both lines and roles (never the token)', () => {
    const token = 'SAME-TOKEN-0123456789abcdef';
    const parsed = parseTokens(
      `# team\nviewer:${token}\noperator:other-token-0123456789\nadmin:${token}\n`,
      '--tokens-file',
    );
    expect(parsed).toEqual({
      ok: false,
      message:
        '--tokens-file: line 2 (viewer) and line 4 (admin) give the same token: give each token one role',
    });
    const listed = parseTokens(`viewer:${token},admin:${token}`, 'RECOURSE_TOKENS');
    expect(listed.ok).toBe(false);
    expect(JSON.stringify(listed)).toMatch(/entry 1 \(viewer\) and entry 2 \(admin\)/);
    expect(JSON.stringify(listed)).not.toContain(token);
  });
});
