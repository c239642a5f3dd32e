import { describe, expect, it } from 'vitest';
import {
  classificationSchema,
  classify,
  classifyEvidence,
  compileCatalogue,
  parseEnvelope,
  type Classification,
  type Rule,
} from '../../../src/core/index.js';

const now = Date.parse('2026-06-01T12:00:00Z');
const valid = (c: Classification) => {
  const r = classificationSchema.safeParse(c);
  if (!r.success) throw new Error(JSON.stringify(r.error.issues));
  return c;
};

describe('the classifier', () => {
  it('[CLS-01][DAT-01][DAT-02][DAT-05][DAT-06][DAT-07] returns the full normalized classification', () => {
    const c = valid(
      classify(
        {
          kind: 'http',
          status: 529,
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
          phase: 'prompt',
          observed_at: '2026-06-01T12:00:00Z',
          body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        },
        { now },
      ),
    );
    expect(c).toEqual({
      code: 'provider_overloaded',
      class: 'transient',
      catalogue_version: c.catalogue_version,
      confidence: 'high',
      scope: 'provider',
      classifier_rule: 'anthropic.overloaded_error.v1',
      provider_id: 'anthropic',
      model_id: 'claude-sonnet-4-5',
      phase: 'prompt',
      occurred_at: '2026-06-01T12:00:00Z',
      retry_after: null,
      reset_at: null,
      safe_excerpt: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    });
  });

  it('[CLS-18][SCN-06][CLS-21] unknown evidence is unclassified and keeps only a bounded sanitized excerpt', () => {
    const c = valid(
      classify(
        { kind: 'stderr', text: `weird gibberish sk-ant-api03-AbCdEfGhIjKlMnOp ${'z'.repeat(3000)}` },
        { now },
      ),
    );
    expect(c).toMatchObject({ code: null, class: 'unclassified', reason: 'unknown', classifier_rule: null });
    expect(c.safe_excerpt).not.toContain('AbCdEfGhIjKl');
    expect(Buffer.byteLength(c.safe_excerpt)).toBeLessThanOrEqual(512);
  });

  it('[CLS-16][CLS-17] a recognized non-provider error is unclassified not_provider and may name its code', () => {
    const c = valid(
      classify({ kind: 'stderr', text: "This model's maximum context length is 128000 tokens." }, { now }),
    );
    expect(c).toMatchObject({
      class: 'unclassified',
      reason: 'not_provider',
      code: 'context_length_exceeded',
    });
  });

  it('prose that merely quotes an error matches nothing', () => {
    for (const text of [
      'the task mentioned status 500 Internal server error',
      'got status 529 from upstream',
      'the disk is overloaded with files',
    ]) {
      expect(classify({ kind: 'stderr', text }, { now }), text).toMatchObject({
        class: 'unclassified',
        reason: 'unknown',
      });
    }
  });

  it('assistant prose in an ACP update is never an error, but a complete Cursor diagnostic is', () => {
    const update = (text: string) => ({
      kind: 'acp_update',
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
    });
    expect(classify(update('API Error: 529 Overloaded, as the docs say'), { now })).toMatchObject({
      reason: 'unknown',
    });
    expect(classify(update('Error: RetriableError: Connection stalled'), { now })).toMatchObject({
      code: 'agent_transport_lost',
    });
  });

  it('[EVD-03] evidence from another invocation or prompt generation is stale', () => {
    const base = {
      kind: 'stderr',
      text: 'API Error: 529 Overloaded',
      invocation_id: 'inv-2',
      prompt_generation: 3,
    };
    const current = { invocationId: 'inv-2', promptGeneration: 3 };
    expect(classify(base, { now, current })).toMatchObject({ class: 'transient' });
    expect(classify({ ...base, invocation_id: 'inv-1' }, { now, current })).toMatchObject({
      class: 'unclassified',
      reason: 'stale',
    });
    expect(classify({ ...base, prompt_generation: 2 }, { now, current })).toMatchObject({ reason: 'stale' });
    const { invocation_id: _drop, ...uncorrelated } = base;
    expect(valid(classify(uncorrelated, { now, current }))).toMatchObject({ reason: 'stale' });
  });

  it('[CLS-18] a low-confidence winner is unclassified low_confidence', () => {
    const c = valid(classify({ kind: 'http', status: 403, body: '<html>Forbidden</html>' }, { now }));
    expect(c).toMatchObject({
      class: 'unclassified',
      reason: 'low_confidence',
      code: null,
      classifier_rule: 'http.status_403.v1',
    });
  });

  it('never throws, even for input that is not an envelope', () => {
    for (const bad of [null, 42, 'x', [], { kind: 'http' }, { kind: 'stderr', text: 5 }]) {
      expect(valid(classify(bad, { now }))).toMatchObject({ class: 'unclassified', reason: 'unknown' });
    }
    // A bad clock is the caller's mistake, not bad evidence: test/core/classify/robustness.test.ts refuses it.
  });

  it('[CLS-02] is deterministic', () => {
    const e = {
      kind: 'stderr',
      text: 'Rate limit reached. Please try again in 20s.',
      observed_at: '2026-06-01T12:00:00Z',
    };
    expect(classify(e, { now })).toEqual(classify(structuredClone(e), { now: now + 99_999 }));
  });

  it('[DAT-06] drops provider and model ids that are not safe identifiers', () => {
    const c = classify(
      { kind: 'stderr', text: 'x', provider: 'sk-ant-api03-AbCdEfGhIjKlMnOpQr', model: 'a b c' },
      { now },
    );
    expect(c.provider_id).toBeNull();
    expect(c.model_id).toBeNull();
  });

  it('[CLS-12] keeps the semantic code next to the class; [CLS-10] a stated wait of an hour or more makes a rate limit a quota', () => {
    expect(
      classify({ kind: 'stderr', text: 'Rate limit exceeded. Try again in 59 minutes.' }, { now }),
    ).toMatchObject({
      code: 'rate_limited',
      class: 'transient',
    });
    expect(
      classify({ kind: 'stderr', text: 'Rate limit exceeded. Try again in 60 minutes.' }, { now }),
    ).toMatchObject({
      code: 'quota_limited',
      class: 'hard',
    });
  });
});

describe('[CLS-06][CLS-07] precedence and collisions (synthetic catalogue)', () => {
  const rule = (id: string, over: Partial<Rule>): Rule => ({
    id,
    description: id,
    tier: 'signature',
    code: 'rate_limited',
    confidence: 'high',
    when: { keywords: ['boom'], text: /boom/ },
    ...over,
  });
  const evidence = (() => {
    const p = parseEnvelope({ kind: 'http', status: 429, body: 'boom' });
    if (!p.ok) throw new Error('bad');
    return p.evidence;
  })();
  const run = (rules: Rule[]) => classifyEvidence(evidence, { now }, compileCatalogue('test', rules));

  it('structured fields outrank exact signatures, which outrank broad patterns', () => {
    expect(
      run([
        rule('t.pattern.v1', { tier: 'pattern', code: 'provider_overloaded' }),
        rule('t.signature.v1', { tier: 'signature', code: 'model_capacity' }),
        rule('t.structured.v1', { tier: 'structured', code: 'provider_unavailable' }),
      ]).classifier_rule,
    ).toBe('t.structured.v1');
    expect(
      run([rule('t.pattern.v1', { tier: 'pattern', code: 'auth_required' }), rule('t.signature.v1', {})])
        .classifier_rule,
    ).toBe('t.signature.v1');
  });

  it('a specific message beats a generic status rule, whatever the tier', () => {
    expect(
      run([
        rule('t.status.v1', {
          tier: 'structured',
          generic: true,
          code: 'rate_limited',
          when: { status: [429] },
        }),
        rule('t.message.v1', { tier: 'pattern', code: 'quota_limited' }),
      ]).classifier_rule,
    ).toBe('t.message.v1');
  });

  it('declared priority decides within a tier', () => {
    expect(
      run([
        rule('t.low.v1', { code: 'rate_limited' }),
        rule('t.high.v1', { code: 'quota_limited', priority: 5 }),
      ]).classifier_rule,
    ).toBe('t.high.v1');
  });

  it('[CLS-18] same tier, different classes, no precedence: a conflict', () => {
    const c = valid(
      run([rule('t.a.v1', { code: 'rate_limited' }), rule('t.b.v1', { code: 'quota_limited' })]),
    );
    expect(c).toMatchObject({ class: 'unclassified', reason: 'conflict', code: null });
    expect(c.conflicting_rules).toEqual(['t.a.v1', 't.b.v1']);
  });

  it('same tier, same class: the first declared rule wins, no conflict', () => {
    expect(
      run([rule('t.a.v1', { code: 'rate_limited' }), rule('t.b.v1', { code: 'provider_overloaded' })])
        .classifier_rule,
    ).toBe('t.a.v1');
  });

  it('[CLS-15] a code without a class assignment is unclassified at runtime', () => {
    const c = valid(run([rule('t.x.v1', { code: 'made_up_code' as Rule['code'] })]));
    expect(c).toMatchObject({ class: 'unclassified', reason: 'unknown', code: null });
  });
});
