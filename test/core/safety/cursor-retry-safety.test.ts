import { describe, expect, it } from 'vitest';
import {
  appendReplayEvent,
  assessReplaySafety,
  classify,
  evaluate,
  freshCycle,
  openReplayEvidence,
  snapshotReplayEvidence,
  type Classification,
  type ClassPolicy,
  type PolicyDocument,
  type ReplayEvent,
  type ReplayEvidence,
} from '../../../src/core/index.js';

const now = Date.parse('2026-10-01T12:00:00Z');
const key = { sessionId: 'session-1', executionId: 'exec-1', promptGeneration: 2 };

/** Cursor's retriable diagnostic as its ACP adapter reports it (fixture seedsys-k37). */
const cursorMessage = 'Error: RetriableError: HTTP/2 stream closed with error code CANCEL (0x8)';
const cursorEnvelope = {
  kind: 'acp_error',
  provider: 'cursor-acp',
  observed_at: '2026-10-01T12:00:00Z',
  error: { code: -32603, message: cursorMessage },
};
/** The same failure from an agent with no fingerprint: the generic transport-loss rule. */
const genericMessage = 'Internal error: stream disconnected before completion: peer disconnected';
const genericEnvelope = {
  kind: 'acp_error',
  agent: 'some-agent',
  observed_at: '2026-10-01T12:00:00Z',
  error: { code: -32603, message: genericMessage },
};
const cursor = classify(cursorEnvelope, { now });
const generic = classify(genericEnvelope, { now });

const record = (events: readonly ReplayEvent[]): ReplayEvidence =>
  snapshotReplayEvidence(events.reduce(appendReplayEvent, openReplayEvidence(key)));
const gate = (snapshot: ReplayEvidence | null, failure: Classification, failureMessage: string) =>
  assessReplaySafety(snapshot, { current: key, failure, failureMessage });

const off = { enabled: false, max_retries: 0, initial_interval_seconds: 0 } as const;
const noWait = { enabled: false, max_wait_seconds: 0 } as const;
const transientPolicy = (transient: ClassPolicy): PolicyDocument => ({
  version: 1,
  transient,
  hard: { retry: off, wait_for_reset: noWait, on_exhausted: 'stop' },
});
/** Policies that ask for automatic work: retries, an immediate skip, a wait, and a stop for contrast. */
const policies: Record<string, PolicyDocument> = {
  'retry twice, then skip': transientPolicy({
    retry: { enabled: true, max_retries: 2, initial_interval_seconds: 5 },
    wait_for_reset: noWait,
    on_exhausted: 'skip',
  }),
  'skip at once': transientPolicy({ retry: off, wait_for_reset: noWait, on_exhausted: 'skip' }),
  'wait up to an hour, then retry once, then stop': transientPolicy({
    retry: { enabled: true, max_retries: 1, initial_interval_seconds: 30 },
    wait_for_reset: { enabled: true, max_wait_seconds: 3600 },
    on_exhausted: 'stop',
  }),
  'stop at once': transientPolicy({ retry: off, wait_for_reset: noWait, on_exhausted: 'stop' }),
};

/** Evidence that the turn already did something: the gate must refuse whatever the label says. */
const progress: Record<string, readonly ReplayEvent[]> = {
  'assistant output': [{ kind: 'assistant_output', text: "I'll update the config file now." }],
  'a thought': [{ kind: 'thought' }],
  'a tool call': [{ kind: 'tool_call' }],
  'a tool update': [{ kind: 'tool_update' }],
  'the diagnostic, then output': [
    { kind: 'assistant_output', text: cursorMessage },
    { kind: 'assistant_output', text: ' Continuing with the edit.' },
  ],
};

describe("Cursor's RetriableError label", () => {
  it('[CUR-27][CUR-24] is transport evidence: classified transient agent_transport_lost, high confidence', () => {
    expect(cursor).toMatchObject({
      code: 'agent_transport_lost',
      class: 'transient',
      confidence: 'high',
      classifier_rule: 'cursor.retriable_stream_reset.v1',
    });
  });

  it.each(Object.entries(progress))(
    '[CUR-27][SAF-01] never by itself permits a repeat: with %s in the replay evidence the gate refuses',
    (_name, events) => {
      const verdict = gate(record(events), cursor, cursorMessage);
      expect(verdict.safe).toBe(false);
      for (const policy of Object.values(policies)) {
        expect(evaluate({ classification: cursor, safety: verdict }, freshCycle, policy, now)).toMatchObject({
          kind: 'reject',
          reason: 'unsafe',
        });
      }
    },
  );

  it('[CUR-27][CUR-29] without replay evidence the label permits nothing either', () => {
    const verdict = gate(null, cursor, cursorMessage);
    expect(verdict).toEqual({ safe: false, reason: 'missing' });
    const decision = evaluate(
      { classification: cursor, safety: verdict },
      freshCycle,
      policies['retry twice, then skip']!,
      now,
    );
    expect(decision).toMatchObject({ kind: 'reject', reason: 'unsafe', detail: 'missing' });
  });
});

describe('agent_transport_lost and the Cursor fingerprint', () => {
  it('[CUR-38] generic transport loss and the Cursor diagnostic are the same code, class and confidence', () => {
    expect(generic.classifier_rule).not.toBe(cursor.classifier_rule);
    const semantic = (c: Classification) => ({
      code: c.code,
      class: c.class,
      confidence: c.confidence,
      retry_after: c.retry_after,
      reset_at: c.reset_at,
    });
    expect(semantic(generic)).toEqual(semantic(cursor));
  });

  it.each(Object.entries(policies))(
    '[CUR-38][CLS-13] at the safe point both get the same decision under "%s", skip included',
    (_name, policy) => {
      const safe = (failure: Classification, message: string) => gate(record([]), failure, message);
      expect(safe(cursor, cursorMessage)).toEqual({ safe: true, basis: 'pre_result' });
      expect(safe(generic, genericMessage)).toEqual({ safe: true, basis: 'pre_result' });
      const cursorDecision = evaluate(
        { classification: cursor, safety: safe(cursor, cursorMessage) },
        freshCycle,
        policy,
        now,
      );
      const genericDecision = evaluate(
        { classification: generic, safety: safe(generic, genericMessage) },
        freshCycle,
        policy,
        now,
      );
      expect(cursorDecision).toEqual(genericDecision);
      expect(cursorDecision.kind).not.toBe('reject');
    },
  );

  it('[CUR-38] follows the transient policy to skip once retries are spent, for both', () => {
    const policy = policies['retry twice, then skip']!;
    const spent = { ...freshCycle, retriesUsed: { transient: 2, hard: 0 } };
    for (const [failure, message] of [
      [cursor, cursorMessage],
      [generic, genericMessage],
    ] as const) {
      const safety = gate(record([]), failure, message);
      expect(evaluate({ classification: failure, safety }, spent, policy, now)).toEqual({
        kind: 'skip',
        class: 'transient',
        detail: 'transient recovery exhausted after 2 of 2 retries',
      });
    }
  });

  it.each(Object.entries(progress).filter(([name]) => name !== 'the diagnostic, then output'))(
    '[CUR-38][SAF-04] with %s both are refused: the fingerprint adds no permission',
    (_name, events) => {
      for (const policy of Object.values(policies)) {
        const decisions = [
          [cursor, cursorMessage],
          [generic, genericMessage],
        ].map(([failure, message]) =>
          evaluate(
            {
              classification: failure as Classification,
              safety: gate(record(events), failure as Classification, message as string),
            },
            freshCycle,
            policy,
            now,
          ),
        );
        expect(decisions[0]).toEqual(decisions[1]);
        expect(decisions[0]).toMatchObject({ kind: 'reject', reason: 'unsafe' });
      }
    },
  );
});
