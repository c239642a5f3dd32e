import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  appendReplayEvent,
  assessReplaySafety,
  classify,
  evaluate,
  freshCycle,
  openReplayEvidence,
  snapshotReplayEvidence,
  unsafeReasons,
  type ClassPolicy,
  type PolicyDocument,
  type ReplayEvent,
  type ReplayEvidence,
  type SafetyContext,
  type UnsafeReason,
} from '../../../src/core/index.js';

const now = Date.parse('2026-06-01T12:00:00Z');
const key = { sessionId: 'session-1', executionId: 'exec-1', promptGeneration: 7 };
const record = (events: readonly ReplayEvent[], at = key): ReplayEvidence =>
  snapshotReplayEvidence(events.reduce(appendReplayEvent, openReplayEvidence(at)));

describe('no continuation package: unsafe evidence always fails closed', () => {
  const message =
    'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
  const failure = classify({ kind: 'stderr', text: message }, { now });
  const context: SafetyContext = { current: key, failure, failureMessage: message };

  /** One replay record per unsafe reason; typed so that a new reason must be added here. */
  const unsafeRecords: Record<UnsafeReason, ReplayEvidence | null> = {
    missing: null,
    stale: record([], { ...key, promptGeneration: 6 }),
    tool_activity: record([{ kind: 'tool_call' }]),
    thought: record([{ kind: 'thought' }]),
    assistant_output: record([{ kind: 'assistant_output', text: 'Here is the updated file.' }]),
    ambiguous_delivery: record([{ kind: 'ambiguous_delivery' }]),
    partial_result: record([{ kind: 'partial_result' }]),
  };

  const on = { enabled: true, max_retries: 10, initial_interval_seconds: 1 } as const;
  const wait = { enabled: true, max_wait_seconds: 604_800 } as const;
  const eager = (on_exhausted: ClassPolicy['on_exhausted']): PolicyDocument => ({
    version: 1,
    transient: { retry: on, wait_for_reset: wait, on_exhausted },
    hard: { retry: on, wait_for_reset: wait, on_exhausted },
  });

  it('[SAF-05] the gate has no continuation or override input: only the invocation, the failure and SAF-03', () => {
    // A continuation package would be a new input of the gate; this type check fails the typecheck when one is
    // added. `resumable` is the provider's own resumable-retry guarantee (SAF-03), tested beside the gate.
    expectTypeOf<keyof SafetyContext>().toEqualTypeOf<
      'current' | 'failure' | 'failureMessage' | 'resumable'
    >();
    expect(Object.keys(unsafeRecords).sort()).toEqual([...unsafeReasons].sort());
  });

  it.each([...unsafeReasons])(
    '[SAF-05][SAF-04][SAF-08] %s fails closed whatever else the caller passes, under the most eager policy',
    (reason) => {
      const snapshot = unsafeRecords[reason];
      const verdict = assessReplaySafety(snapshot, context);
      expect(verdict).toEqual({ safe: false, reason });
      // Extra fields a caller might hope for change nothing: the gate reads none of them.
      const hopeful = {
        ...context,
        continuation: { durable: true, successor: 'candidate-2' },
        continuationPackage: { sanitized: true },
        override: true,
        force: true,
        allowUnsafe: true,
        policy: eager('skip'),
      } as SafetyContext;
      expect(assessReplaySafety(snapshot, hopeful)).toEqual(verdict);
      for (const policy of [eager('skip'), eager('stop')]) {
        const decision = evaluate({ classification: failure, safety: verdict }, freshCycle, policy, now);
        expect(decision.kind).toBe('reject');
      }
    },
  );
});

describe('a matching diagnostic must classify with high confidence', () => {
  // The terminal structured error of the generation: a DNS failure (network.dns.v1, high confidence).
  const terminalMessage =
    'Error: ✕ [API Error: exception TypeError: fetch failed sending request] (cause: getaddrinfo ENOTFOUND generativelanguage.googleapis.com)';
  const terminal = classify(
    { kind: 'acp_error', agent: 'gemini-cli', error: { code: -32603, message: terminalMessage } },
    { now },
  );
  // Catalogue text (fixture gemini-cli-fetch-failed-sending-request): the same code, but medium confidence.
  const mediumChunk = '✕ [API Error: exception TypeError: fetch failed sending request]';
  // The part of the same message that classifies with high confidence.
  const highChunk = 'getaddrinfo ENOTFOUND generativelanguage.googleapis.com';
  const gate = (chunk: string) =>
    assessReplaySafety(record([{ kind: 'assistant_output', text: chunk }]), {
      current: key,
      failure: terminal,
      failureMessage: terminalMessage,
    });
  const retrying: PolicyDocument = {
    version: 1,
    transient: {
      retry: { enabled: true, max_retries: 3, initial_interval_seconds: 5 },
      wait_for_reset: { enabled: false, max_wait_seconds: 0 },
      on_exhausted: 'skip',
    },
    hard: {
      retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
      wait_for_reset: { enabled: false, max_wait_seconds: 0 },
      on_exhausted: 'stop',
    },
  };

  it('[SAF-06] the example texts classify as the decision needs', () => {
    expect(terminal).toMatchObject({ code: 'network_unavailable', class: 'transient', confidence: 'high' });
    // The gate reads a diagnostic as the failing agent's output (the failure's source): without it, a bare
    // network error from an unnamed source names no model call and stays unclassified.
    const asTheAgent = (text: string) => classify({ kind: 'stderr', agent: 'gemini-cli', text }, { now });
    expect(classify({ kind: 'stderr', text: highChunk }, { now }).class).toBe('unclassified');
    expect(asTheAgent(mediumChunk)).toMatchObject({
      code: 'network_unavailable',
      class: 'transient',
      confidence: 'medium',
    });
    expect(asTheAgent(highChunk)).toMatchObject({
      code: 'network_unavailable',
      confidence: 'high',
    });
    expect(terminalMessage).toContain(mediumChunk);
    expect(terminalMessage).toContain(highChunk);
  });

  it('[SAF-06] a same-code diagnostic at medium confidence is output, not a matching diagnostic', () => {
    const verdict = gate(mediumChunk);
    expect(verdict).toEqual({ safe: false, reason: 'assistant_output' });
    expect(evaluate({ classification: terminal, safety: verdict }, freshCycle, retrying, now)).toMatchObject({
      kind: 'reject',
      reason: 'unsafe',
    });
  });

  it('[SAF-06] the same error with a high-confidence diagnostic chunk matches', () => {
    const verdict = gate(highChunk);
    expect(verdict).toEqual({ safe: true, basis: 'matching_diagnostic' });
    expect(evaluate({ classification: terminal, safety: verdict }, freshCycle, retrying, now)).toMatchObject({
      kind: 'retry',
      ordinal: 1,
    });
  });
});
