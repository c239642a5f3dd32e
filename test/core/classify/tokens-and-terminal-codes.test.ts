import { describe, expect, it } from 'vitest';
import {
  classify,
  classifyEvidence,
  compileCatalogue,
  parseEnvelope,
  RecourseError,
  type Rule,
} from '../../../src/core/index.js';
import { forEachToken } from '../../../src/core/classify/facts.js';
import { stripTerminalCodes, unstrippedOffset } from '../../../src/core/classify/terminal-codes.js';

const now = Date.parse('2026-06-01T12:00:00Z');
const tokens = (text: string) => {
  const out: string[] = [];
  forEachToken(text, (t) => out.push(t));
  return out;
};

describe('[CLS-01] terminal colour codes', () => {
  it('strips CSI colour codes, cursor moves, OSC titles and hyperlinks, and charset selections', () => {
    expect(stripTerminalCodes('\x1b[31mError: 529 Overloaded\x1b[0m')).toBe('Error: 529 Overloaded');
    expect(stripTerminalCodes('\x1b[0;1mbold\x1b[22m \x1b[38;5;196mred\x1b[39m\x1b[2K\x1b[1G')).toBe(
      'bold red',
    );
    expect(stripTerminalCodes('\x1b]0;title\x07a \x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\')).toBe(
      'a link',
    );
    expect(stripTerminalCodes('\x1b(Bplain\x1b=')).toBe('plain');
    expect(stripTerminalCodes('no escapes here')).toBe('no escapes here');
  });

  it('classifies coloured evidence like the plain text; the excerpt is cut from the original', () => {
    const plain = { kind: 'stderr', agent: 'claude-code', text: 'Error: 529 Overloaded' };
    const coloured = { ...plain, text: '\x1b[31mError: 529 Overloaded\x1b[0m' };
    const { safe_excerpt: _plainExcerpt, ...expected } = classify(plain, { now });
    expect(expected.code).toBe('provider_overloaded');
    const { safe_excerpt: excerpt, ...got } = classify(coloured, { now });
    expect(got).toEqual(expected);
    expect(excerpt).toContain('Error: 529 Overloaded');
  });

  it('cuts the excerpt at the match when the text holds İ, which lower-casing lengthens (one more per İ)', () => {
    const text = `${'İ'.repeat(500)} upstream said: rate limit exceeded, slow down ${'z'.repeat(3000)}`;
    const got = classify({ kind: 'http', status: 500, body: text }, { now });
    expect(got.code).toBe('rate_limited');
    expect(got.safe_excerpt).toContain('rate limit exceeded');
    expect(unstrippedOffset('İİab', 5)).toBe(3);
    expect(unstrippedOffset('\x1b[31mİ\x1b[0mab', 3)).toBe(11);
  });

  it('never lets a malformed sequence swallow the context that marks a secret', () => {
    const text =
      '\x1b[31mAPI Error: \x1b[ arn:aws:bedrock:us-east-1:760871982093:inference-profile/x 529 Overloaded';
    expect(JSON.stringify(classify({ kind: 'stderr', text }, { now }))).not.toContain('760871982093');
    expect(unstrippedOffset('\x1b[31mab\x1b[0mcd', 3)).toBe(12);
    expect(unstrippedOffset('abcd', 3)).toBe(3);
  });

  it('leaves an unterminated OSC and a lone ESC to the excerpt sanitizer, in linear time', () => {
    const hostile = `\x1b]${'a'.repeat(100_000)}\x1b[${'1;'.repeat(50_000)}`;
    expect(stripTerminalCodes(hostile).length).toBeGreaterThan(100_000);
    expect(classify({ kind: 'stderr', text: hostile }, { now }).class).toBe('unclassified');
  });
});

describe('[CLS-04] CJK keywords', () => {
  it('emits every overlapping two-character bigram of a run of Han, kana or Hangul, beside the word tokens', () => {
    expect(tokens('错误：服务器繁忙 rate_limit')).toEqual([
      '错误',
      '服务',
      '务器',
      '器繁',
      '繁忙',
      'rate_limit',
      'rate',
      'limit',
    ]);
    expect(tokens('サーバー過負荷')).toContain('過負');
    expect(tokens('요청 한도 초과')).toEqual(['요청', '한도', '초과']);
    expect(tokens('单 a')).toEqual(['a']);
  });

  const rule = (keywords: string[]): Rule => ({
    id: 'test.cjk_busy.v1',
    description: 'test',
    tier: 'signature',
    code: 'provider_overloaded',
    confidence: 'high',
    when: { keywords, text: /服务器繁忙/ },
  });

  it('lets a rule select evidence by a CJK bigram keyword', () => {
    const parsed = parseEnvelope({ kind: 'stderr', text: '请求失败：服务器繁忙，请稍后再试' });
    if (!parsed.ok) throw new Error('bad envelope');
    const result = classifyEvidence(parsed.evidence, { now }, compileCatalogue('test', [rule(['繁忙'])]));
    expect(result.classifier_rule).toBe('test.cjk_busy.v1');
  });

  it('refuses to compile a CJK keyword that is not exactly two characters, naming the rule and keyword', () => {
    for (const bad of ['服务器繁忙', '忙', 'busy繁忙', '繁a']) {
      expect(() => compileCatalogue('test', [rule([bad])])).toThrow(RecourseError);
      expect(() => compileCatalogue('test', [rule([bad])])).toThrow(
        new RegExp(`test\\.cjk_busy\\.v1: keyword "${bad}".*exactly two`),
      );
    }
    expect(() => compileCatalogue('test', [rule(['繁忙', 'busy'])])).not.toThrow();
  });
});
