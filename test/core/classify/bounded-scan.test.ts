import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { scanShapeOf } from '../../../src/core/classify/bounded-scan.js';
import { BranchTable, PrunedPattern } from '../../../src/core/classify/pruned-pattern.js';
import { GramTable } from '../../../src/core/classify/required-grams.js';

describe('[CLS-04] a scan from the start of the text runs as its alternatives (issue 10)', () => {
  it('reads the shape of a scan, and nothing else as one', () => {
    expect(
      scanShapeOf(String.raw`^(?![\s\S]{0,50}?(?:^|\n)api error)[\s\S]{0,90}?(?:ab|c(?:d|e)|\bf)`, ''),
    ).toEqual({
      look: { source: String.raw`(?:^|\n)api error`, limit: 50 },
      limit: 90,
      alternatives: ['ab', 'c(?:d|e)', String.raw`\bf`],
    });
    expect(scanShapeOf(String.raw`^[\s\S]{0,9}quota`, '')).toEqual({
      look: null,
      limit: 9,
      alternatives: ['quota'],
    });
    // `^` of every line, a capture, a bar at the top level, no bounded run: no scan.
    expect(scanShapeOf(String.raw`^[\s\S]{0,9}?(?:a|b)`, 'm')).toBeNull();
    expect(scanShapeOf(String.raw`^[\s\S]{0,9}?(a|b)`, '')).toBeNull();
    expect(scanShapeOf(String.raw`^[\s\S]{0,9}?a|b`, '')).toBeNull();
    expect(scanShapeOf(String.raw`^(?![\s\S]{0,9}?a|b)[\s\S]{0,9}?c`, '')).toBeNull();
    expect(scanShapeOf(String.raw`^[\s\S]*?(?:a|b)`, '')).toBeNull();
    expect(scanShapeOf(String.raw`[\s\S]{0,9}?(?:a|b)`, '')).toBeNull();
  });

  it('answers as the whole pattern does over generated scans and texts', () => {
    const words = ['quota', 'api error', 'status 429', 'npm err!', 'failed to', 'fetch', 'local'];
    const alternative = fc
      .tuple(
        fc.constantFrom('', String.raw`\b`, '(?:^|\n)', '(?<![a-z])', String.raw`(?<!\bnot )`),
        fc.constantFrom(...words),
        fc.constantFrom('', String.raw`\b`, '(?![a-z])', '$', String.raw`[^\n]{0,8}`, ' (?:a|b)'),
      )
      .map((parts) => parts.join(''));
    const scan = fc
      .tuple(
        fc.option(fc.tuple(fc.integer({ min: 0, max: 12 }), alternative), { nil: undefined }),
        fc.integer({ min: 0, max: 12 }),
        fc.array(alternative, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('?', ''),
      )
      .map(
        ([look, limit, alternatives, lazy]) =>
          String.raw`^${look ? String.raw`(?![\s\S]{0,${look[0]}}?${look[1]})` : ''}[\s\S]{0,${limit}}${lazy}(?:${alternatives.join('|')})`,
      );
    const text = fc
      .array(
        fc.tuple(
          fc.constantFrom(...words, 'x', 'not', 'a', 'b', 'x', 'x'),
          fc.constantFrom(' ', '\n', '', ': '),
        ),
        {
          maxLength: 12,
        },
      )
      .map((parts) => parts.flat().join(''));
    const table = new BranchTable(new Map());
    let matched = 0;
    fc.assert(
      fc.property(
        scan,
        fc.constantFrom('', 'quota|'),
        fc.array(text, { minLength: 1, maxLength: 4 }),
        (source, other, texts) => {
          const pattern = new RegExp(`${other}${source}`);
          expect(scanShapeOf(source, '')).not.toBeNull();
          const pruned = new PrunedPattern(pattern, table);
          const grams = new GramTable();
          for (const t of texts) {
            const m = pattern.exec(t);
            const expected = m === null ? -1 : m.index;
            if (expected >= 0) matched++;
            expect(pruned.search(t, grams), `${pattern.source} on ${JSON.stringify(t)}`).toBe(expected);
            expect(pruned.test(t, grams)).toBe(expected >= 0);
          }
        },
      ),
      { numRuns: 3_000, seed: 11 },
    );
    expect(matched).toBeGreaterThan(1000);
  });
});
