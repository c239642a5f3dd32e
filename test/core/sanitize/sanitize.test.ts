import { describe, expect, it } from 'vitest';
import { secretSamples } from './secrets.mjs';
import { excerptMaxBytes, redactSecrets, safeExcerpt, safeIdentifier } from '../../../src/core/index.js';

describe('[DAT-09][CLS-21] sanitization', () => {
  it('[DAT-09] removes bidi isolates and the Arabic letter mark as it removes overrides and controls', () => {
    const hostile = 'Over\u2066loaded\u2069 \u061cand\u202e \u2067 \u2068 done\u001b[31m';
    // The colour code goes whole (a key coloured red starts a word again), not only its ESC.
    expect(safeExcerpt(hostile)).toBe('Overloaded and done');
  });

  it.each(secretSamples().map((s) => [s.kind, s] as const))('redacts %s', (_kind, sample) => {
    const text = `Upstream said: ${sample.text} (request req_123) and more`;
    const out = redactSecrets(text);
    expect(out).not.toContain(sample.value);
    expect(safeExcerpt(text)).not.toContain(sample.value);
  });

  it('redacts secrets that sit at the edge of the excerpt window, and in the tail', () => {
    for (const sample of secretSamples('zz9')) {
      const text = `${'word '.repeat(300)}${sample.text} ${'tail '.repeat(300)}`;
      expect(safeExcerpt(text, { at: 'offset', offset: 1500 })).not.toContain(sample.value);
      expect(safeExcerpt(`${'x '.repeat(2000)}${sample.text}`, { at: 'tail' })).not.toContain(sample.value);
    }
  });

  it('finds a secret that begins inside another one (a key word value swallowing an ARN prefix)', () => {
    // Found by the fuzz test: the session id's value ran into `arn`, and the account id after it survived.
    const text = '{"session_id":"9a8b7c6d-5e4farn:aws:bedrock:us-east-1:929030141252:inference-profile/x"}';
    expect(redactSecrets(text)).not.toContain('929030141252');
    expect(safeExcerpt(text)).not.toContain('929030141252');
    expect(redactSecrets('arn:aws:bedrock:us-east-1:929030141252:x')).toBe(
      'arn:aws:bedrock:us-east-1:[REDACTED]:x',
    );
  });

  it('redacts a key right after a terminal colour code, a colour-split key, and an AWS key pair', () => {
    const cases = [
      ['Error 401 \u001b[31mAKIAIOSFODNN7EXAMPLE\u001b[0m', 'AKIAIOSFODNN7EXAMPLE'],
      ['\u001b(Bxoxb-123456789012-abcdefghij', 'abcdefghij'],
      ['\u001b[1mgsk_abcdefghijklmnop', 'abcdefghijklmnop'],
      ['invalid api key pMLQZZypjfaD79VP\u001b[31mpMLQZZypjfaD79VPunwNEazQwyL4\u001b[0m', 'unwNEazQwyL4'],
      ['AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'bPxRfiCYEXAMPLEKEY'],
    ] as const;
    for (const [text, secret] of cases) {
      expect(safeExcerpt(text), text).not.toContain(secret);
      expect(redactSecrets(text), text).not.toContain(secret);
    }
    // A malformed sequence keeps its characters rather than take a prefix's first letter with it.
    expect(safeExcerpt('\u001b[ arn:aws:bedrock:us-east-1:929030141252:x')).not.toContain('929030141252');
  });

  it('[DAT-09] a value that is not a string (from untyped JavaScript) is redacted as its text, never returned in clear', () => {
    const key = 'sk-ant-api03-' + 'Q'.repeat(40);
    for (const value of [[key], { toString: () => `key ${key}` }, new String(key)]) {
      for (const out of [
        redactSecrets(value as unknown as string),
        safeExcerpt(value as unknown as string),
      ]) {
        expect(typeof out).toBe('string');
        expect(out).not.toContain('Q'.repeat(20));
      }
    }
    // Neither throws on what has no text of its own.
    for (const value of [undefined, null, 123, {}, Object.create(null) as object]) {
      expect(typeof redactSecrets(value as unknown as string)).toBe('string');
      expect(typeof safeExcerpt(value as unknown as string)).toBe('string');
    }
  });

  it('keeps the message readable', () => {
    const text = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
    expect(safeExcerpt(text)).toBe(text);
    expect(
      redactSecrets('Rate limit reached for gpt-4 in organization org-AbCdEf123456 on tokens per min.'),
    ).toBe('Rate limit reached for gpt-4 in organization [REDACTED] on tokens per min.');
  });

  it('removes control characters and collapses line breaks', () => {
    expect(safeExcerpt('a\u0000b\u0007c\nd\r\ne\tf\u200bg\u202eh')).toBe('abc d e fgh');
  });

  it('rejoined secrets split by control characters are still redacted', () => {
    expect(safeExcerpt('token sk-ant-\u0000api03-AbCdEfGhIjKlMnOpQrStUv')).not.toContain('AbCdEfGhIjKl');
  });

  it('bounds the excerpt to 512 bytes and cuts on a UTF-8 boundary', () => {
    for (const unit of ['a', 'é', '€', '😀']) {
      const out = safeExcerpt(unit.repeat(2000));
      expect(Buffer.byteLength(out, 'utf8')).toBeLessThanOrEqual(excerptMaxBytes);
      expect(Buffer.byteLength(out, 'utf8')).toBeGreaterThan(excerptMaxBytes - 4);
      expect(out).not.toMatch(/[\ud800-\udbff]$/);
      expect(Buffer.from(out, 'utf8').toString('utf8')).toBe(out);
    }
  });

  it('takes the tail of a tail and the neighbourhood of a match', () => {
    expect(safeExcerpt(`${'a '.repeat(1000)}THE END`, { at: 'tail' }).endsWith('THE END')).toBe(true);
    const around = safeExcerpt(`${'pad '.repeat(500)}NEEDLE here`, { at: 'offset', offset: 2000 });
    expect(around).toContain('NEEDLE');
  });

  it('accepts only safe identifiers', () => {
    expect(safeIdentifier('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5-20250929');
    expect(safeIdentifier('anthropic/claude-3.5-sonnet:beta')).toBe('anthropic/claude-3.5-sonnet:beta');
    expect(safeIdentifier('us.anthropic.claude-3-7-sonnet-20250219-v1:0')).toBe(
      'us.anthropic.claude-3-7-sonnet-20250219-v1:0',
    );
    expect(safeIdentifier('sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx')).toBeNull();
    expect(safeIdentifier('projects/acme-prod-123/locations/us/models/gemini')).toBeNull();
    expect(safeIdentifier('has space')).toBeNull();
    expect(safeIdentifier('a'.repeat(200))).toBeNull();
    expect(safeIdentifier(null)).toBeNull();
  });
});
