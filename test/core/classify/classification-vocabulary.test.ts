import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../helpers/fixtures.js';
import {
  catalogueRules,
  classificationClasses,
  classificationSchema,
  classify,
  parseIsoDateTime,
  policyClasses,
  type Classification,
} from '../../../src/core/index.js';

const defaultNow = Date.parse('2026-06-01T12:00:00Z');
const fixtures = loadFixtures();
const outputs: Classification[] = fixtures.map((f) =>
  classify(f.evidence, { now: f.now !== undefined ? parseIsoDateTime(f.now)! : defaultNow }),
);
const classes = ['transient', 'hard', 'unclassified'];
const confidences = ['high', 'medium', 'low'];

/** A valid transient classification to vary one field of. */
const base = outputs.find((c) => c.class === 'transient' && c.confidence === 'high')!;

describe('the classification vocabulary', () => {
  it('[DAT-03][CLS-19] class is transient, hard or the internal unclassified state, which no policy holds', () => {
    expect([...classificationClasses]).toEqual(classes);
    expect([...policyClasses]).toEqual(['transient', 'hard']);
  });

  it('[DAT-03][DAT-04] every catalogue fixture classifies into the vocabulary, and uses all of it', () => {
    for (const [i, c] of outputs.entries()) {
      const where = `${fixtures[i]!.file}:${fixtures[i]!.line}`;
      expect(classes, where).toContain(c.class);
      expect(confidences, where).toContain(c.confidence);
      expect(classificationSchema.safeParse(c).success, where).toBe(true);
    }
    expect(new Set(outputs.map((c) => c.class))).toEqual(new Set(classes));
    expect(new Set(outputs.map((c) => c.confidence))).toEqual(new Set(confidences));
  });

  it('[DAT-04] every catalogue rule declares high, medium or low confidence', () => {
    for (const rule of catalogueRules) expect(confidences, rule.id).toContain(rule.confidence);
  });

  it('[DAT-03] the schema accepts the three classes and nothing else', () => {
    expect(classificationSchema.safeParse(base).success).toBe(true);
    expect(
      classificationSchema.safeParse({ ...base, code: 'quota_limited', class: 'hard', scope: 'account' })
        .success,
    ).toBe(true);
    expect(
      classificationSchema.safeParse({
        ...base,
        code: null,
        class: 'unclassified',
        reason: 'unknown',
        retry_after: null,
        reset_at: null,
      }).success,
    ).toBe(true);
    for (const bad of ['quota', 'Transient', 'unknown', 'retryable', '', null])
      expect(classificationSchema.safeParse({ ...base, class: bad }).success, String(bad)).toBe(false);
  });

  it('[DAT-04] the schema accepts high, medium and low confidence and nothing else', () => {
    for (const confidence of confidences)
      expect(classificationSchema.safeParse({ ...base, confidence }).success, confidence).toBe(true);
    for (const bad of ['certain', 'HIGH', 'none', 0.9, '', null])
      expect(classificationSchema.safeParse({ ...base, confidence: bad }).success, String(bad)).toBe(false);
  });
});
