import { describe, expect, it } from 'vitest';
import { corpusFiles, readCorpus, toEnvelope } from '../../helpers/corpus.mjs';
import { loadFixtures } from '../../helpers/fixtures.js';
import { defaultCatalogue, parseEnvelope } from '../../../src/core/index.js';
import { factsOf, forEachToken } from '../../../src/core/classify/facts.js';
import { matchRule } from '../../../src/core/classify/match-rule.js';

/**
 * A rule's keywords are its index key: the rule is only ever tried when one of them is a token of the text.
 * If its pattern matches a text that carries none of them, the rule silently never fires there. This audit
 * runs every pattern over every fixture and corpus text and fails on such a gap.
 */
describe('[CLS-04] keyword audit', () => {
  it('every text pattern that matches a known evidence text has one of its keywords in that text', () => {
    const envelopes = [
      ...loadFixtures().map((f) => f.evidence),
      ...corpusFiles.flatMap((file) => readCorpus(file).map(toEnvelope)),
    ];
    const gaps: string[] = [];
    for (const envelope of envelopes) {
      const parsed = parseEnvelope(envelope);
      if (!parsed.ok) continue;
      const facts = factsOf(parsed.evidence);
      const tokens = new Set<string>();
      forEachToken(facts.text, (t) => tokens.add(t));
      for (const compiled of defaultCatalogue.rules) {
        const { keywords, text, near } = compiled.rule.when;
        // A rule of keywords alone has nothing to audit: its keywords are its whole condition.
        if (keywords === undefined || (text === undefined && near === undefined)) continue;
        // matchRule checks every condition except keywords (the index guarantees those in production).
        if (
          matchRule(compiled, facts, defaultCatalogue.grams) !== null &&
          !keywords.some((k) => tokens.has(k))
        ) {
          gaps.push(`${compiled.rule.id}: ${facts.text.slice(0, 120)}`);
        }
      }
    }
    expect(gaps).toEqual([]);
  });
});
