import { closeSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rawControls, runCli } from './run-cli.js';
import { classificationSchema, classify } from '../../src/core/index.js';

const overloaded = {
  kind: 'http',
  status: 529,
  provider: 'anthropic',
  observed_at: '2026-06-01T12:00:00Z',
  body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
};
const usage = {
  kind: 'stderr',
  agent: 'claude-code',
  observed_at: '2026-06-01T12:00:00Z',
  text: 'Claude AI usage limit reached|1780329600',
};
const jsonl = (...values: unknown[]) =>
  values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n') + '\n';

describe('recourse classify', () => {
  it('writes one classification per line, in order, equal to the library result; exit 0', () => {
    const r = runCli(['classify', '-', '--now', '2026-06-01T12:00:00Z'], jsonl(overloaded, usage));
    expect(r.status).toBe(0);
    expect(r.lines).toHaveLength(2);
    const out = r.lines.map((l) => JSON.parse(l) as unknown);
    const now = Date.parse('2026-06-01T12:00:00Z');
    expect(out).toEqual([classify(overloaded, { now }), classify(usage, { now })]);
    for (const c of out) expect(classificationSchema.safeParse(c).success).toBe(true);
  });

  it('reads a file argument and standard input alike', () => {
    const dir = mkdtempSync(join(tmpdir(), 'recourse-cli-'));
    const file = join(dir, 'in.jsonl');
    writeFileSync(file, jsonl(overloaded));
    const fromFile = runCli(['classify', file]);
    const fromStdin = runCli(['classify'], jsonl(overloaded));
    expect(fromFile.status).toBe(0);
    expect(fromFile.stdout).toBe(fromStdin.stdout);
  });

  it('puts a field-addressed error in place of an invalid line, goes on, and exits 2', () => {
    const r = runCli(
      ['classify', '-'],
      jsonl(overloaded, '{"kind":"http","status":"x"}', 'not json', usage, '[1]'),
    );
    expect(r.status).toBe(2);
    expect(r.lines).toHaveLength(5);
    expect(JSON.parse(r.lines[1]!)).toEqual({
      error: { line: 2, path: '/status', message: 'status must be an integer from 0 to 599 (got "x")' },
    });
    expect(JSON.parse(r.lines[2]!)).toMatchObject({ error: { line: 3, path: '' } });
    expect((JSON.parse(r.lines[2]!) as { error: { message: string } }).error.message).toMatch(
      /^malformed JSON/,
    );
    expect(JSON.parse(r.lines[3]!)).toMatchObject({ code: 'quota_limited' });
    expect(JSON.parse(r.lines[4]!)).toMatchObject({ error: { line: 5, path: '' } });
  });

  it('[DAT-09] never echoes a credential in an error line: not in a path, a value, or the parser message', () => {
    const key = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    const aws = 'AKIAIOSFODNN7EXAMPLE';
    const r = runCli(
      ['classify', '-'],
      jsonl(
        `{"kind":"stderr","text":"x","${key}":1}`,
        `{"kind":"http","status":500,"headers":{"${aws}":{}}}`,
        aws,
        `{"kind":"${'a'.repeat(180)} https://al:Sup3rSecretPassw0rdX@host.example","text":"x"}`,
      ),
    );
    expect(r.status).toBe(2);
    expect(r.lines).toHaveLength(4);
    for (const fragment of [key.slice(8, 24), aws, 'Sup3rSecret']) expect(r.stdout).not.toContain(fragment);
    expect(JSON.parse(r.lines[2]!)).toEqual({
      error: { line: 3, path: '', message: 'malformed JSON: not a JSON value' },
    });
  });

  it('says in one line that it cannot write to a full disk (/dev/full), and exits 1', () => {
    const full = openSync('/dev/full', 'w');
    try {
      const cli = new URL('../../dist/cli/main.js', import.meta.url).pathname;
      const r = spawnSync(process.execPath, [cli, 'classify', '-'], {
        input: jsonl(overloaded),
        stdio: ['pipe', full, 'pipe'],
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toBe('recourse: cannot write the output: ENOSPC\n');
    } finally {
      closeSync(full);
    }
  });

  it('skips blank lines but counts them in line numbers', () => {
    const r = runCli(['classify', '-'], `${JSON.stringify(overloaded)}\n\n   \n{"kind":5}\n`);
    expect(r.lines).toHaveLength(2);
    expect(JSON.parse(r.lines[1]!)).toMatchObject({ error: { line: 4, path: '/kind' } });
  });

  it('marks evidence from another invocation stale with --invocation and --generation', () => {
    const e = { ...overloaded, invocation_id: 'a', prompt_generation: 1 };
    const fresh = runCli(['classify', '--invocation', 'a', '--generation', '1'], jsonl(e));
    const stale = runCli(['classify', '--invocation', 'b', '--generation', '1'], jsonl(e));
    expect(JSON.parse(fresh.lines[0]!)).toMatchObject({ class: 'transient' });
    expect(JSON.parse(stale.lines[0]!)).toMatchObject({ class: 'unclassified', reason: 'stale' });
    expect(runCli(['classify', '--invocation', 'b'], jsonl(e)).status).toBe(2);
  });

  it('prints a human summary with --pretty', () => {
    const r = runCli(['classify', '--pretty'], jsonl(overloaded, '{}'));
    expect(r.stdout).toContain('provider_overloaded');
    expect(r.stdout).toContain('anthropic.overloaded_error.v1');
    expect(r.stdout).toContain('2 envelopes: 1 transient, 1 invalid');
    expect(r.status).toBe(2);
  });

  it('lists every matching rule with --explain', () => {
    const r = runCli(
      ['classify', '--explain'],
      jsonl({ kind: 'stderr', text: 'API Error: 529 Overloaded. peer disconnected before response' }),
    );
    const out = JSON.parse(r.lines[0]!) as { classifier_rule: string; matches: Array<{ rule: string }> };
    expect(out.classifier_rule).toBe('provider.overloaded.v1');
    expect(out.matches.map((m) => m.rule)).toContain('transport.stream_lost.v1');
  });

  it('exits 2 with a message when the file cannot be read, and rejects a bad --now', () => {
    const missing = runCli(['classify', '/nonexistent/evidence.jsonl']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe('recourse classify: /nonexistent/evidence.jsonl does not exist\n');
    const badNow = runCli(['classify', '--now', 'tomorrow'], '');
    expect(badNow.status).not.toBe(0);
    expect(badNow.stderr).toContain('ISO-8601');
  });

  it('[CLS-23] a --now before 1970 is a usage error naming the flag (exit 2), not a stack trace', () => {
    for (const now of ['0000-01-01T00:00:00Z', '1969-12-31T23:59:59Z']) {
      const r = runCli(['classify', '--now', now], `${JSON.stringify(overloaded)}\n`);
      expect(r.status, now).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain("option '--now <iso>'");
      expect(r.stderr).toContain('1970');
      expect(r.stderr).not.toMatch(/\n\s+at |RecourseError/);
    }
    const last = runCli(['classify', '--now', '9999-12-31T23:59:59Z'], `${JSON.stringify(overloaded)}\n`);
    expect(last.status).toBe(0);
  });

  it('reports a line over 16 MiB as an invalid line without reading it, and goes on; exit 2', () => {
    const huge = JSON.stringify({ kind: 'stderr', text: `529 overloaded ${'a'.repeat(16 * 1024 * 1024)}` });
    const r = runCli(['classify', '-'], `${huge}\n${JSON.stringify(overloaded)}\n`);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('');
    expect(r.lines).toHaveLength(2);
    expect(JSON.parse(r.lines[0]!)).toEqual({
      error: {
        line: 1,
        path: '',
        message: `line of ${huge.length} bytes is longer than 16777216; it was not read`,
      },
    });
    expect(JSON.parse(r.lines[1]!)).toMatchObject({ code: 'provider_overloaded' });
  });

  it('reads a long line under the bound, CRLF line ends, and a last line without a newline', () => {
    const long = { kind: 'stderr', text: `API Error: 529 Overloaded ${'x'.repeat(3_000_000)}` };
    const r = runCli(['classify', '-'], `${JSON.stringify(long)}\r\n${JSON.stringify(overloaded)}`);
    expect(r.status).toBe(0);
    expect(r.lines.map((l) => (JSON.parse(l) as { code: string }).code)).toEqual([
      'provider_overloaded',
      'provider_overloaded',
    ]);
  });

  it('never passes control characters or bidi controls from input to the terminal, in JSON or --pretty', () => {
    // ESC sequences (clear screen, OSC title with BEL), CR, NUL, a C1 CSI, DEL, bidi overrides and isolates.
    const evil = '\u001b[2J\u001b]0;pwned\u0007\r\u0000\u009b31m\u007f\u202e\u2066\u2069\u061c';
    const input = jsonl(
      { kind: 'stderr', text: `API Error: 529 Overloaded ${evil} done` },
      { kind: 'http', status: 529, [`x${evil}`]: 1 },
      { kind: 'http', status: `5${evil}` },
      `{"kind": "http", ${evil}`,
    );
    for (const args of [
      ['classify', '-'],
      ['classify', '-', '--pretty'],
      ['classify', '-', '--explain'],
    ]) {
      const r = runCli(args, input);
      expect(r.status).toBe(2);
      expect(rawControls(r.stdout)).toEqual([]);
      expect(rawControls(r.stderr)).toEqual([]);
    }
    const json = runCli(['classify', '-'], input);
    expect(json.lines).toHaveLength(4);
    expect(JSON.parse(json.lines[1]!)).toEqual({
      error: { line: 2, path: `/x${evil}`, message: expect.stringContaining('unknown field') as string },
    });
    const pretty = runCli(['classify', '-', '--pretty'], input).stdout.split('\n');
    // The envelope's line and its excerpt, three invalid lines, a blank line, the summary, the final newline.
    expect(pretty).toHaveLength(8);
    expect(pretty.find((l) => l.includes('unknown field'))).toContain(
      '/x\\x1b[2J\\x1b]0;pwned\\x07\\r\\x00\\x9b31m\\x7f\\u202e\\u2066\\u2069\\u061c',
    );
  });

  it('escapes what commander echoes from the command line in its errors', () => {
    const badNow = runCli(['classify', '--now', '\u001b[2J\u202etomorrow\r'], '');
    expect(badNow.status).not.toBe(0);
    expect(rawControls(badNow.stderr)).toEqual([]);
    expect(badNow.stderr).toContain("'\\x1b[2J\\u202etomorrow\\r' is invalid");
    const unknown = runCli(['\u001b]0;title\u0007', '--\u202e'], '');
    expect(unknown.status).not.toBe(0);
    expect(rawControls(unknown.stderr)).toEqual([]);
  });

  it('answers invalid UTF-8, NUL bytes and a million nested brackets with an error line each, and goes on', () => {
    const input = Buffer.concat([
      Buffer.from([0xff, 0xfe, 0x7b, 0x0a]), // not UTF-8
      Buffer.from('{"kind":"stderr","text":"a\u0000b"}\u0000\n'),
      Buffer.from(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}\n`),
      Buffer.from(
        `{"kind":"acp_error","error":{"code":-32603,"message":"x","data":${'['.repeat(100_000)}${']'.repeat(100_000)}}}\n`,
      ),
    ]);
    const r = runCli(['classify', '-'], input);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('');
    expect(r.lines.map((l) => Object.keys(JSON.parse(l) as object)[0])).toEqual([
      'error',
      'error',
      'error',
      'code',
    ]);
    expect(rawControls(r.stdout)).toEqual([]);
  });

  it('classifies the shipped example file cleanly', () => {
    const r = runCli(['classify', new URL('../../examples/evidence.jsonl', import.meta.url).pathname]);
    expect(r.status).toBe(0);
    expect(r.lines.length).toBeGreaterThanOrEqual(10);
  });

  it('never prints a secret', () => {
    const secret = 'sk-ant-api03-ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210';
    const r = runCli(
      ['classify'],
      jsonl({ kind: 'stderr', text: `401 invalid x-api-key ${secret}` }, { kind: 'http', status: secret }),
    );
    expect(r.stdout).not.toContain('ZyXwVuTsRq');
  });
});

describe('usage errors of every command', () => {
  it('an unknown option, a missing argument or an unknown command exits 2 with the usage; help and version exit 0', () => {
    for (const args of [
      ['classify', '--bogus'],
      ['simulate'],
      ['policy', 'validate'],
      ['policy', 'preview', '--nope', 'x'],
      ['teleport'],
    ]) {
      const r = runCli(args);
      expect({ args, status: r.status }).toEqual({ args, status: 2 });
      expect(r.stderr).toMatch(/^error: /);
    }
    expect(runCli(['--help']).status).toBe(0);
    expect(runCli(['policy', 'validate', '--help']).status).toBe(0);
    expect(runCli(['--version'])).toMatchObject({ status: 0, stdout: '0.1.0\n' });
  });
});
