import { describe, expect, it } from 'vitest';
import { classify, defaultCatalogue } from '../../../src/core/index.js';

const now = Date.parse('2026-12-07T12:00:00Z');
const toolSourceRule = 'local.tool_platform_source.v1';

describe('[CLS-04] the rule index', () => {
  it('indexes a rule that reads only its sources by those sources, not as a candidate for every evidence', () => {
    const index = defaultCatalogue.rules.findIndex((compiled) => compiled.rule.id === toolSourceRule);
    expect(index).toBeGreaterThanOrEqual(0);
    // Evaluated for every evidence, ten such rules in a catalogue ten times larger cost a tenth more per call.
    expect(defaultCatalogue.always).not.toContain(index);
    expect(defaultCatalogue.byKey.get('source:brave-search')).toContain(index);
  });

  it('still answers for its sources, and only for them', () => {
    const body =
      '{"error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The subscription token is invalid"}}';
    const fromTool = classify(
      { kind: 'http', status: 401, headers: {}, body, provider: 'brave-search' },
      { now },
    );
    expect(fromTool).toMatchObject({ class: 'unclassified', classifier_rule: toolSourceRule });
    const fromProvider = classify(
      { kind: 'http', status: 401, headers: {}, body, provider: 'some-provider' },
      { now },
    );
    expect(fromProvider.classifier_rule).not.toBe(toolSourceRule);
  });
});
