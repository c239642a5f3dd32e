import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  compileGateList,
  GramTable,
  LazyGate,
  requiredGrams,
} from '../../../src/core/classify/required-grams.js';
import { defaultCatalogue, parseEnvelope } from '../../../src/core/index.js';
import { factsOf } from '../../../src/core/classify/facts.js';
import { corpusFiles, readCorpus, toEnvelope } from '../../helpers/corpus.mjs';
import { knownEvidenceTexts } from '../../helpers/known-texts.js';

const allows = (expression: RegExp, text: string) =>
  new GramTable().allows(new LazyGate(expression).get(), text);

describe('[CLS-04] a rule pattern runs only on texts holding its required trigrams (issue 10)', () => {
  it('refuses texts that lack a literal every match needs, and only those', () => {
    expect(allows(/invalid (?:base url|endpoint)/, 'error: invalid endpoint')).toBe(true);
    expect(allows(/invalid (?:base url|endpoint)/, 'error: invalid token')).toBe(false);
    expect(allows(/invalid (?:base url|endpoint)/, 'endpoint base url')).toBe(false);
    expect(allows(/rate limit|quota/, 'over quota')).toBe(true);
    expect(allows(/rate limit|quota/, 'too many requests')).toBe(false);
    // Optional parts, classes, repeats and lookarounds require nothing beyond what is certain.
    expect(allows(/colou?r/, 'color')).toBe(true);
    expect(allows(/ab+c/, 'abbbc')).toBe(true);
    expect(allows(/ab{1,3}c/, 'abbc')).toBe(true);
    expect(allows(/x(?:yz)?w/, 'xw')).toBe(true);
    expect(allows(/(?<=model )not found/, 'not found')).toBe(true);
    expect(allows(/\d{3} error/, '429 error')).toBe(true);
    expect(allows(/\.json\b/, 'a.json')).toBe(true);
    expect(allows(/\.json\b/, 'ajson')).toBe(false);
  });

  it('reads legacy octal escapes and long braced quantifiers as the engine does (found by review)', () => {
    expect(allows(new RegExp(String.raw`\012ab`), '\nab')).toBe(true);
    expect(allows(new RegExp(String.raw`x\012ab`), 'x\nab')).toBe(true);
    expect(allows(new RegExp(String.raw`ab\01cd`), 'ab\x01cd')).toBe(true);
    expect(allows(new RegExp(String.raw`\00abc`), '\0abc')).toBe(true);
    expect(allows(new RegExp(String.raw`\0101abc`), '\b1abc')).toBe(true);
    expect(allows(/xya{0000000000000000000000001}/, 'xya')).toBe(true);
    expect(allows(/abc{0,00000000000000000000000001}def/, 'abdef')).toBe(true);
    expect(allows(/(abc){0000000000000000000000000}def/, 'def')).toBe(true);
    expect(allows(/(?:abc){000000000000000000000000}/, 'zz')).toBe(true);
  });

  it('an expression it does not read, or with case folding, requires nothing', () => {
    expect(requiredGrams(/abc/i)).toEqual({ kind: 'none' });
    expect(requiredGrams(/abc/u)).toEqual({ kind: 'none' });
    expect(requiredGrams(/a\cJbc/)).toEqual({ kind: 'none' });
  });

  it('never refuses a corpus or fixture text that a catalogue pattern matches', () => {
    const texts = knownEvidenceTexts();
    const missed: string[] = [];
    let refused = 0;
    for (const compiled of defaultCatalogue.rules) {
      const pattern = compiled.rule.when.text;
      if (pattern === undefined) continue;
      const table = new GramTable();
      const gate = new LazyGate(pattern).get();
      for (const text of texts) {
        const allowed = table.allows(gate, text);
        if (!allowed) refused++;
        if (!allowed && pattern.test(text)) missed.push(`${compiled.rule.id}: ${text.slice(0, 80)}`);
      }
    }
    expect(missed).toEqual([]);
    // The gate does work: most rule and text pairs are refused unrun.
    expect(refused).toBeGreaterThan(texts.length * 10);
  });

  it("a gate list's covers refuse only what its gates refuse, over every catalogue pattern and corpus text", () => {
    const texts = corpusFiles.flatMap((file) =>
      readCorpus(file).flatMap((record) => {
        const parsed = parseEnvelope(toEnvelope(record));
        return parsed.ok ? [factsOf(parsed.evidence).text] : [];
      }),
    );
    const patterns = [
      ...new Set(
        defaultCatalogue.rules.flatMap(({ rule }) =>
          [
            rule.when.text,
            rule.when.unless,
            rule.when.anchorWhenUnnamed,
            rule.when.near?.anchor,
            rule.when.near?.word,
          ].filter((p): p is RegExp => p !== undefined),
        ),
      ),
    ];
    // One list of every pattern's gate: each gate is read in place from its start, beside the others.
    const list = compileGateList(patterns.map(requiredGrams));
    const gates = patterns.map((p) => new LazyGate(p).get());
    const table = new GramTable();
    const held = new Int32Array(patterns.length);
    const wrong: string[] = [];
    let allowed = 0;
    for (const text of texts) {
      const count = table.select(list, text, held);
      const expected = gates.flatMap((gate, k) => (table.allows(gate, text) ? [k] : []));
      allowed += expected.length;
      if (JSON.stringify([...held.subarray(0, count)]) !== JSON.stringify(expected))
        wrong.push(text.slice(0, 80));
    }
    expect(wrong).toEqual([]);
    expect(allowed).toBeGreaterThan(texts.length);
  });

  it('never refuses a text that a generated pattern matches', () => {
    const pieces = [
      'ab',
      'abc',
      'c?',
      'd+',
      'e{1,3}',
      'f{2}',
      'g{0,2}',
      '(?:xy|yz)',
      '(?:ab|)',
      '(ca)+',
      '[a-c]',
      '\\.',
      '\\b',
      '(?=ab)',
      '(?<!x)',
      '.',
      '^',
      '$',
      '\\d',
      '{',
      ']',
      '\\x41',
      '\\012',
      '\\0',
      'b{0000000000000000000000001}',
      'a|b',
    ];
    let matched = 0;
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 6 }),
        // Texts made of the pieces' own material, repeated and cut short, so that many patterns match.
        fc.array(
          fc.constantFrom(
            'a',
            'ab',
            'abc',
            'abbc',
            'c',
            'dd',
            'e',
            'ee',
            'eee',
            'ff',
            'g',
            'xy',
            'yz',
            'caca',
            '.',
            '1',
            '\n',
            '\0',
            ' ',
            'A',
            '{',
            ']',
          ),
          { maxLength: 12 },
        ),
        (parts, chars) => {
          let pattern: RegExp;
          try {
            pattern = new RegExp(parts.join(''));
          } catch {
            return;
          }
          const text = chars.join('');
          if (!pattern.test(text)) return;
          matched++;
          expect(allows(pattern, text), `${pattern.source} on ${text}`).toBe(true);
          const list = compileGateList([requiredGrams(pattern)]);
          expect(new GramTable().select(list, text, new Int32Array(1)), `${pattern.source} on ${text}`).toBe(
            1,
          );
        },
      ),
      { numRuns: 20_000, seed: 4 },
    );
    expect(matched).toBeGreaterThan(2_000);
  });
});
