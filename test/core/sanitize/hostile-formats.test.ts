import { describe, expect, it } from 'vitest';
import { redactSecrets, safeExcerpt } from '../../../src/core/index.js';

/**
 * Formats a hostile review found kept (issue 10, Secrets, second pass): each is redacted by `redactSecrets` and in
 * the excerpt, and what only looks like one stays.
 */

/** Every 10-character fragment of `secret` that `out` still shows. */
function fragmentsIn(out: string, secret: string): string[] {
  const shown: string[] = [];
  for (let i = 0; i + 10 <= secret.length; i++) {
    if (out.includes(secret.slice(i, i + 10))) shown.push(secret.slice(i, i + 10));
  }
  return shown;
}

function expectGone(text: string, ...secrets: string[]) {
  for (const secret of secrets) {
    expect(fragmentsIn(redactSecrets(text), secret), text).toEqual([]);
    expect(fragmentsIn(safeExcerpt(text), secret), text).toEqual([]);
  }
}

/** Each character as a JSON escape (`A` is `\u0041`). */
const escaped = (s: string) =>
  [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

const discordId = Buffer.from('1087654321098765432').toString('base64').replace(/=+$/, '');
const discord = `${discordId}.GhXyZq.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab`;

describe('[DAT-09][CLS-21] hostile formats (issue 10, second pass)', () => {
  it.each([
    [`discord.py: improper token has been passed: ${discord}`, discord],
    [`Authorization: Bot ${discord}`, discord],
    [`{"token":"${discord.replace('GhXyZq', 'G1-y_q')}"}`, discordId],
  ])('redacts a Discord bot token whole, its id and timestamp segments too: %s', (text, secret) => {
    expectGone(text, secret);
  });

  it('redacts the parameter list of an HTTP Digest authorization that holds a response or cnonce', () => {
    const response = '6629fae49393a05397450978507c4ef1';
    const cnonce = '0a4f113b9c8d7e6f';
    for (const text of [
      `Authorization: Digest username="bob", realm="api", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/v1", response="${response}", qop=auth, nc=00000001, cnonce="${cnonce}"`,
      `Authorization: Digest username="bob", realm="api", uri="/v1", cnonce="${cnonce}", nc=00000001, qop=auth, response="${response}"`,
      JSON.stringify({ authorization: `Digest username="bob", response="${response}", cnonce="${cnonce}"` }),
    ]) {
      expectGone(text, response, cnonce);
      expect(redactSecrets(text)).toMatch(/Digest \[REDACTED\]/);
    }
    expect(
      redactSecrets(`Digest username="bob", realm="api", uri="/v1", response="${response}", cnonce="x1"`),
    ).toBe('Digest [REDACTED]');
  });

  it('keeps a Digest challenge (no response) and the word digest', () => {
    for (const text of [
      'WWW-Authenticate: Digest realm="api", qop="auth", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093"',
      'image digest sha256 mismatch; the response was 401',
    ])
      expect(redactSecrets(text)).toBe(text);
  });

  it.each([
    ['curl -u deploy:Sup3rS3cret! https://api.example.com', 'deploy:Sup3rS3cret!'],
    ["curl -s -u 'deploy:Sup3rS3cret!' https://api.example.com", 'Sup3rS3cret!'],
    ['curl -udeploy:Sup3rS3cret https://api.example.com', 'Sup3rS3cret'],
    ['curl --user deploy:Sup3rS3cret https://api.example.com', 'Sup3rS3cret'],
    ['curl --user=deploy:Sup3rS3cret https://api.example.com', 'Sup3rS3cret'],
    ['curl --proxy-user proxy:Pr0xyS3cret -x http://proxy:3128 https://x', 'Pr0xyS3cret'],
    ['curl -U proxy:Pr0xyS3cret https://x', 'Pr0xyS3cret'],
    ['curl -u Zq9abcDEF123ghiJ: https://api.example.com/v1/charges', 'Zq9abcDEF123ghiJ'],
    ['mysql -h db.internal -u app -pS3cretPw9x -e "select 1"', 'S3cretPw9x'],
    ['mysqldump --single-transaction -u root -pS3cretPw9x shop > dump.sql', 'S3cretPw9x'],
    ['PGPASSWORD=S3cretPw9x psql -h db.internal -U app', 'S3cretPw9x'],
    ['psql postgres://app:S3cretPw9x@db.internal:5432/shop', 'S3cretPw9x'],
    ['vault login --password S3cretPw9x failed', 'S3cretPw9x'],
    ['tool --db-password "S3cretPw9x" --verbose', 'S3cretPw9x'],
  ])('redacts a credential on a command line: %s', (text, secret) => {
    expectGone(text, secret);
  });

  it.each([
    'docker run -u 1000:1000 node:20 npm test',
    'pip install -U https://github.com/org/pkg/archive/main.zip',
    'git push -u origin main',
    'sort -u names.txt',
    'npm run build -p packages/core',
    'ssh -p 2222 host',
    'model gemini-2.5-pro-preview-05-06 is overloaded; try gemini-2.5-pro',
    'mysql -u root -p (you will be prompted)',
    'error: --password is required',
    'docker login --password-stdin',
    'curl -u user https://x prompts for the password',
  ])('keeps a command line with no credential: %s', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it.each([
    [`{"api_key":"${escaped('Zq9abcDEF123ghiJKL456mno')}"}`, 'Zq9abcDEF123ghiJKL456mno'],
    [`error ${escaped('sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx')} rejected`, 'AbCdEfGhIjKlMnOp'],
    [`sk-ant-api03-${escaped('AbCdEfGhIjKlMnOpQrStUvWx')}`, 'AbCdEfGhIjKlMnOp'],
    [
      JSON.stringify({ body: `{"x-api-key":"${escaped('3f9a0c7d5e1b42f8a6c09d3e7b5f1a24')}"}` }),
      '3f9a0c7d5e1b42f8',
    ],
    ['GET /v1/chat?alt=sse\\u0026token=Zq9abcDEF123ghiJKL456 401', 'Zq9abcDEF123ghiJ'],
  ])('redacts a key written as JSON escapes: %s', (text, secret) => {
    const decoded = (out: string) =>
      out.replace(/\\{1,3}u00([0-9a-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    expect(fragmentsIn(decoded(redactSecrets(text)), secret), text).toEqual([]);
    expect(fragmentsIn(decoded(safeExcerpt(text)), secret), text).toEqual([]);
  });

  // A run of escapes longer than one match (256 units): the match's span ended there and, in a run of escapes only,
  // no later escape could begin another (each run is read from its first), so the rest of the key was shown. Every
  // escape of a long run decided again also made the run cost about a hundred times its length (the worst fuzz input,
  // bench/classify-worst-case).
  const longKey = Array.from(
    { length: 400 },
    (_, i) => 'Zq9abcDEF123ghiJKL456mnoPQRstuVWXyz078'[(i * 7) % 37],
  ).join('');
  it.each([
    ['a 400-character key', `{"api_key":"${escaped(longKey)}"} tail`, longKey],
    [
      'a key whose run goes on',
      `{"api_key":"${escaped('Zq9abcDEF123ghiJKL456mno')}${'\\u0041b'.repeat(200)}"} tail`,
      'AbAbAbAbAbAbAbAbAbAb',
    ],
    ['a run of escapes and key characters', `x ${'\\u0041/v2/0'.repeat(300)} y`, 'A/v2/0A/v2/0A/v2/0'],
  ])('redacts a key in escapes longer than one match to the end of its run: %s', (_label, text, secret) => {
    const decoded = (out: string) =>
      out.replace(/\\{1,3}u00([0-9a-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    expect(fragmentsIn(decoded(redactSecrets(text)), secret)).toEqual([]);
    expect(redactSecrets(text)).toMatch(/\[REDACTED\]("} tail| y)$/);
  });

  // A JSON escape's hex digits are no part of the word after it: `\u0022Rate_limit...` read from its `u0022` had
  // the digits a high-entropy token needs, and the message was redacted with a stray backslash left before it.
  it.each([
    '{"message":"\\u0022Rate_limit_exceeded_for_model_claude\\u0022"}',
    'error: \\u003cRequest_was_throttled_by_the_upstream_provider\\u003e',
  ])('[DAT-09] keeps words after a JSON escape: %s', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it('[DAT-09] still redacts a key right after a JSON escape', () => {
    const key = 'AbCdEf0123456789GhIjKl0123456789mnOpQr';
    expect(redactSecrets(`{"message":"\\u0022${key}\\u0022"}`)).not.toContain('0123456789');
  });

  // The run of a key in escapes ends where the decoded text stops being key characters: an escaped quote, blank or
  // `&` after the key is the message, not more of the key, and an excerpt must still say it.
  it.each([
    [
      'a message after the key, all escaped',
      `${escaped('{"api_key":"sk-ant-api03-' + 'Zq9abcDEF123ghiJKL456mnoPQRstuVWXyz078' + '","message":"Rate limit exceeded, retry later"}')}`,
      'Rate limit exceeded, retry later',
    ],
    [
      'the query after a key, its & escaped (Go)',
      `GET https://x.example/v1/models?key=AIza${'Zq9abcDEF123ghiJKL456mnoPQRstuVWXy'}\\u0026model=gemini-pro\\u0026alt=sse failed`,
      '&model=gemini-pro&alt=sse failed',
    ],
  ])(
    '[DAT-09] a key in escapes is redacted to the end of the key, not of the run: %s',
    (_label, text, kept) => {
      const decoded = (out: string) =>
        out.replace(/\\{1,3}u00([0-9a-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      expect(decoded(redactSecrets(text))).toContain(kept);
      expect(fragmentsIn(decoded(redactSecrets(text)), 'Zq9abcDEF123ghiJKL456mnoPQRstuVWXy')).toEqual([]);
    },
  );

  it.each([
    '{"html":"\\u003chtml\\u003e\\u003cbody\\u003eBad Gateway\\u003c/body\\u003e\\u003c/html\\u003e"}',
    `{"message":"${escaped('Rate limit exceeded for this model')}"}`,
    '{"url":"https://example.com/a?b=1\\u0026c=2\\u0026page=10"}',
    // Longer than one match (256 units): the rest of the run was read from an escape's middle (`u0041a`), which
    // looked like a key, and every later escape was redacted.
    `{"text":"${'\\u0041a'.repeat(300)}"}`,
    `{"html":"${'\\u003cdiv\\u003e\\u003cspan\\u003eUnavailable\\u003c/span\\u003e\\u003c/div\\u003e'.repeat(12)}"}`,
  ])('keeps escaped text with no key: %s', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it.each([
    ['令牌：a8F3kQ9zL2mX7pR4w 已过期', 'a8F3kQ9zL2mX7pR4w'],
    ['调用失败：密钥: 9fA3kL2mQ7xZ8pR1 无效', '9fA3kL2mQ7xZ8pR1'],
    ['APIキー: Zq9abcDEF123ghiJ が無効です', 'Zq9abcDEF123ghiJ'],
    ['アクセストークン「Zq9abcDEF123ghiJKL」は期限切れです', 'Zq9abcDEF123ghiJKL'],
    ['토큰: Zq9abcDEF123ghiJKL 만료', 'Zq9abcDEF123ghiJKL'],
    ['API 키: Zq9abcDEF123ghiJKL', 'Zq9abcDEF123ghiJKL'],
    ['访问令牌为 3f9a0c7d5e1b42f8 请更换', '3f9a0c7d5e1b42f8'],
  ])(
    'redacts a key of 16 characters or more after a Chinese, Japanese or Korean key word: %s',
    (text, secret) => {
      expectGone(text, secret);
    },
  );

  it.each([
    '令牌：已过期，请重新登录',
    '密钥: gpt-4o-mini-2024-07-18 不支持',
    'APIキー: abc123 が短すぎます',
    'エラー: Zq9abcDEF123ghiJ は無効なモデルです',
    '토큰 수 제한: max_tokens_to_sample',
  ])('keeps what follows a CJK key word when it is no key: %s', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it('redacts 32 or more random letters with no digit and no key word, and keeps words and request ids', () => {
    const letters = 'RSDXWZqvoXFqatYtWXmchmdHMznKQoEhprzKXYkG';
    expectGone(`upstream rejected ${letters} (401)`, letters);
    for (const text of [
      'ThisIsAnUnusuallyLongIdentifierNameForTesting failed',
      'AuthenticationErrorInvalidRequestErrorRateLimitError',
      'Request ID: cImUfOyyTayVXBTzTTmtluoNjYauXuzk',
      'abcdefghijklmnopqrstuvwxyzabcdefghijklmnop',
    ])
      expect(redactSecrets(text)).toBe(text);
  });

  it.each([
    ['Proxy-Authorization: Basic dXNlcjpwYXNz', 'dXNlcjpwYXNz'],
    ['Authorization: ApiKey Zq9abcDEF123', 'Zq9abcDEF123'],
    ['slack refresh xoxe-1-My0xLTE3MjY2NjM0MjA0 failed', 'My0xLTE3MjY2NjM0'],
    ['databricks rejected dapi0123456789abcdef0123456789abcdef', '0123456789abcdef0123'],
    ['newrelic NRAK-ABCDEFGHIJKLMNOPQRSTUVWXYZ0 rejected', 'ABCDEFGHIJKLMNOPQ'],
  ])('redacts %s', (text, secret) => {
    expectGone(text, secret);
  });

  it('keeps Basic and ApiKey as words when no credential follows', () => {
    for (const text of [
      'Basic authentication failed',
      'use Basic credentials or Bearer tokens',
      'the ApiKey authorization scheme',
    ])
      expect(redactSecrets(text)).toBe(text);
  });
});

describe('[DAT-09][CLS-21] user:password@host:port without a scheme (a proxy setting)', () => {
  it.each([
    [
      'tunneling socket could not be established: proxy svc-user:Hx7pQ2vLm9@10.20.0.5:3128',
      'svc-user:Hx7pQ2vLm9',
    ],
    ['HTTPS_PROXY=bob:S3cretPass1@squid:3128', 'bob:S3cretPass1'],
    ['{"proxy": "alice:Tr0ub4dor&3x@corp-proxy:8080"}', 'alice:Tr0ub4dor&3x'],
    ['connect ECONNREFUSED via admin:hunter2hunter2@localhost:8080', 'admin:hunter2hunter2'],
  ])('redacts the user and password and keeps the host: %s', (text, credentials) => {
    const out = redactSecrets(text);
    expect(out).not.toContain(credentials.split(':')[1]);
    expect(out).toContain('[REDACTED]@');
    expect(safeExcerpt(text)).not.toContain(credentials.split(':')[1]);
  });

  it.each(['dependency:lodash@4.17.21', 'npm ERR! peer x:y@1', 'ssh git@10.0.0.1:22', 'a:b:c@host:1'])(
    'keeps what only looks like one: %s',
    (text) => {
      expect(redactSecrets(text)).toBe(text);
    },
  );
});

describe('[DAT-09][CLS-21] an `auth` value (a Docker registry or npm credential, base64 of user:password)', () => {
  const basic = Buffer.from('svc-user:Hx7pQ2vLm999').toString('base64');
  it.each([
    [`{"auths":{"ghcr.io":{"auth":"${basic}"}}}`, basic],
    [`_auth=${basic}`, basic],
    ['"auth": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"', '9f8e7d6c5b4a39281706f5e4d3c2b1a0'],
  ])('redacts it: %s', (text, secret) => {
    expectGone(text, secret);
  });

  it.each(['auth: required', 'auth=oauth2', '"auth":"none"', 'auth failed: 401 Unauthorized'])(
    'keeps a word or a short name: %s',
    (text) => {
      expect(redactSecrets(text)).toBe(text);
    },
  );
});
