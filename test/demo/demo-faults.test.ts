import { describe, expect, it } from 'vitest';
import {
  classify,
  formatIsoUtc,
  parseEnvelope,
  validateDynamicProfile,
  type Classification,
} from '../../src/core/index.js';
import {
  demoFaultNames,
  demoFaults,
  demoRetryAfterSeconds,
  type DemoFaultName,
} from '../../src/demo/demo-faults.js';
import { demoProfiles } from '../../src/demo/demo-profiles.js';

const now = Date.parse('2026-06-01T12:00:00Z');

/** What each scripted fault is meant to show: the code and class the real classifier must give it. */
const intended: Record<DemoFaultName, Pick<Classification, 'code' | 'class'>> = {
  overload: { code: 'provider_overloaded', class: 'transient' },
  throttled: { code: 'rate_limited', class: 'transient' },
  quota: { code: 'quota_limited', class: 'hard' },
  login_expired: { code: 'auth_required', class: 'hard' },
  stream_cut: { code: 'agent_transport_lost', class: 'transient' },
  // Classified like any overload: the progress (a tool ran) is what stops it, at the safety gate.
  after_tool: { code: 'provider_overloaded', class: 'transient' },
  unknown: { code: null, class: 'unclassified' },
};

describe("the demo fleet's scripted faults", () => {
  it.each(demoFaultNames)('[CLS-01] %s is valid evidence the catalogue classifies as intended', (name) => {
    const fault = demoFaults[name];
    expect(parseEnvelope(fault.evidence)).toMatchObject({ ok: true });
    const c = classify(fault.evidence, { now });
    expect({ code: c.code, class: c.class }).toEqual(intended[name]);
    // Acted on: a provider code at a confidence the engine trusts; the unknown one is unknown, not low confidence.
    if (c.class === 'unclassified') expect(c.reason).toBe('unknown');
    else expect(c.confidence).not.toBe('low');
  });

  it('[CLS-01] the rate limit carries its Retry-After as a validated hint a few seconds ahead', () => {
    const c = classify(demoFaults.throttled.evidence, { now });
    expect(c.retry_after).toBe(formatIsoUtc(now + demoRetryAfterSeconds * 1000));
  });

  it('[SCN-07] only the failure after tool activity reports progress; every other fault is at the safe point', () => {
    for (const name of demoFaultNames) {
      const { progress } = demoFaults[name];
      const didSomething = progress.tool_activity === true || progress.assistant_output === true;
      expect(didSomething, name).toBe(name === 'after_tool');
    }
  });

  it('the three demo profiles validate, with 2 to 3 candidates each', () => {
    expect(demoProfiles).toHaveLength(3);
    for (const profile of demoProfiles) {
      const checked = validateDynamicProfile(profile);
      expect(checked.ok ? [] : checked.issues, profile.id).toEqual([]);
      expect(profile.candidates.length).toBeGreaterThanOrEqual(2);
      expect(profile.candidates.length).toBeLessThanOrEqual(3);
    }
  });
});
