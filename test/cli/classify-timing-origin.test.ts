import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { classify } from '../../src/core/index.js';

const now = '2026-06-01T12:00:00Z';
/** Observed five days after `now`, with a relative `Retry-After` of 20 seconds. */
const fromTheFuture = {
  kind: 'http',
  status: 529,
  provider: 'anthropic',
  observed_at: '2026-06-06T12:00:00Z',
  headers: { 'retry-after': '20' },
  body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
};

describe('recourse classify and the timing origin', () => {
  it('[CLS-23] counts a relative hint from --now when observed_at is days ahead of it', () => {
    const r = runCli(['classify', '-', '--now', now], `${JSON.stringify(fromTheFuture)}\n`);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.lines[0]!) as Record<string, unknown>;
    expect(out).toMatchObject({
      retry_after: '2026-06-01T12:00:20Z',
      occurred_at: '2026-06-01T12:00:00Z',
    });
    // No output field is added: the line is exactly the library's classification.
    expect(out).toEqual(classify(fromTheFuture, { now: Date.parse(now) }));
  });

  it('[CLS-23] applies the same correction under --explain, adding only the matches', () => {
    const r = runCli(['classify', '-', '--explain', '--now', now], `${JSON.stringify(fromTheFuture)}\n`);
    expect(r.status).toBe(0);
    const { matches, ...classification } = JSON.parse(r.lines[0]!) as Record<string, unknown>;
    expect(Array.isArray(matches)).toBe(true);
    expect(classification).toEqual(classify(fromTheFuture, { now: Date.parse(now) }));
    expect(classification.retry_after).toBe('2026-06-01T12:00:20Z');
  });
});
