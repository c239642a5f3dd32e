import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendReplayEvent,
  assessReplaySafety,
  classify,
  openReplayEvidence,
  replayEventKinds,
  snapshotReplayEvidence,
  type ReplayEvent,
  type ReplayEvidence,
} from '../../../src/core/index.js';

const key = { sessionId: 'session-1', executionId: 'exec-1', promptGeneration: 4 };
const message = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
const failure = classify({ kind: 'stderr', text: message }, { now: 0 });
const context = { current: key, failure, failureMessage: message };
const fold = (events: ReplayEvent[], start: ReplayEvidence = openReplayEvidence(key)) =>
  events.reduce(appendReplayEvent, start);

describe('the effect-safety gate', () => {
  it('[SAF-02][CUR-28] is safe only for a current record with neither output nor tool activity', () => {
    expect(assessReplaySafety(fold([]), context)).toEqual({ safe: true, basis: 'pre_result' });
    expect(assessReplaySafety(fold([{ kind: 'assistant_output', text: '   ' }]), context)).toEqual({
      safe: true,
      basis: 'pre_result',
    });
  });

  it('[SAF-13][CUR-29] a missing record is unsafe', () => {
    expect(assessReplaySafety(null, context)).toEqual({ safe: false, reason: 'missing' });
  });

  it('[SAF-04][SAF-10] evidence of another session, execution or generation is stale', () => {
    for (const other of [
      { ...key, sessionId: 'x' },
      { ...key, executionId: 'x' },
      { ...key, promptGeneration: 3 },
    ]) {
      expect(assessReplaySafety(openReplayEvidence(other), context)).toEqual({
        safe: false,
        reason: 'stale',
      });
    }
  });

  it.each([
    ['assistant output', { kind: 'assistant_output', text: 'I changed the file' }, 'assistant_output'],
    ['a thought', { kind: 'thought' }, 'thought'],
    ['a pending or completed tool call', { kind: 'tool_call' }, 'tool_activity'],
    ['a tool update', { kind: 'tool_update' }, 'tool_activity'],
    ['ambiguous prompt delivery', { kind: 'ambiguous_delivery' }, 'ambiguous_delivery'],
    ['[CAL-09] a partial utility result', { kind: 'partial_result' }, 'partial_result'],
  ] as const)('[SAF-04][CUR-29] %s fails closed', (_name, event, reason) => {
    expect(assessReplaySafety(fold([event]), context)).toEqual({ safe: false, reason });
  });

  it('[CUR-30] thoughts and a Read File call in flight: manual recovery although the class is transient', () => {
    const cursor = classify(
      {
        kind: 'acp_error',
        error: {
          code: -32603,
          message: 'Error: RetriableError: HTTP/2 stream closed with error code CANCEL (0x8)',
        },
      },
      { now: 0 },
    );
    expect(cursor.class).toBe('transient');
    const verdict = assessReplaySafety(fold([{ kind: 'thought' }, { kind: 'tool_call' }]), {
      ...context,
      failure: cursor,
    });
    expect(verdict).toEqual({ safe: false, reason: 'tool_activity' });
  });

  it('[SAF-03] a resumable-retry guarantee counts only for the same native session and generation', () => {
    const withOutput = fold(
      [{ kind: 'assistant_output', text: 'partial answer' }],
      openReplayEvidence(key, 'native-9'),
    );
    const resumable = { providerSessionId: 'native-9', promptGeneration: 4 };
    expect(assessReplaySafety(withOutput, { ...context, resumable })).toEqual({
      safe: true,
      basis: 'resumable_retry',
    });
    expect(
      assessReplaySafety(withOutput, {
        ...context,
        resumable: { ...resumable, providerSessionId: 'native-8' },
      }).safe,
    ).toBe(false);
    expect(
      assessReplaySafety(withOutput, { ...context, resumable: { ...resumable, promptGeneration: 3 } }).safe,
    ).toBe(false);
  });

  it('[SAF-06][SAF-07] a diagnostic split over chunks matches; anything said after it restores the fence', () => {
    const chunks: ReplayEvent[] = [
      { kind: 'assistant_output', text: 'API Error: 529 {"type":"error",' },
      { kind: 'assistant_output', text: '"error":{"type":"overloaded_error","message":"Overloaded"}}' },
    ];
    expect(assessReplaySafety(fold(chunks), context)).toEqual({ safe: true, basis: 'matching_diagnostic' });
    expect(
      assessReplaySafety(fold([...chunks, { kind: 'assistant_output', text: ' ok' }]), context).safe,
    ).toBe(false);
  });

  it('[SAF-11][SAF-12] a snapshot never changes, and the decision does not depend on arrival order', () => {
    const live = fold([{ kind: 'assistant_output', text: 'API Error: 529 ' }]);
    const snapshot = snapshotReplayEvidence(live);
    const later = appendReplayEvent(live, { kind: 'tool_call' });
    expect(Object.isFrozen(snapshot)).toBe(true);
    expect(snapshot.counts.tool_call).toBe(0);
    expect(later.counts.tool_call).toBe(1);
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...replayEventKinds), { maxLength: 12 }),
        fc.integer(),
        (kinds, seed) => {
          const events = kinds.map((kind): ReplayEvent =>
            kind === 'assistant_output' ? { kind, text: 'x' } : { kind },
          );
          const shuffled = [...events].sort(
            (a, b) => ((a.kind.length * 31 + seed) % 7) - ((b.kind.length * 31 + seed) % 7),
          );
          expect(assessReplaySafety(fold(events), context)).toEqual(
            assessReplaySafety(fold(shuffled), context),
          );
        },
      ),
    );
  });

  it('[SAF-09][SAF-01] records every interactive prompt, and a classification alone never authorizes anything', () => {
    expect(openReplayEvidence(key).counts).toEqual(Object.fromEntries(replayEventKinds.map((k) => [k, 0])));
    // A high-confidence transient classification with a missing record is still unsafe.
    expect(failure.class).toBe('transient');
    expect(assessReplaySafety(null, context).safe).toBe(false);
  });
});
