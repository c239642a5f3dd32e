import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  BranchTable,
  minBranches,
  PrunedPattern,
  splitAlternation,
} from '../../../src/core/classify/pruned-pattern.js';
import { GramTable } from '../../../src/core/classify/required-grams.js';
import { scanShapeOf } from '../../../src/core/classify/bounded-scan.js';
import type { PreparedGates, PreparedScan } from '../../../src/core/classify/prepared-gates.js';
import { catalogueRules, defaultCatalogue } from '../../../src/core/index.js';
import { nearOf } from '../../../src/core/classify/compiled-catalogue.js';
import { knownEvidenceTexts } from '../../helpers/known-texts.js';

/** Each pattern of the shipped catalogue once (text, veto, anchor), with the id of the first rule that has it. */
function* distinctPatterns(): Generator<{ id: string; pruned: PrunedPattern }> {
  const seen = new Set<PrunedPattern>();
  for (const compiled of defaultCatalogue.rules) {
    for (const pruned of [compiled.test.text, compiled.test.unless, compiled.test.anchorWhenUnnamed]) {
      if (pruned === null || seen.has(pruned)) continue;
      seen.add(pruned);
      yield { id: compiled.rule.id, pruned };
    }
  }
}

/**
 * The tables scripts/build-prepared-gates.mjs writes into dist, computed here from the sources with one branch table
 * for the whole catalogue (as the build does): every rule pattern's gates, and every scan's among their branches.
 */
function computedTables(): {
  prepared: Map<string, PreparedGates>;
  scans: Map<string, PreparedScan>;
  patterns: Array<{ id: string; pattern: RegExp }>;
  near: Map<string, readonly number[] | null>;
} {
  const table = new BranchTable(new Map(), new Map());
  const prepared = new Map<string, PreparedGates>();
  const patterns: Array<{ id: string; pattern: RegExp }> = [];
  for (const { id, pruned } of distinctPatterns()) {
    const { pattern } = pruned;
    patterns.push({ id, pattern });
    const key = `${pattern.flags}/${pattern.source}`;
    if (!prepared.has(key)) prepared.set(key, new PrunedPattern(pattern, table).gatesForBuild());
  }
  const near = new Map<string, readonly number[] | null>();
  for (const rule of catalogueRules) {
    if (rule.when.near === undefined) continue;
    const { anchor, anchorGate, word, wordGate } = nearOf(rule.when.near, new Map());
    near.set(`${anchor.flags}/${anchor.source}`, anchorGate.wordsForBuild());
    near.set(`${word.flags}/${word.source}`, wordGate.wordsForBuild());
  }
  return { prepared, scans: table.scansForBuild(), patterns, near };
}

/** Where the whole pattern first matches, as the classifier read it before branches were pruned. */
function wholeSearch(pattern: RegExp, text: string): number {
  const m = pattern.exec(text);
  return m === null ? -1 : m.index;
}

/**
 * Every corpus and fixture text, and where each catalogue pattern first matches each of them, searched once for
 * the file: two tests check against the same answers, and running every whole pattern over every text is most of
 * their time (tens of seconds). A pattern with the g or y flag would keep state between searches: none may have it.
 */
let knownTexts: string[] | undefined;
const wholeAnswers = new Map<RegExp, Int32Array>();
function texts(): string[] {
  knownTexts ??= knownEvidenceTexts();
  return knownTexts;
}
function wholeSearchesOf(pattern: RegExp): Int32Array {
  let answers = wholeAnswers.get(pattern);
  if (answers === undefined) {
    expect(pattern.global || pattern.sticky, `/${pattern.source}/${pattern.flags} keeps state`).toBe(false);
    answers = Int32Array.from(texts(), (text) => wholeSearch(pattern, text));
    wholeAnswers.set(pattern, answers);
  }
  return answers;
}

describe('[CLS-04] a long alternation runs only the branches whose trigrams the text holds (issue 10)', () => {
  it('splits a source at its top-level bars only', () => {
    expect(splitAlternation('ab|cd|ef')).toEqual(['ab', 'cd', 'ef']);
    expect(splitAlternation(String.raw`a\|b|c`)).toEqual([String.raw`a\|b`, 'c']);
    expect(splitAlternation('[|]x|y')).toEqual(['[|]x', 'y']);
    expect(splitAlternation(String.raw`[\]|]x|y`)).toEqual([String.raw`[\]|]x`, 'y']);
    expect(splitAlternation('[]|x')).toEqual(['[]', 'x']);
    expect(splitAlternation('[^|]|x')).toEqual(['[^|]', 'x']);
    expect(splitAlternation('(?:a|b)c|d')).toEqual(['(?:a|b)c', 'd']);
    expect(splitAlternation('(?=a|b)|(?<=c|d)e|(?<!f|g)h|(?!i|j)')).toEqual([
      '(?=a|b)',
      '(?<=c|d)e',
      '(?<!f|g)h',
      '(?!i|j)',
    ]);
    expect(splitAlternation('a||b|')).toEqual(['a', '', 'b', '']);
    expect(splitAlternation('abc')).toEqual(['abc']);
  });

  it('does not split a source with a capturing group, named or not', () => {
    expect(splitAlternation('(a|b)|c')).toBeNull();
    expect(splitAlternation('a|(b)')).toBeNull();
    expect(splitAlternation('(?<name>a)|b')).toBeNull();
    // Escaped or in a class, a parenthesis opens nothing.
    expect(splitAlternation(String.raw`\(a|[(]b`)).toEqual([String.raw`\(a`, '[(]b']);
  });

  // About 200 patterns over about 6,000 texts, each both ways: 60-100 s alone, several minutes beside other files on a
  // loaded 2-core machine. The limit is a hang guard, not a time measurement.
  it('answers as the whole pattern does, for every catalogue pattern over every corpus and fixture text', () => {
    const known = texts();
    const grams = new GramTable();
    const wrong: string[] = [];
    let split = 0;
    let matched = 0;
    // The model-call anchor is one pattern that dozens of rules share: read once.
    for (const { id, pruned } of distinctPatterns()) {
      const { pattern } = pruned;
      if ((splitAlternation(pattern.source)?.length ?? 0) >= minBranches) split++;
      const answers = wholeSearchesOf(pattern);
      for (const [i, text] of known.entries()) {
        const expected = answers[i]!;
        if (expected >= 0) matched++;
        if (pruned.search(text, grams) !== expected || pruned.test(text, grams) !== expected >= 0)
          wrong.push(`${id} /${pattern.source.slice(0, 40)}/: ${text.slice(0, 80)}`);
      }
    }
    expect(wrong).toEqual([]);
    // The catalogue has long alternations, and the texts match them often enough to test something.
    expect(split).toBeGreaterThan(20);
    expect(matched).toBeGreaterThan(known.length);
  }, 600_000);

  it('answers as the whole pattern does over generated alternations and texts made of their words', () => {
    const words = ['npm', 'registry', 'rate limit', 'quota', 'not found', 'api key', 'tool', 'mcp', 'x'];
    const branch = fc
      .tuple(
        fc.constantFrom('', String.raw`\b`, '(?<![a-z])', '^'),
        fc.constantFrom(...words),
        fc.constantFrom('', String.raw`\s{1,3}`, ' ', '(?:d|e)?', '[.:]'),
        fc.constantFrom('', ...words),
        fc.constantFrom('', String.raw`\b`, '(?![a-z])', '$', String.raw`\d+`),
      )
      .map((parts) => parts.join(''));
    const text = fc
      .array(
        fc.tuple(
          fc.constantFrom(...words, '42', 'd', 'apinpm', 'quotas', 'tooling'),
          fc.constantFrom(' ', ' ', ': ', '.', '\n', '', '7'),
        ),
        { maxLength: 10 },
      )
      .map((parts) => parts.flat().join(''));
    let matched = 0;
    // One table for every generated pattern, as a catalogue shares one among its rules: a branch met again (under
    // the same flags) is the same compiled branch, and its answer for the last text is reused.
    const table = new BranchTable();
    fc.assert(
      fc.property(
        fc.array(branch, { minLength: minBranches, maxLength: 24 }),
        fc.constantFrom('', 'm'),
        fc.array(text, { minLength: 1, maxLength: 4 }),
        (branches, flags, texts) => {
          const pattern = new RegExp(branches.join('|'), flags);
          const pruned = new PrunedPattern(pattern, table);
          const grams = new GramTable();
          for (const t of texts) {
            const expected = wholeSearch(pattern, t);
            if (expected >= 0) matched++;
            expect(pruned.search(t, grams), `${pattern.source} on ${JSON.stringify(t)}`).toBe(expected);
            expect(pruned.test(t, grams)).toBe(expected >= 0);
          }
        },
      ),
      { numRuns: 3_000, seed: 10 },
    );
    expect(matched).toBeGreaterThan(600);
  });

  it('takes gates prepared at build time for what it would compute, over every catalogue pattern and text', () => {
    // What scripts/build-prepared-gates.mjs writes into dist: each rule pattern's gates, and its scans', computed
    // from scratch.
    const { prepared, scans, patterns } = computedTables();
    const fromBuild = new BranchTable(prepared, scans);
    const computed = new BranchTable(new Map(), new Map());
    const known = texts();
    const grams = new GramTable();
    const wrong: string[] = [];
    for (const { id, pattern } of patterns) {
      const built = new PrunedPattern(pattern, fromBuild);
      const own = new PrunedPattern(pattern, computed);
      expect(built.gatesForBuild(), id).toEqual(own.gatesForBuild());
      const answers = wholeSearchesOf(pattern);
      for (const [i, text] of known.entries()) {
        const expected = answers[i]!;
        if (built.search(text, grams) !== expected || built.test(text, grams) !== expected >= 0)
          wrong.push(`${id} /${pattern.source.slice(0, 40)}/: ${text.slice(0, 80)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(prepared.size).toBeGreaterThan(100);
    // The catalogue's two scans (notTheModelCall, notTheProviderAccount), each met and answered from its table.
    expect(scans.size).toBeGreaterThanOrEqual(2);
  });

  it('finds in dist the tables the code computes: every pattern, branch and scan gate as the build wrote it', async () => {
    // The test suite's global setup builds dist as npm run build does (test/setup/build-dist.ts): what a fresh
    // `recourse classify` reads, compared with what it would compute from the sources without it. A stale table
    // or one written or read back wrongly fails here, pattern by pattern.
    const builtModule = new URL('../../../dist/core/classify/prepared-gates.js', import.meta.url).href;
    const built = (await import(builtModule)) as {
      preparedGates: ReadonlyMap<string, PreparedGates>;
      preparedScans: ReadonlyMap<string, PreparedScan>;
      preparedNearGates: ReadonlyMap<string, readonly number[] | null>;
    };
    const { prepared, scans, near } = computedTables();
    expect([...built.preparedGates.keys()].sort()).toEqual([...prepared.keys()].sort());
    for (const [key, gates] of prepared)
      expect(built.preparedGates.get(key), key.slice(0, 80)).toEqual(gates);
    expect([...built.preparedScans.keys()].sort()).toEqual([...scans.keys()].sort());
    for (const [key, gates] of scans) expect(built.preparedScans.get(key), key.slice(0, 80)).toEqual(gates);
    expect(scans.size).toBeGreaterThanOrEqual(2);
    expect(built.preparedNearGates).toEqual(near);
    expect(near.size).toBeGreaterThan(0);
  });

  it("lays out a scan's gates from the prepared table when its flags and source are there", () => {
    const scan = String.raw`^[\s\S]{0,40}?(?:rate limit|quota exceeded)`;
    const pattern = new RegExp(`${scan}|x1`);
    const grams = new GramTable();
    expect(
      new PrunedPattern(pattern, new BranchTable(new Map(), new Map())).search('a quota exceeded', grams),
    ).toBe(0);
    // A prepared gate no text meets for each alternative refuses what the scan matches: the table gave the gates.
    const refusing: PreparedScan = {
      shape: scanShapeOf(scan, '')!,
      alternatives: {
        words: [65_535, 65_535],
        starts: [0, 1],
        covers: [],
        coverStarts: [0, 0, 0],
        firstCover: [65_535, 65_535],
      },
      look: null,
    };
    const table = new BranchTable(new Map(), new Map([[`/${scan}`, refusing]]));
    expect(new PrunedPattern(pattern, table).search('a quota exceeded', new GramTable())).toBe(-1);
  });

  it("takes a near condition's gates from the prepared table when its flags and source are there", () => {
    const near = { anchor: /quota/, word: /daily/, before: 20, after: 20 };
    const grams = new GramTable();
    expect(nearOf(near, new Map()).anchorGate.get()).not.toBeNull();
    expect(grams.allows(nearOf(near, new Map()).anchorGate.get(), 'daily quota')).toBe(true);
    // A prepared gate that no text meets refuses the text: the table, not the pattern, gave it.
    const refusing = nearOf(near, new Map([['g/quota', [65_535]]]));
    expect(grams.allows(refusing.anchorGate.get(), 'daily quota')).toBe(false);
    expect(grams.allows(refusing.wordGate.get(), 'daily quota')).toBe(true);
  });

  it('reads the gates of a pattern from the prepared table when its flags and source are there', () => {
    const pattern = /npm registry|rate limit|quota|b4|b5|b6|b7|b8|tool/;
    const grams = new GramTable();
    expect(new PrunedPattern(pattern, new BranchTable(new Map())).search('a quota', grams)).toBe(2);
    // A prepared gate that no text meets (one trigram slot nobody sets here) refuses what the pattern matches:
    // proof that the table, not the source, gave the gate. The build never writes such a gate.
    const refusing = new Map<string, PreparedGates>([
      [
        `${pattern.flags}/${pattern.source}`,
        {
          branches: null,
          words: [65_535],
          starts: [0],
          covers: [],
          coverStarts: [0, 0],
          firstCover: [65_535],
        },
      ],
    ]);
    expect(new PrunedPattern(pattern, new BranchTable(refusing)).search('a quota', grams)).toBe(-1);
  });

  it('runs a pattern it does not split, or that has captures, whole', () => {
    const grams = new GramTable();
    const captures = new PrunedPattern(/(npm) registry|(\d+) quota|c1|c2|c3|c4|c5|c6|tool/);
    expect(captures.search('over 12 quota', grams)).toBe(5);
    expect(captures.search('a tool', grams)).toBe(2);
    expect(captures.test('nothing', grams)).toBe(false);
    const folded = new PrunedPattern(/npm|registry|quota|b4|b5|b6|b7|b8|tool/i);
    expect(folded.search('The NPM Registry', grams)).toBe(4);
    const short = new PrunedPattern(/npm|registry/);
    expect(short.search('a registry', grams)).toBe(2);
    expect(short.search('nothing', grams)).toBe(-1);
  });
});
