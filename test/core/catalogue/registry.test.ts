import { describe, expect, it } from 'vitest';
import {
  catalogueFingerprint,
  catalogueRules,
  catalogueVersion,
  classOfCode,
  defaultCatalogue,
  explainEvidence,
  fingerprintRules,
  hardCodes,
  isNonProviderCode,
  isProviderCode,
  nonProviderCodes,
  parseEnvelope,
  policyClasses,
  providerCodeInfo,
  transientCodes,
} from '../../../src/core/index.js';

describe('[CLS-09][CLS-14] the code registry', () => {
  it('has exactly the two configurable classes', () => {
    expect([...policyClasses]).toEqual(['transient', 'hard']);
  });

  it("[CLS-10][CLS-11] has exactly the seed's 12 provider codes, each in exactly one class", () => {
    expect([...transientCodes].sort()).toEqual([
      'agent_transport_lost',
      'model_capacity',
      'network_unavailable',
      'provider_overloaded',
      'provider_unavailable',
      'rate_limited',
    ]);
    expect([...hardCodes].sort()).toEqual([
      'auth_required',
      'missing_credentials',
      'model_unavailable',
      'provider_not_configured',
      'quota_limited',
      'subscription_required',
    ]);
    const all = [...transientCodes, ...hardCodes];
    expect(new Set(all).size).toBe(12);
    expect(Object.keys(providerCodeInfo).sort()).toEqual([...all].sort());
    for (const code of transientCodes) expect(providerCodeInfo[code].class, code).toBe('transient');
    for (const code of hardCodes) expect(providerCodeInfo[code].class, code).toBe('hard');
  });

  it('[CLS-16][CLS-19] gives non-provider codes no class, and keeps the vocabularies apart', () => {
    for (const code of nonProviderCodes) {
      expect(classOfCode(code), code).toBeNull();
      expect(isProviderCode(code)).toBe(false);
    }
    for (const code of [...transientCodes, ...hardCodes]) expect(isNonProviderCode(code)).toBe(false);
  });
});

describe('[CLS-03][CLS-04] the rule catalogue', () => {
  it('gives every rule a stable, well-formed, unique id', () => {
    const ids = catalogueRules.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9-]+\.[a-z0-9_]+\.v\d+$/);
  });

  it('maps every rule to a known code, and [CLS-16] non-provider rules can never carry a class', () => {
    for (const rule of catalogueRules) {
      expect(isProviderCode(rule.code) || isNonProviderCode(rule.code), rule.id).toBe(true);
    }
    for (const compiled of defaultCatalogue.rules) {
      if (isNonProviderCode(compiled.rule.code)) expect(compiled.outcomeClass, compiled.rule.id).toBe('none');
    }
  });

  it('uses stateless, bounded regular expressions and lower-case keywords', () => {
    for (const rule of catalogueRules) {
      for (const re of [rule.when.text, rule.when.unless, rule.when.anchorWhenUnnamed]) {
        if (re === undefined) continue;
        expect(re.flags.includes('g') || re.flags.includes('y'), `${rule.id} must not use g or y flags`).toBe(
          false,
        );
        expect(re.flags.includes('i'), `${rule.id} reads lower-cased text; no i flag needed`).toBe(false);
        // No nested unbounded repetition such as (a+)+ or (.*)*.
        expect(/\((?:[^()]|\\\()*[+*]\)[+*{]/.test(re.source), `${rule.id} has nested repetition`).toBe(
          false,
        );
      }
      // A word token, or a CJK bigram (compileCatalogue refuses any other CJK keyword).
      for (const k of rule.when.keywords ?? [])
        expect(k, rule.id).toMatch(
          /^(?:[a-z0-9_]{1,48}|[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]{2})$/u,
        );
      if (
        rule.when.text !== undefined &&
        rule.when.keywords === undefined &&
        rule.when.fields === undefined
      ) {
        expect.fail(`${rule.id}: a text rule needs keywords (its index key and literal pre-filter)`);
      }
    }
  });

  it('[CUR-22] keeps cursor.retriable_stream_reset.v1 before generic transport loss', () => {
    const rank = (id: string) => defaultCatalogue.rules.find((r) => r.rule.id === id)!.rank;
    expect(rank('cursor.retriable_stream_reset.v1')).toBeLessThan(rank('transport.stream_lost.v1'));
  });

  it('[CLS-02][DAT-02] pins the rule set to its catalogue version', () => {
    expect(
      fingerprintRules(catalogueRules),
      `the rules changed: bump catalogueVersion (now ${catalogueVersion}) and set catalogueFingerprint in src/core/catalogue/version.ts`,
    ).toBe(catalogueFingerprint);
  });
});

describe('[CUR-26] the generic transport-loss rule is the decision list, not widened to Cursor', () => {
  const matchedBy = (message: string) => {
    const parsed = parseEnvelope({ kind: 'acp_error', agent: 'cursor', error: { code: -32603, message } });
    if (!parsed.ok) throw new Error('invalid envelope');
    return explainEvidence(parsed.evidence, { now: 0 }).matches.map((m) => m.rule);
  };

  it("matches none of Cursor's diagnostics on its own, nor does the wider connection-loss rule", () => {
    for (const message of [
      'Error: RetriableError: HTTP/2 stream closed with error code CANCEL (0x8)',
      'Error: RetriableError: [canceled] HTTP/2 stream closed with error code CANCEL (0x8)',
      'Error: RetriableError: [unavailable] PING timed out',
      'Error: RetriableError: Connection stalled',
    ]) {
      const rules = matchedBy(message);
      expect(rules, message).toContain('cursor.retriable_stream_reset.v1');
      expect(rules, message).not.toContain('transport.stream_lost.v1');
      expect(rules, message).not.toContain('transport.connection_lost.v1');
    }
  });

  it('matches each phrase of the decision list, and the cancellation vetoes stop it', () => {
    for (const text of [
      'peer disconnected',
      'agent error: connection closed',
      'stream disconnected before completion',
      'Error: Premature close',
      'socket hang up while streaming the response',
      'RST_STREAM received',
      'GOAWAY received',
      'TypeError: terminated',
    ]) {
      expect(matchedBy(text), text).toContain('transport.stream_lost.v1');
    }
    expect(matchedBy('peer disconnected: context canceled')).not.toContain('transport.stream_lost.v1');
    expect(matchedBy('connection closed: cancel escalated')).not.toContain('transport.stream_lost.v1');
  });
});
