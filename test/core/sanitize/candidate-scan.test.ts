import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { candidatePattern, nextCandidate } from '../../../src/core/sanitize/secret-patterns.js';
import { corpusFiles, readCorpus } from '../../helpers/corpus.mjs';
import { planted } from '../../helpers/planted-credentials.js';

/** Every place the regular expression finds in `text`, each search starting one past the last. */
function byPattern(text: string): number[] {
  const pattern = candidatePattern();
  const found: number[] = [];
  for (let i = 0; i < text.length;) {
    pattern.lastIndex = i;
    const m = pattern.exec(text);
    if (m === null) break;
    found.push(m.index);
    i = m.index + 1;
  }
  return found;
}

/** The same walk through the written-out scan. */
function byScan(text: string): number[] {
  const found: number[] = [];
  for (let i = nextCandidate(text, 0); i < text.length; i = nextCandidate(text, i + 1)) found.push(i);
  return found;
}

/** Each corpus record whole, as JSON: bodies, stderr, headers and the escapes between them. */
const corpusTexts: string[] = corpusFiles
  .flatMap(readCorpus)
  .map((record: unknown) => JSON.stringify(record));

/** Fragments that begin formats, or nearly do, so random texts exercise every branch of the scan. */
const pieces = [
  'sk-',
  'AKIA',
  'eyJ',
  '-----BEGIN',
  '----begin',
  '://',
  ':aws',
  ':AWS',
  ':aw',
  'user@',
  '.@',
  ' @',
  'x-',
  'Bearer ',
  'api_key=',
  'token',
  '/',
  '+',
  '_',
  '-',
  ' ',
  '\n',
  'é',
  '服务',
  'ſk',
  'K',
  'a',
  '0',
  'Z9',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef',
  '0123456789abcdef0123456789abcde',
  '-u',
  '-p',
  '--',
  '\\u0041',
  'キー',
  'ー',
  '令牌',
  '토큰',
  'MTA4',
];

describe('[DAT-09] the secret scan stops exactly where its specification does (issue 10)', () => {
  it('over every corpus evidence, as JSON', () => {
    for (const text of corpusTexts) expect(byScan(text), text).toEqual(byPattern(text));
  });

  it('over every planted credential, in prose and in its header', () => {
    for (const p of planted) {
      for (const text of [p.prose, p.header.join(': '), p.secret])
        expect(byScan(text), text).toEqual(byPattern(text));
    }
  });

  it('over random texts built from the fragments formats begin with', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(byScan(text)).toEqual(byPattern(text));
      }),
      { numRuns: 5000, seed: 10 },
    );
  });

  it('over arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 120 }), (text) => {
        expect(byScan(text)).toEqual(byPattern(text));
      }),
      { numRuns: 3000, seed: 11 },
    );
  });

  it('from a position inside a word or a run: what lies before counts', () => {
    const text = 'xsk-abc0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh/ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh';
    for (let from = 0; from < text.length; from++) {
      const pattern = candidatePattern();
      pattern.lastIndex = from;
      expect(nextCandidate(text, from), String(from)).toBe(pattern.exec(text)?.index ?? text.length);
    }
  });
});
