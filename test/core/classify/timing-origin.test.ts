import { describe, expect, it } from 'vitest';
import {
  classify,
  classifyEvidence,
  classifyEvidenceDetailed,
  explainEvidence,
  formatIsoUtc,
  futureObservationToleranceMs,
  parseEnvelope,
  type Evidence,
} from '../../../src/core/index.js';

const now = Date.parse('2026-06-01T12:00:00Z');
const minute = 60_000;
const day = 86_400_000;
const iso = (ms: number) => formatIsoUtc(ms);
/** The classification fields DAT-01 lists: the timing origin is never one of them. */
const dat01 = [
  'catalogue_version',
  'class',
  'classifier_rule',
  'code',
  'confidence',
  'model_id',
  'occurred_at',
  'phase',
  'provider_id',
  'reset_at',
  'retry_after',
  'safe_excerpt',
  'scope',
];

/** A 529 overload with a `Retry-After`, observed at `observedAtMs` (or with no `observed_at`). */
function overloaded(observedAtMs: number | null, headers: Record<string, string> = { 'retry-after': '20' }) {
  return {
    kind: 'http',
    status: 529,
    provider: 'anthropic',
    ...(observedAtMs === null ? {} : { observed_at: iso(observedAtMs) }),
    headers,
    body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  };
}

function evidenceOf(envelope: unknown): Evidence {
  const parsed = parseEnvelope(envelope);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.evidence;
}

describe('the timing origin of relative hints', () => {
  it('[CLS-23] ignores an observed_at five days ahead: Retry-After 20 counts from now, and says so', () => {
    const observed = now + 5 * day;
    const evidence = evidenceOf(overloaded(observed));
    const { classification, timingOrigin } = classifyEvidenceDetailed(evidence, { now });
    expect(classification).toMatchObject({
      code: 'provider_overloaded',
      class: 'transient',
      retry_after: iso(now + 20_000),
      occurred_at: iso(now),
    });
    expect(timingOrigin).toEqual({ observedAtMs: observed, originMs: now, corrected: true });
    // The same correction from every entry point, with `now` as a number or a Date.
    expect(classifyEvidence(evidence, { now })).toEqual(classification);
    expect(classify(overloaded(observed), { now: new Date(now) })).toEqual(classification);
    const explained = explainEvidence(evidence, { now });
    expect(explained.classification).toEqual(classification);
    expect(explained.timingOrigin).toEqual(timingOrigin);
  });

  it('[CLS-23][DAT-01] records the correction beside the classification, never as a new field of it', () => {
    const { classification } = classifyEvidenceDetailed(evidenceOf(overloaded(now + 5 * day)), { now });
    expect(Object.keys(classification).sort()).toEqual(dat01);
  });

  it('[CLS-23] trusts an observed_at up to 5 minutes ahead (small clock skew)', () => {
    expect(futureObservationToleranceMs).toBe(5 * minute);
    for (const ahead of [4 * minute, futureObservationToleranceMs]) {
      const observed = now + ahead;
      const { classification, timingOrigin } = classifyEvidenceDetailed(evidenceOf(overloaded(observed)), {
        now,
      });
      expect(classification).toMatchObject({
        retry_after: iso(observed + 20_000),
        occurred_at: iso(observed),
      });
      expect(timingOrigin).toEqual({ observedAtMs: observed, originMs: observed, corrected: false });
    }
    const justBeyond = now + futureObservationToleranceMs + 1;
    expect(classifyEvidenceDetailed(evidenceOf(overloaded(justBeyond)), { now })).toMatchObject({
      classification: { retry_after: iso(now + 20_000) },
      timingOrigin: { originMs: now, corrected: true },
    });
  });

  it('[CLS-23] keeps a past observed_at as the origin', () => {
    const observed = now - 3 * minute;
    const { classification, timingOrigin } = classifyEvidenceDetailed(evidenceOf(overloaded(observed)), {
      now,
    });
    expect(classification).toMatchObject({ retry_after: iso(observed + 20_000), occurred_at: iso(observed) });
    expect(timingOrigin).toEqual({ observedAtMs: observed, originMs: observed, corrected: false });
  });

  it('[CLS-23] counts from now when there is no observed_at, without calling that a correction', () => {
    const { classification, timingOrigin } = classifyEvidenceDetailed(evidenceOf(overloaded(null)), { now });
    expect(classification).toMatchObject({ retry_after: iso(now + 20_000), occurred_at: iso(now) });
    expect(timingOrigin).toEqual({ observedAtMs: null, originMs: now, corrected: false });
  });

  it('[CLS-23] does not shift an absolute epoch reset: only relative hints move to now', () => {
    // The provider's own clock says the limit resets 45 minutes from now; the client stamped its evidence five
    // days ahead. The relative Retry-After moves to now; the absolute instant stays exactly what it said.
    const resetAtMs = now + 45 * minute;
    const envelope = overloaded(now + 5 * day, {
      'retry-after': '20',
      'anthropic-ratelimit-unified-reset': String(resetAtMs / 1000),
    });
    const { classification, timingOrigin } = classifyEvidenceDetailed(evidenceOf(envelope), { now });
    expect(classification).toMatchObject({ retry_after: iso(now + 20_000), reset_at: iso(resetAtMs) });
    expect(timingOrigin.corrected).toBe(true);
  });

  it('[CLS-23] does not shift an absolute HTTP-date Retry-After', () => {
    const atMs = now + 90_000;
    const httpDate = new Date(atMs).toUTCString();
    const envelope = overloaded(now + 5 * day, { 'retry-after': httpDate });
    const { classification, timingOrigin } = classifyEvidenceDetailed(evidenceOf(envelope), { now });
    expect(classification.retry_after).toBe(iso(atMs));
    expect(timingOrigin.corrected).toBe(true);
  });
});
