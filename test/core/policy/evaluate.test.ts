import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendReplayEvent,
  assessReplaySafety,
  classify,
  evaluate,
  evaluateRules,
  freshCycle,
  interactiveRecoveryRules,
  openReplayEvidence,
  policyLimits,
  snapshotReplayEvidence,
  type CandidateCycle,
  type ClassPolicy,
  type Classification,
  type PolicyDecision,
  type PolicyDocument,
  type PolicyFailure,
  type SafetyVerdict,
} from '../../../src/core/index.js';

const now = Date.parse('2026-06-01T12:00:00Z');
const at = (seconds: number) => new Date(now + seconds * 1000).toISOString().replace('.000Z', 'Z');
const safe: SafetyVerdict = { safe: true, basis: 'pre_result' };

const cls = (envelope: object): Classification => classify({ observed_at: at(0), ...envelope }, { now });
const capacity = cls({
  kind: 'stderr',
  agent: 'codex',
  text: 'Selected model is at capacity. Please try a different model.',
});
const overloaded = cls({
  kind: 'http',
  status: 529,
  provider: 'anthropic',
  body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
});
const quotaResetIn = (seconds: number) =>
  cls({
    kind: 'http',
    status: 429,
    provider: 'anthropic',
    headers: { 'anthropic-ratelimit-unified-reset': String(now / 1000 + seconds) },
    body: '{"type":"error","error":{"type":"rate_limit_error","message":"5-hour usage limit reached"}}',
  });
const credits = cls({ kind: 'stderr', agent: 'claude-code', text: 'Credit balance is too low' });
const unknown = cls({ kind: 'stderr', text: 'weird gibberish' });
const stale = classify(
  { kind: 'stderr', text: 'API Error: 529 Overloaded', invocation_id: 'old', prompt_generation: 1 },
  { now, current: { invocationId: 'new', promptGeneration: 2 } },
);

const off: ClassPolicy = {
  retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
  wait_for_reset: { enabled: false, max_wait_seconds: 0 },
  on_exhausted: 'skip',
};
const retries = (n: number, initial: number, outcome: 'skip' | 'stop' = 'skip'): ClassPolicy => ({
  retry: { enabled: true, max_retries: n, initial_interval_seconds: initial },
  wait_for_reset: { enabled: false, max_wait_seconds: 0 },
  on_exhausted: outcome,
});
const waitsUpTo = (seconds: number, base: ClassPolicy = off): ClassPolicy => ({
  ...base,
  wait_for_reset: { enabled: true, max_wait_seconds: seconds },
});
const doc = (transient: ClassPolicy, hard: ClassPolicy): PolicyDocument => ({ version: 1, transient, hard });
const failure = (classification: Classification, safety: SafetyVerdict = safe): PolicyFailure => ({
  classification,
  safety,
});

/** Replays failures the way the route engine will: count retries and reset waits per class within the cycle. */
function replay(
  classification: Classification,
  policy: PolicyDocument,
  times: number,
  safety: SafetyVerdict = safe,
): PolicyDecision[] {
  let cycle: CandidateCycle = freshCycle;
  const decisions: PolicyDecision[] = [];
  for (let i = 0; i < times; i++) {
    const d = evaluate(failure(classification, safety), cycle, policy, now);
    decisions.push(d);
    if (d.kind === 'retry') cycle = { ...cycle, retriesUsed: { ...cycle.retriesUsed, [d.class]: d.ordinal } };
    else if (d.kind === 'wait_for_reset')
      cycle = { ...cycle, resetWaitUsed: { ...cycle.resetWaitUsed, [d.class]: true } };
    else break;
  }
  return decisions;
}

describe('seed scenarios the evaluator decides (table)', () => {
  const table: Array<{ name: string; run: () => PolicyDecision[]; expected: unknown[] }> = [
    {
      name: '[SCN-01][EVL-04][EVL-16] a capacity error before output, three retries from 5 s: waits 5, 10, 20 s, then the exhausted outcome',
      run: () => replay(capacity, doc(retries(3, 5, 'skip'), off), 5),
      expected: [
        { kind: 'retry', ordinal: 1, delaySeconds: 5, deadlineMs: now + 5000 },
        { kind: 'retry', ordinal: 2, delaySeconds: 10, deadlineMs: now + 10_000 },
        { kind: 'retry', ordinal: 3, delaySeconds: 20, deadlineMs: now + 20_000 },
        { kind: 'skip', class: 'transient' },
      ],
    },
    {
      name: '[SCN-02][EVL-02][EVL-13] a quota reset one minute away, waits up to five minutes: wait until the reset, then one attempt',
      run: () => replay(quotaResetIn(60), doc(off, waitsUpTo(300, { ...off, on_exhausted: 'stop' })), 3),
      expected: [
        { kind: 'wait_for_reset', class: 'hard', deadlineMs: now + 60_000 },
        { kind: 'stop', class: 'hard' },
      ],
    },
    {
      name: '[SCN-03][EVL-11] the same reset six hours away with a five-minute maximum: not shortened, the retry applies',
      run: () => replay(quotaResetIn(6 * 3600), doc(off, waitsUpTo(300, retries(1, 30, 'stop'))), 3),
      expected: [
        { kind: 'retry', class: 'hard', ordinal: 1, delaySeconds: 30 },
        { kind: 'stop', class: 'hard' },
      ],
    },
    {
      name: '[SCN-03][EVL-11] six hours away, no retry: straight to the exhausted outcome',
      run: () =>
        replay(quotaResetIn(6 * 3600), doc(off, waitsUpTo(300, { ...off, on_exhausted: 'skip' })), 2),
      expected: [{ kind: 'skip', class: 'hard' }],
    },
    {
      name: '[SCN-04][EVL-06] a transient budget exhausted with skip: skip to the next candidate',
      run: () => replay(overloaded, doc(retries(1, 5, 'skip'), off), 3),
      expected: [
        { kind: 'retry', ordinal: 1 },
        { kind: 'skip', class: 'transient' },
      ],
    },
    {
      name: '[SCN-05][EVL-07][EVL-08] no retry, no wait, stop, on exhausted credits: manual recovery, no other provider',
      run: () => replay(credits, doc(off, { ...off, on_exhausted: 'stop' }), 2),
      expected: [{ kind: 'stop', class: 'hard', reason: 'exhausted' }],
    },
    {
      name: '[SCN-06][EVL-01][CLS-20] an unknown string: automatic recovery stops',
      run: () => replay(unknown, doc(retries(5, 1), retries(5, 1)), 2),
      expected: [{ kind: 'reject', reason: 'unclassified' }],
    },
    {
      name: '[SCN-07][SAF-08][OUT-06] a failure after tool activity: safety overrides retry and skip',
      run: () =>
        replay(overloaded, doc(retries(5, 1, 'skip'), off), 2, { safe: false, reason: 'tool_activity' }),
      expected: [{ kind: 'reject', reason: 'unsafe', detail: 'tool_activity' }],
    },
    {
      name: '[EVL-01] stale evidence is rejected before anything else',
      run: () => replay(stale, doc(retries(5, 1), off), 2, { safe: false, reason: 'tool_activity' }),
      expected: [{ kind: 'reject', reason: 'stale' }],
    },
  ];
  it.each(table.map((t) => [t.name, t] as const))('%s', (_name, t) => {
    const decisions = t.run();
    expect(decisions).toHaveLength(t.expected.length);
    t.expected.forEach((e, i) => expect(decisions[i]).toMatchObject(e as object));
  });
});

describe('[SCN-08][SCN-09][SAF-06][SAF-07] a matching diagnostic before the structured error', () => {
  const key = { sessionId: 's', executionId: 'e', promptGeneration: 3 };
  const terminalMessage =
    'Internal error: API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment. If it persists, check https://status.claude.com.';
  const terminal = classify(
    {
      kind: 'acp_error',
      error: { code: -32603, message: terminalMessage, data: { errorKind: 'server_error' } },
    },
    { now },
  );
  const gate = (events: Array<{ kind: 'assistant_output' | 'thought' | 'tool_call'; text?: string }>) => {
    let ev = openReplayEvidence(key);
    for (const e of events) ev = appendReplayEvent(ev, e);
    return assessReplaySafety(snapshotReplayEvidence(ev), {
      current: key,
      failure: terminal,
      failureMessage: terminalMessage,
    });
  };
  const policy = doc(retries(2, 5, 'skip'), off);

  it('the diagnostic is not output: the policy may proceed', () => {
    const verdict = gate([{ kind: 'assistant_output', text: 'API Error: 529 Overloaded.' }]);
    expect(verdict).toEqual({ safe: true, basis: 'matching_diagnostic' });
    expect(evaluate(failure(terminal, verdict), freshCycle, policy, now)).toMatchObject({
      kind: 'retry',
      ordinal: 1,
    });
  });
  it.each([
    [
      'a diagnostic of another code',
      [{ kind: 'assistant_output' as const, text: 'API Error: 401 authentication_error' }],
    ],
    [
      'text the error does not contain',
      [{ kind: 'assistant_output' as const, text: 'API Error: 529 Overloaded. Retrying now.' }],
    ],
    [
      'later progress',
      [
        { kind: 'assistant_output' as const, text: 'API Error: 529 Overloaded.' },
        { kind: 'assistant_output' as const, text: 'Here is the fix' },
      ],
    ],
    [
      'a later tool call',
      [
        { kind: 'assistant_output' as const, text: 'API Error: 529 Overloaded.' },
        { kind: 'tool_call' as const },
      ],
    ],
    [
      'a thought',
      [
        { kind: 'thought' as const },
        { kind: 'assistant_output' as const, text: 'API Error: 529 Overloaded.' },
      ],
    ],
  ])('stops automatic recovery after %s', (_name, events) => {
    const verdict = gate(events);
    expect(verdict.safe).toBe(false);
    expect(evaluate(failure(terminal, verdict), freshCycle, policy, now)).toMatchObject({
      kind: 'reject',
      reason: 'unsafe',
    });
  });
});

describe('reset waiting and the retry budget', () => {
  it('[EVL-10] a reset at or before now is ignored', () => {
    const past = { ...quotaResetIn(60), reset_at: at(0) };
    expect(evaluate(failure(past), freshCycle, doc(off, waitsUpTo(300)), now)).toMatchObject({
      kind: 'skip',
    });
    expect(
      evaluate(failure({ ...past, reset_at: at(-5) }), freshCycle, doc(off, waitsUpTo(300)), now),
    ).toMatchObject({ kind: 'skip' });
  });
  it('[EVL-11] a reset exactly at the maximum waits; one second beyond does not', () => {
    expect(evaluate(failure(quotaResetIn(300)), freshCycle, doc(off, waitsUpTo(300)), now)).toMatchObject({
      kind: 'wait_for_reset',
    });
    expect(evaluate(failure(quotaResetIn(301)), freshCycle, doc(off, waitsUpTo(300)), now)).toMatchObject({
      kind: 'skip',
    });
  });
  it('[EVL-12] without a valid hint there is no wait', () => {
    expect(
      evaluate(
        failure({ ...credits, reset_at: null, retry_after: null }),
        freshCycle,
        doc(off, waitsUpTo(300)),
        now,
      ),
    ).toMatchObject({ kind: 'skip' });
  });
  it('[EVL-02] of retry_after and reset_at, the later one is the deadline', () => {
    const both = { ...quotaResetIn(120), retry_after: at(30) };
    expect(evaluate(failure(both), freshCycle, doc(off, waitsUpTo(300)), now)).toEqual({
      kind: 'wait_for_reset',
      class: 'hard',
      deadlineMs: now + 120_000,
      delaySource: 'reset_at',
    });
    const laterRetryAfter = { ...quotaResetIn(60), retry_after: at(90) };
    expect(evaluate(failure(laterRetryAfter), freshCycle, doc(off, waitsUpTo(300)), now)).toMatchObject({
      deadlineMs: now + 90_000,
      delaySource: 'retry_after',
    });
  });
  it('[EVL-04] a retry says what set its delay: the policy, or a trusted hint within the table entry’s window', () => {
    expect(evaluate(failure(overloaded), freshCycle, doc(retries(3, 5), off), now)).toMatchObject({
      kind: 'retry',
      delaySeconds: 5,
      delaySource: 'policy',
    });
    const hinted = evaluateRules(
      failure({ ...overloaded, retry_after: at(12) }),
      freshCycle,
      interactiveRecoveryRules,
      now,
    );
    expect(hinted).toMatchObject({ kind: 'retry', delaySeconds: 12, delaySource: 'retry_after' });
    const unhinted = evaluateRules(failure(overloaded), freshCycle, interactiveRecoveryRules, now);
    expect(unhinted).toMatchObject({ kind: 'retry', delaySource: 'policy' });
  });
  it('[EVL-03][EVL-09] waiting comes before retrying, and only once per candidate and class in a cycle', () => {
    const policy = doc(off, waitsUpTo(300, retries(2, 10, 'stop')));
    const kinds = replay(quotaResetIn(60), policy, 6).map((d) => d.kind);
    expect(kinds).toEqual(['wait_for_reset', 'retry', 'retry', 'stop']);
  });
  it('[EVL-14] the wait and its post-wait attempt consume no retry budget', () => {
    const policy = doc(off, waitsUpTo(300, retries(1, 10, 'stop')));
    const [wait, afterWait] = replay(quotaResetIn(60), policy, 3);
    expect(wait).toMatchObject({ kind: 'wait_for_reset' });
    expect(afterWait).toMatchObject({ kind: 'retry', ordinal: 1 });
  });
  it('[EVL-15][EVL-16][EVL-17] delays double from the initial interval and are clamped to 24 hours', () => {
    const delays = replay(overloaded, doc(retries(10, 3600), off), 11)
      .filter((d) => d.kind === 'retry')
      .map((d) => (d.kind === 'retry' ? d.delaySeconds : 0));
    expect(delays).toEqual([3600, 7200, 14_400, 28_800, 57_600, 86_400, 86_400, 86_400, 86_400, 86_400]);
  });
  it('[CLS-13] the class decides, not the code', () => {
    const policy = doc(retries(1, 7), { ...off, on_exhausted: 'stop' });
    expect(evaluate(failure(capacity), freshCycle, policy, now)).toMatchObject({
      kind: 'retry',
      delaySeconds: 7,
    });
    expect(evaluate(failure(overloaded), freshCycle, policy, now)).toMatchObject({
      kind: 'retry',
      delaySeconds: 7,
    });
    expect(evaluate(failure(credits), freshCycle, policy, now)).toMatchObject({ kind: 'stop' });
  });
});

describe('evaluator properties', () => {
  const classPolicy: fc.Arbitrary<ClassPolicy> = fc.record({
    retry: fc.oneof(
      fc.constant({ enabled: false, max_retries: 0, initial_interval_seconds: 0 }),
      fc.record({
        enabled: fc.constant(true),
        max_retries: fc.integer({ min: 1, max: 10 }),
        initial_interval_seconds: fc.integer({ min: 1, max: 3600 }),
      }),
    ),
    wait_for_reset: fc.oneof(
      fc.constant({ enabled: false, max_wait_seconds: 0 }),
      fc.record({ enabled: fc.constant(true), max_wait_seconds: fc.integer({ min: 1, max: 604_800 }) }),
    ),
    on_exhausted: fc.constantFrom('skip' as const, 'stop' as const),
  });
  const policy = fc.record({ version: fc.constant(1 as const), transient: classPolicy, hard: classPolicy });
  const provider = fc.constantFrom(capacity, overloaded, credits, quotaResetIn(60), quotaResetIn(90_000));
  const hinted = fc
    .tuple(provider, fc.integer({ min: -600, max: 700_000 }))
    .map(([c, s]) => ({ ...c, reset_at: at(s) }));
  const cycle = fc.record({
    retriesUsed: fc.record({
      transient: fc.integer({ min: 0, max: 1_000_000 }),
      hard: fc.integer({ min: 0, max: 1_000_000 }),
    }),
    resetWaitUsed: fc.record({ transient: fc.boolean(), hard: fc.boolean() }),
  });
  const unsafe: fc.Arbitrary<SafetyVerdict> = fc.constantFrom(
    ...(
      [
        'missing',
        'tool_activity',
        'thought',
        'assistant_output',
        'ambiguous_delivery',
        'partial_result',
      ] as const
    ).map((reason) => ({ safe: false as const, reason })),
  );

  it('[EVL-17][EVL-18] no delay is ever above 24 hours, for any ordinal', () => {
    fc.assert(
      fc.property(policy, hinted, cycle, (p, c, cy) => {
        const d = evaluate(failure(c), cy, p, now);
        if (d.kind === 'retry') {
          expect(d.delaySeconds).toBeLessThanOrEqual(policyLimits.delayCapSeconds);
          expect(d.deadlineMs - now).toBeLessThanOrEqual(policyLimits.delayCapSeconds * 1000);
          expect(Number.isFinite(d.deadlineMs)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('[SAF-01][SAF-04][SAF-08][CLS-20] never acts automatically on an unsafe or unclassified failure', () => {
    fc.assert(
      fc.property(policy, hinted, cycle, unsafe, (p, c, cy, verdict) => {
        expect(evaluate(failure(c, verdict), cy, p, now).kind).toBe('reject');
        expect(evaluate(failure(unknown), cy, p, now)).toMatchObject({
          kind: 'reject',
          reason: 'unclassified',
        });
      }),
      { numRuns: 1000 },
    );
  });

  it('[EVL-09] waits for a reset at most once per candidate and class in a cycle', () => {
    fc.assert(
      fc.property(policy, fc.array(hinted, { minLength: 1, maxLength: 30 }), (p, failures) => {
        let cy: CandidateCycle = freshCycle;
        const waits = { transient: 0, hard: 0 };
        for (const c of failures) {
          const d = evaluate(failure(c), cy, p, now);
          if (d.kind === 'wait_for_reset') {
            waits[d.class]++;
            cy = { ...cy, resetWaitUsed: { ...cy.resetWaitUsed, [d.class]: true } };
          } else if (d.kind === 'retry') {
            cy = { ...cy, retriesUsed: { ...cy.retriesUsed, [d.class]: d.ordinal } };
          }
        }
        expect(waits.transient).toBeLessThanOrEqual(1);
        expect(waits.hard).toBeLessThanOrEqual(1);
      }),
      { numRuns: 1000 },
    );
  });

  it('[CLS-02] identical inputs give identical decisions', () => {
    fc.assert(
      fc.property(policy, hinted, cycle, fc.boolean(), (p, c, cy, isSafe) => {
        const f = failure(c, isSafe ? safe : { safe: false, reason: 'thought' });
        expect(evaluate(f, cy, p, now)).toEqual(
          evaluate(structuredClone(f), structuredClone(cy), structuredClone(p), now),
        );
      }),
      { numRuns: 1000 },
    );
  });
});
