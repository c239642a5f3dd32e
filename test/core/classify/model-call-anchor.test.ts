import { describe, expect, it } from 'vitest';
import { classify, catalogueRules } from '../../../src/core/index.js';
import { modelCallAnchor } from '../../../src/core/catalogue/model-call-anchor.js';

const now = Date.parse('2026-06-01T12:00:00Z');
const stderr = (text: string, source: Record<string, string> = {}) =>
  classify({ kind: 'stderr', ...source, text }, { now });

describe('the model-call anchor: broad transient rules and evidence that names no source', () => {
  const reset =
    'Error: read ECONNRESET\n    at TLSWrap.onStreamRead (node:internal/stream_base_commons:217:20)';

  it('[CLS-18][CLS-20] a bare network error from an unnamed source stays unclassified, and is transient from an agent', () => {
    expect(stderr(reset)).toMatchObject({ class: 'unclassified', code: null });
    expect(stderr(reset, { provider: 'generic' })).toMatchObject({ class: 'unclassified', code: null });
    // A reset that names no stream (its stack frame's `onStreamRead` is no word of its own) is the network's.
    expect(stderr(reset, { agent: 'claude-code' })).toMatchObject({
      class: 'transient',
      code: 'network_unavailable',
    });
  });

  it('[CLS-10] the same error in words that name the model call still answers', () => {
    expect(stderr(`API request to the model failed: ${reset}`)).toMatchObject({ class: 'transient' });
    expect(stderr(`Stream error from upstream: ${reset}`)).toMatchObject({ class: 'transient' });
  });

  it('[CLS-10] a bare status answers when a header or the model says it was a model call', () => {
    const bare = { kind: 'http', status: 503, headers: {}, body: '' } as const;
    expect(classify(bare, { now })).toMatchObject({ class: 'unclassified' });
    expect(classify({ ...bare, headers: { 'anthropic-organization-id': 'x' } }, { now })).toMatchObject({
      class: 'transient',
      code: 'provider_unavailable',
    });
    expect(classify({ ...bare, model: 'some-model' }, { now })).toMatchObject({ class: 'transient' });
    expect(classify({ ...bare, provider: 'openai' }, { now })).toMatchObject({ class: 'transient' });
  });

  it('[CLS-07] the CUR-26 decision list keeps its words whatever the source', () => {
    expect(stderr('Error: peer disconnected')).toMatchObject({
      class: 'transient',
      code: 'agent_transport_lost',
      classifier_rule: 'transport.stream_lost.v1',
    });
  });

  it('[CLS-02] is part of every anchored rule, so the catalogue fingerprint covers it', () => {
    const anchored = catalogueRules.filter((rule) => rule.when.anchorWhenUnnamed !== undefined);
    expect(anchored.length).toBeGreaterThan(20);
    for (const rule of anchored) {
      expect(rule.when.anchorWhenUnnamed, rule.id).toBe(modelCallAnchor);
      expect(rule.tier === 'pattern' || rule.generic === true, rule.id).toBe(true);
    }
    expect(anchored.some((rule) => rule.id === 'transport.stream_lost.v1')).toBe(false);
    // Hard rules are not anchored: an unnamed `Invalid API key` keeps its answer.
    expect(anchored.every((rule) => rule.code !== 'auth_required')).toBe(true);
  });
});
