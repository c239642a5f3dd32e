import { describe, expect, it } from 'vitest';
import {
  admitsCandidate,
  circuitDefaults,
  circuitKey,
  circuitKeysOf,
  circuitsAfterFailure,
  circuitsAfterSuccess,
  gateDispatch,
  openCircuit,
  settleLapsedLease,
  type Circuit,
} from '../../../src/core/index.js';
import { evidence, t0 } from '../route/route-fixtures.js';

const d = { profileId: 'claude-main', provider: 'anthropic', model: 'sonnet' };
const open = (by = 'r1', hint: number | null = null): Circuit =>
  openCircuit(null, 'provider:anthropic', 'provider', by, t0, hint);

describe('shared resource circuits', () => {
  it('[CIR-01] are keyed by the failure scope over non-secret descriptors; request-scoped failures share nothing', () => {
    expect(circuitKey('provider', d)).toBe('provider:anthropic');
    expect(circuitKey('model', d)).toBe('model:anthropic/sonnet');
    expect(circuitKey('account', d)).toBe('account:anthropic/claude-main');
    expect(circuitKey('profile', d)).toBe('profile:claude-main');
    expect(circuitKey('request', d)).toBeNull();
    expect(circuitKey(null, d)).toBeNull();
    expect(circuitKey('provider', { ...d, provider: null })).toBeNull();
    expect(circuitKeysOf(d)).toEqual([
      'provider:anthropic',
      'model:anthropic/sonnet',
      'account:anthropic/claude-main',
      'profile:claude-main',
    ]);
  });

  it('[CIR-01] a classified failure opens its circuit until max(now + 60 s, the trusted reset); an unclassified one opens none', () => {
    const [c] = circuitsAfterFailure(new Map(), evidence.overloaded, d, 'r1', t0);
    expect(c).toMatchObject({
      key: 'provider:anthropic',
      state: 'open',
      openUntilMs: t0 + circuitDefaults.minimumOpenMs,
      openedBy: 'r1',
    });
    const [quota] = circuitsAfterFailure(new Map(), evidence.quotaResetIn(600), d, 'r1', t0);
    expect(quota).toMatchObject({ key: 'account:anthropic/claude-main', openUntilMs: t0 + 600_000 });
    expect(circuitsAfterFailure(new Map(), evidence.unknown, d, 'r1', t0)).toEqual([]);
  });

  it('[CIR-02] the route whose failure opened the circuit keeps its own policy cadence; others are held until it expires', () => {
    const c = open('r1');
    expect(gateDispatch(c, 'r1', t0 + 5000).verdict).toBe('probe');
    expect(gateDispatch(c, 'r2', t0 + 5000)).toEqual({
      verdict: 'hold',
      untilMs: t0 + 60_000,
      openUntilMs: t0 + 60_000,
    });
    expect(admitsCandidate(c, t0 + 5000)).toBe(false);
  });

  it('[CIR-03][CIR-04] after expiry exactly one route takes the probe lease; the rest hold until it ends', () => {
    const c = open('gone');
    const after = t0 + 61_000;
    const first = gateDispatch(c, 'r2', after);
    if (first.verdict !== 'probe') throw new Error('expected a probe');
    expect(first.circuit).toMatchObject({
      state: 'half_open',
      probeOwner: 'r2',
      probeLeaseUntilMs: after + circuitDefaults.probeLeaseMs,
    });
    // Only the lease holds the others: the circuit itself expired.
    expect(gateDispatch(first.circuit, 'r3', after)).toEqual({
      verdict: 'hold',
      untilMs: after + circuitDefaults.probeLeaseMs,
      openUntilMs: null,
    });
    expect(admitsCandidate(first.circuit, after)).toBe(false);
    // A lease that lapses without an answer after the circuit expired lets the next route probe.
    expect(gateDispatch(first.circuit, 'r3', after + circuitDefaults.probeLeaseMs).verdict).toBe('probe');
  });

  it('[CIR-01][CIR-03] a lease that lapses before open_until admits no probe until then; settling shows it open again', () => {
    const c = open('r1', t0 + 600_000);
    const opener = gateDispatch(c, 'r1', t0 + 5000);
    if (opener.verdict !== 'probe') throw new Error('the opener keeps its cadence');
    expect(opener.circuit).toMatchObject({ state: 'half_open', openUntilMs: t0 + 600_000 });
    const lapsed = t0 + 5000 + circuitDefaults.probeLeaseMs;
    expect(gateDispatch(opener.circuit, 'r2', lapsed)).toEqual({
      verdict: 'hold',
      untilMs: t0 + 600_000,
      openUntilMs: t0 + 600_000,
    });
    expect(admitsCandidate(opener.circuit, lapsed)).toBe(false);
    expect(settleLapsedLease(opener.circuit, lapsed)).toMatchObject({
      state: 'open',
      probeOwner: null,
      openUntilMs: t0 + 600_000,
      version: opener.circuit.version + 1,
    });
    expect(settleLapsedLease(opener.circuit, lapsed - 1)).toBe(opener.circuit);
    expect(gateDispatch(opener.circuit, 'r2', t0 + 600_000).verdict).toBe('probe');
  });

  it('[CIR-03] the probe succeeding closes the circuit; failing reopens it for another minute', () => {
    const probe = gateDispatch(open('gone'), 'r2', t0 + 61_000);
    if (probe.verdict !== 'probe') throw new Error('expected a probe');
    const circuits = new Map([[probe.circuit.key, probe.circuit]]);
    expect(circuitsAfterSuccess(circuits, 'r2')).toMatchObject([{ state: 'closed', probeOwner: null }]);
    expect(circuitsAfterSuccess(circuits, 'someone-else')).toEqual([]);
    const [reopened] = circuitsAfterFailure(circuits, evidence.overloaded, d, 'r2', t0 + 70_000);
    expect(reopened).toMatchObject({
      state: 'open',
      openUntilMs: t0 + 130_000,
      openedBy: 'r2',
      probeOwner: null,
    });
    expect(gateDispatch(reopened!, 'r3', t0 + 80_000).verdict).toBe('hold');
  });

  it('[CIR-04] another failure while open extends the circuit but keeps its opener and any live probe', () => {
    const c = open('r1');
    const extended = openCircuit(c, c.key, 'provider', 'r2', t0 + 30_000, t0 + 200_000);
    expect(extended).toMatchObject({ openedBy: 'r1', openUntilMs: t0 + 200_000, version: c.version + 1 });
  });
});
