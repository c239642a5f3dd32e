import { describe, expect, it } from 'vitest';
import { evidenceBounds, parseEnvelope, truncationMark } from '../../../src/core/index.js';

const ok = (value: unknown) => {
  const r = parseEnvelope(value);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.evidence;
};
const issues = (value: unknown) => {
  const r = parseEnvelope(value);
  if (r.ok) throw new Error('expected issues');
  return r.issues;
};

describe('evidence envelopes', () => {
  it('[EVD-01] accepts every evidence source: ACP errors and updates, stderr, process exits, HTTP, SDK exceptions', () => {
    expect(ok({ kind: 'http', status: 429, headers: { 'Retry-After': '5' }, body: '{}' })).toMatchObject({
      kind: 'http',
      status: 429,
      headers: [['retry-after', '5']],
    });
    expect(
      ok({ kind: 'acp_error', error: { code: -32603, message: 'Internal error', data: { a: 1 } } }),
    ).toMatchObject({
      rpcCode: -32603,
      data: '{"a":1}',
    });
    expect(
      ok({
        kind: 'acp_update',
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } },
      }),
    ).toMatchObject({
      updateType: 'agent_message_chunk',
      text: 'hi',
    });
    expect(ok({ kind: 'stderr', text: 'boom' })).toMatchObject({ text: 'boom' });
    expect(ok({ kind: 'process_exit', exit_code: null, signal: 'SIGKILL', stderr_tail: 'x' })).toMatchObject({
      exitCode: null,
      signal: 'SIGKILL',
    });
    expect(
      ok({ kind: 'sdk_exception', name: 'RateLimitError', message: 'slow down', status: 429 }),
    ).toMatchObject({
      name: 'RateLimitError',
      status: 429,
    });
  });

  it('[EVD-03] keeps the correlation fields: invocation, prompt generation and phase', () => {
    expect(
      ok({
        kind: 'stderr',
        text: 'x',
        invocation_id: 'inv-1',
        prompt_generation: 4,
        phase: 'prompt',
        observed_at: '2026-06-01T12:00:00+02:00',
      }),
    ).toMatchObject({
      invocationId: 'inv-1',
      promptGeneration: 4,
      phase: 'prompt',
      observedAtMs: Date.parse('2026-06-01T10:00:00Z'),
    });
  });

  it('accepts unknown provider and agent ids', () => {
    expect(ok({ kind: 'stderr', text: 'x', provider: 'brand-new-llm', agent: 'some-cli' })).toMatchObject({
      providerId: 'brand-new-llm',
      agentId: 'some-cli',
    });
  });

  it('treats status 0 as no status', () => {
    expect(ok({ kind: 'http', status: 0, body: '' })).toMatchObject({ status: null });
  });

  it('[EVD-02] cuts oversized text to 64 KiB on a code-point boundary and marks it, never failing', () => {
    const e = ok({ kind: 'stderr', text: 'é'.repeat(70_000) });
    if (e.kind !== 'stderr') throw new Error('kind');
    expect(Buffer.byteLength(e.text, 'utf8')).toBe(evidenceBounds.textBytes);
    expect(e.truncated).toEqual(['/text']);
    const ascii = ok({ kind: 'stderr', text: 'a'.repeat(70_000) });
    expect(ascii.kind === 'stderr' && ascii.text.length).toBe(evidenceBounds.textBytes);
    // A 3-byte character that would straddle the bound is dropped whole.
    const straddle = ok({ kind: 'stderr', text: `${'a'.repeat(65_535)}€tail` });
    expect(straddle.kind === 'stderr' && straddle.text).toBe('a'.repeat(65_535));
    const emoji = ok({ kind: 'stderr', text: '😀'.repeat(20_000) });
    expect(emoji.kind === 'stderr' && Buffer.byteLength(emoji.text, 'utf8')).toBe(evidenceBounds.textBytes);
    expect(ok({ kind: 'stderr', text: 'short' }).truncated).toEqual([]);
  });

  it('[EVD-02] keeps at most 64 headers of 1 KiB', () => {
    const headers = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-h${i}`, 'v'.repeat(2000)]));
    const e = ok({ kind: 'http', status: 500, headers });
    if (e.kind !== 'http') throw new Error('kind');
    expect(e.headers).toHaveLength(64);
    expect(e.headers.every(([, v]) => v.length <= evidenceBounds.headerBytes)).toBe(true);
    expect(e.truncated).toContain('/headers');
  });

  it('[EVD-02] bounds arbitrary JSON in error.data and cyclic-looking depth', () => {
    let deep: Record<string, unknown> = { leaf: 'x'.repeat(100_000) };
    for (let i = 0; i < 50; i++) deep = { next: deep };
    const e = ok({ kind: 'acp_error', error: { code: -32603, message: 'm', data: deep } });
    if (e.kind !== 'acp_error') throw new Error('kind');
    expect(Buffer.byteLength(e.data ?? '', 'utf8')).toBeLessThanOrEqual(
      evidenceBounds.textBytes + truncationMark.length * 3,
    );
    expect(e.truncated).toContain('/error/data');
  });

  it('rejects a non-object, a missing or unknown kind, with a field-addressed message', () => {
    expect(issues('hello')).toEqual([
      { path: '', message: 'an envelope must be a JSON object (got "hello")' },
    ]);
    expect(issues({})[0]).toMatchObject({ path: '/kind' });
    expect(issues({ kind: 'smoke' })[0]!.message).toContain('kind "smoke" is not supported');
  });

  it('reports every problem at once, each with its JSON pointer', () => {
    const list = issues({
      kind: 'http',
      status: '429',
      headers: [],
      body: 1,
      prompt_generation: -1,
      observed_at: 'yesterday',
      extra: 1,
    });
    const paths = list.map((i) => i.path).sort();
    expect(paths).toEqual(['/extra', '/headers', '/observed_at', '/prompt_generation', '/status']);
    expect(list.find((i) => i.path === '/status')!.message).toBe(
      'status must be an integer from 0 to 599 (got "429")',
    );
  });

  it('addresses nested problems', () => {
    expect(issues({ kind: 'acp_error', error: { code: 'x', message: 5 } }).map((i) => i.path)).toEqual([
      '/error/code',
      '/error/message',
    ]);
    expect(issues({ kind: 'http', status: 200, headers: { a: { b: 1 } } })[0]!.path).toBe('/headers/a');
    expect(issues({ kind: 'process_exit', signal: null })[0]!.path).toBe('/exit_code');
  });

  it('never echoes a credential in an error message', () => {
    const secret = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    const list = issues({ kind: 'http', status: secret });
    expect(JSON.stringify(list)).not.toContain('AbCdEfGhIjKl');
  });
});
