import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../helpers/fixtures.js';
import { catalogueRules, explainEvidence, parseEnvelope, parseIsoDateTime } from '../../../src/core/index.js';

const fixtures = loadFixtures();
const defaultNow = Date.parse('2026-06-01T12:00:00Z');

describe('[CLS-04][CLS-07][CLS-08] catalogue fixtures replay', () => {
  it.each(fixtures.map((f) => [`${f.file}:${f.line} ${f.id}`, f] as const))('%s', (_name, fixture) => {
    const parsed = parseEnvelope(fixture.evidence);
    if (!parsed.ok)
      throw new Error(`fixture evidence is not a valid envelope: ${JSON.stringify(parsed.issues)}`);
    const now = fixture.now ? parseIsoDateTime(fixture.now)! : defaultNow;
    const { classification, matches } = explainEvidence(parsed.evidence, { now });
    const got = {
      code: classification.code,
      class: classification.class,
      classifier_rule: classification.classifier_rule,
      ...(fixture.expect.reason !== undefined ? { reason: classification.reason } : {}),
      ...(fixture.expect.retry_after !== undefined ? { retry_after: classification.retry_after } : {}),
      ...(fixture.expect.reset_at !== undefined ? { reset_at: classification.reset_at } : {}),
    };
    expect(got).toEqual(fixture.expect);
    const matched = new Set(matches.map((m) => m.rule));
    for (const rule of fixture.negative_for ?? []) {
      expect(matched.has(rule), `negative fixture: ${rule} must not match`).toBe(false);
    }
    for (const rule of fixture.collides_with ?? []) {
      expect(matched.has(rule), `collision: ${rule} must also match (and lose)`).toBe(true);
    }
  });
});

describe('[CLS-04] fixture coverage', () => {
  const ruleIds = new Set(catalogueRules.map((r) => r.id));

  it('names only rules that exist', () => {
    const missing: string[] = [];
    for (const f of fixtures) {
      const named = [f.expect.classifier_rule, ...(f.negative_for ?? []), ...(f.collides_with ?? [])];
      for (const rule of named)
        if (rule !== null && !ruleIds.has(rule)) missing.push(`${f.file}:${f.line} ${rule}`);
    }
    expect(missing).toEqual([]);
  });

  it('gives every rule at least two positive fixtures and one negative fixture', () => {
    const positives = new Map<string, number>();
    const negatives = new Map<string, number>();
    for (const f of fixtures) {
      if (f.expect.classifier_rule)
        positives.set(f.expect.classifier_rule, (positives.get(f.expect.classifier_rule) ?? 0) + 1);
      for (const rule of f.negative_for ?? []) negatives.set(rule, (negatives.get(rule) ?? 0) + 1);
    }
    const lacking = [...ruleIds].filter((id) => (positives.get(id) ?? 0) < 2 || (negatives.get(id) ?? 0) < 1);
    expect(lacking).toEqual([]);
  });

  it('keeps fixture ids unique', () => {
    const seen = new Map<string, string>();
    const duplicates: string[] = [];
    for (const f of fixtures) {
      const where = `${f.file}:${f.line}`;
      if (seen.has(f.id)) duplicates.push(`${f.id} at ${seen.get(f.id)} and ${where}`);
      seen.set(f.id, where);
    }
    expect(duplicates).toEqual([]);
  });
});
