import { describe, expect, it } from 'vitest';
import { redactSecrets, safeExcerpt } from '../../../src/core/index.js';

/** Every 10-character fragment of `secret` that `out` still shows. */
function fragmentsIn(out: string, secret: string): string[] {
  const shown: string[] = [];
  for (let i = 0; i + 10 <= secret.length; i++) {
    if (out.includes(secret.slice(i, i + 10))) shown.push(secret.slice(i, i + 10));
  }
  return shown;
}

/** Both ways out of the sanitizer: the whole text redacted, and the excerpt. */
function expectGone(text: string, secret: string) {
  expect(fragmentsIn(redactSecrets(text), secret), text).toEqual([]);
  expect(fragmentsIn(safeExcerpt(text), secret), text).toEqual([]);
}

const awsSecret = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzEXAMPLEKY';

describe('[DAT-09][CLS-21] keys wrapped across lines (issue 10)', () => {
  const first = 'sk-proj-AbCdEfGhIjKlMnOpQrStUv';
  const second = 'WxYz0123456789abcdEFGHijklmnop';
  it.each([
    ['a raw newline (stderr)', `Error: invalid x-api-key: ${first}\n${second}\nexit 1`],
    ['CR LF (a terminal wrap)', `Authorization: Bearer ${first}\r\n${second}`],
    [
      'an escaped newline inside a JSON string',
      JSON.stringify({ error: `invalid api key ${first}\n${second}` }),
    ],
    ['a doubly escaped newline', JSON.stringify(JSON.stringify({ message: `api key ${first}\n${second}` }))],
    ['a newline and indentation', `config:\n  api_key: ${first}\n    ${second}\n`],
    ['a hex key after its key word', `invalid subscription key 3f9a0c7d5e1b42f8\n${second}.`],
    ['three lines', `token: ${first}\n${second}\n${second.split('').reverse().join('')}`],
  ])('redacts both halves of a key wrapped by %s', (_how, text) => {
    expectGone(text, first.slice(8) + second);
    expect(redactSecrets(text)).toContain('[REDACTED]');
  });

  it('redacts the second line of a wrapped bare AWS secret after its key word', () => {
    const text = JSON.stringify({ SecretAccessKey: `${awsSecret.slice(0, 21)}\n${awsSecret.slice(21)}` });
    expectGone(text, awsSecret.replace('/', '').replace('+', ''));
    expect(fragmentsIn(redactSecrets(text), awsSecret.slice(21))).toEqual([]);
    expect(redactSecrets(text)).not.toContain('bPxRfiCY');
  });

  it.each([
    [
      'Error: invalid api key sk-proj-AbCdEfGhIjKlMnOpQrStUv\nPlease check your key and try again.',
      'Please check',
    ],
    ['Authorization: Bearer 3f9a0c7d5e1b42f8a6c09d3e7b5f1a24\nHTTP/1.1 401 Unauthorized', 'HTTP/1.1 401'],
    ['token=abc123xyz987\nmodel: claude-3-5-sonnet-20241022', 'claude-3-5-sonnet-20241022'],
    [
      'api_key: 3f9a0c7d5e1b42f8a6c09d3e7b5f1a24\nrequest_id: req_011CSLSsXKms54p1jPtwN6H4',
      'req_011CSLSsXKms54p1jPtwN6H4',
    ],
  ])('keeps the ordinary line after a redacted key: %s', (text, kept) => {
    expect(redactSecrets(text)).toContain(kept);
    expect(safeExcerpt(text)).toContain(kept);
  });
});

describe('[DAT-09][CLS-21] keys named by the words around them (issue 10)', () => {
  it.each([
    `aws_secret_access_key=${awsSecret}`,
    `<SecretAccessKey>${awsSecret}</SecretAccessKey>`,
    `<SecretAccessKey>+${awsSecret.slice(1)}</SecretAccessKey>`,
    `The AWS secret access key +${awsSecret.slice(1)} is invalid`,
    `secret_access_key /${awsSecret.slice(1)}`,
    `aws secret +${awsSecret.slice(1)}`,
  ])('redacts an AWS secret access key with / or + after its key word: %s', (text) => {
    expectGone(text, awsSecret.slice(1));
    expect(redactSecrets(text)).not.toMatch(/[+/]\[REDACTED\]/);
  });

  it.each([
    `SignatureDoesNotMatch for ${awsSecret} in request`,
    `[default]\n${awsSecret}\nregion = us-east-1`,
    `"${awsSecret.replace('+', '/')}"`,
  ])('redacts a bare AWS secret access key (40 characters of base64 with / or +): %s', (text) => {
    expectGone(text, awsSecret.replace('+', '/'));
    expectGone(text, awsSecret);
  });

  it.each([
    ['the password is s3cr3tP4ss!', 's3cr3tP4ss'],
    [
      'Slack: https://hooks.slack.com/services/T01ABCDEF/B01ABCDEF/AbCdEfGhIjKlMnOpQrStUvWx',
      'AbCdEfGhIjKlMnOp',
    ],
    ['Stripe webhook whsec_AbCdEfGhIjKlMnOpQrSt0123 rejected', 'AbCdEfGhIjKlMnOp'],
    ['OAuth client GOCSPX-AbCdEfGhIjKlMnOpQrStUvWx is disabled', 'AbCdEfGhIjKlMnOp'],
    ['sk-ant-admin01-AbCdEfGhIjKlMnOpQrStUvWxYz', 'AbCdEfGhIjKlMnOp'],
    ['DEEPSEEK_API_KEY=sk-0123456789abcdef0123456789abcdef', '0123456789abcdef'],
    ['curl "https://api.example.com/v1/chat?alt=sse&api_key=Zq9abcDEF123ghiJKL456"', 'Zq9abcDEF123'],
    ['GET /v1beta/models/gemini:generateContent?key=Zq9abcDEF123ghiJKL456 400', 'Zq9abcDEF123'],
    // A key that drew no digit: letters whose case changes as random text's does.
    ['Authorization: Bearer RSDXWZqvoXFqatYtWXmchmdHMznKQoEhprzKXYkG', 'RSDXWZqvoXFq'],
    ['invalid api key RSDXWZqvoXFqatYtWXmchmdHMznKQoEhprzKXYkG (check it)', 'RSDXWZqvoXFq'],
    ['令牌：3f9a0c7d5e1b42f8a6c09d3e7b5f1a24 已过期', '3f9a0c7d5e1b42f8'],
    ['APIキー: "3f9a0c7d5e1b42f8a6c09d3e7b5f1a24" が無効です', '3f9a0c7d5e1b42f8'],
    ['x-api-key：3f9a0c7d5e1b42f8a6c09d3e7b5f1a24', '3f9a0c7d5e1b42f8'],
  ])('redacts %s', (text, secret) => {
    expectGone(text, secret);
  });

  it.each([
    ['password: "hunter2 hunter3", user: x', 'password: "[REDACTED]", user: x'],
    [`{"password":"correct horse battery","model":"gpt-4o"}`, `{"password":"[REDACTED]","model":"gpt-4o"}`],
    ["passphrase='two words'", "passphrase='[REDACTED]'"],
    ['{"password": "", "model": "gpt-4o"}', '{"password": "", "model": "gpt-4o"}'],
  ])('redacts a quoted password whole, spaces and all: %s', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it('leaves the host of a URL whose credentials it redacted readable', () => {
    expect(redactSecrets('proxy https://bob:s3cretPa55@proxy.internal:8080 refused')).toBe(
      'proxy https://[REDACTED]@proxy.internal:8080 refused',
    );
  });
});

describe('[DAT-09][CLS-21] what is not a secret stays readable (issue 10)', () => {
  // The rule: a hex or base64 run is a secret after a credential's key word, or when it is long and mixes upper
  // case, lower case and digits (or carries / or + and reads as random); a run named as something else (a commit,
  // a digest, a trace or request id, an ETag) is lower-case hex or a named id and is kept: it names data or a
  // request, not an account, and a reader needs it to report the failure.
  it.each([
    'commit 3f9a0c7d5e1b42f8a6c09d3e7b5f1a24c0ffee12 broke the build',
    'git checkout 9fceb02d0ae598e95dc970b74767f19372d61af8',
    'image sha256:3f9a0c7d5e1b42f8a6c09d3e7b5f1a24c0ffee123f9a0c7d5e1b42f8a6c09d3e pulled',
    'trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7',
    'traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    'etag: "33a64df551425fcc55e4d42a148795d9f25f89d4"',
    'x-request-id: req_011CSLSsXKms54p1jPtwN6H4',
    'model claude-3-5-sonnet-20241022 not found; try gpt-4o-mini-2024-07-18',
    'see https://docs.anthropic.com/en/api/errors?type=rate_limit for details',
    'POST https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-pro:generateContent 429',
    'API key missing: set OPENAI_API_KEY in your environment',
    'secret_access_key is required',
    'WWW-Authenticate: Bearer realm="api", error="invalid_token"',
    'Authorization: Bearer InvalidAuthenticationTokenException from the proxy',
    'the api key AuthenticationFailedError was raised',
    'at Object.<anonymous> (node_modules/@anthropic-ai/sdk/src/core/StreamingResponse.ts:42:7)',
    'packages/core/src/providers/OpenAIProvider/index.ts failed to compile',
  ])('keeps %s', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it('keeps at least 20 readable characters of a message around a redacted key', () => {
    const excerpt = safeExcerpt(
      `Access denied due to invalid subscription key 3f9a0c7d5e1b42f8\na6c09d3e7b5f1a24. Make sure to provide a valid key.`,
    );
    expect(excerpt).toBe(
      'Access denied due to invalid subscription key [REDACTED]. Make sure to provide a valid key.',
    );
  });
});
