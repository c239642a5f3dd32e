import { describe, expect, it } from 'vitest';
import { envelopes, harness, profileDocument } from './harness.js';
import { noticeHarness } from './notice-harness.js';
import {
  assessReplaySafety,
  classify,
  evidenceMessage,
  parseEnvelope,
  replayKeyOf,
  type ReplayEvent,
  type ReplayKey,
} from '../../src/core/index.js';
import { ReplayRecorder } from '../../src/engine/index.js';
import { standardPolicy, t0 } from '../core/route/route-fixtures.js';

const key: ReplayKey = { sessionId: 's1', executionId: 'inv-1', promptGeneration: 3 };
const failure = classify({ ...envelopes.overloaded, observed_at: '2026-06-01T12:00:00Z' }, { now: t0 });
const message = (() => {
  const parsed = parseEnvelope(envelopes.overloaded);
  if (!parsed.ok) throw new Error('invalid envelope');
  return evidenceMessage(parsed.evidence);
})();
const verdict = (snapshot: ReturnType<ReplayRecorder['snapshot']>) =>
  assessReplaySafety(snapshot, { current: key, failure, failureMessage: message });

describe('the replay recorder (per prompt generation)', () => {
  it('[SAF-10][SAF-11] keeps evidence per session, execution and generation; a snapshot never changes afterwards', () => {
    const recorder = new ReplayRecorder();
    recorder.begin(key);
    const clean = recorder.snapshot(key);
    expect(verdict(clean)).toEqual({ safe: true, basis: 'pre_result' });
    recorder.record(key, { kind: 'tool_call' });
    // The snapshot taken before the tool call is immutable: the decision already taken on it stands.
    expect(verdict(clean)).toEqual({ safe: true, basis: 'pre_result' });
    expect(Object.isFrozen(clean)).toBe(true);
    expect(verdict(recorder.snapshot(key))).toEqual({ safe: false, reason: 'tool_activity' });
    // Another execution or generation of the session is another record.
    expect(recorder.record({ ...key, executionId: 'inv-0' }, { kind: 'tool_call' })).toBe(false);
    expect(recorder.record({ ...key, promptGeneration: 2 }, { kind: 'assistant_output', text: 'hi' })).toBe(
      false,
    );
    expect(recorder.snapshot(key)?.counts.assistant_output).toBe(0);
  });

  it('[SAF-12] the replay decision is the same whatever order a consumer sees the stream events and the failure in', () => {
    const stream: ReplayEvent[] = [
      { kind: 'thought' },
      { kind: 'assistant_output', text: 'Reading the file' },
    ];
    const recorder = new ReplayRecorder();
    recorder.begin(key);
    for (const e of stream) recorder.record(key, e);
    // The lifecycle snapshots before it marks the turn complete; the snapshot travels with the failure.
    const carried = recorder.snapshot(key);
    recorder.end(key);
    const decisions = new Set<string>();
    for (const order of ['failure first', 'stream first', 'interleaved']) {
      const consumer = new ReplayRecorder();
      consumer.begin(key);
      let decided: string | null = null;
      const onFailure = () => (decided = JSON.stringify(verdict(carried)));
      if (order === 'failure first') onFailure();
      for (const [i, e] of stream.entries()) {
        consumer.record(key, e);
        if (order === 'interleaved' && i === 0) onFailure();
      }
      if (order === 'stream first') onFailure();
      decisions.add(decided!);
    }
    expect([...decisions]).toEqual([JSON.stringify({ safe: false, reason: 'thought' })]);
  });

  it('[SAF-13] a prompt never begun has no snapshot: unsafe (missing)', () => {
    const recorder = new ReplayRecorder();
    expect(recorder.snapshot(key)).toBeNull();
    expect(verdict(null)).toEqual({ safe: false, reason: 'missing' });
  });

  it('drops the oldest live prompt past its bound, and releases ended ones', () => {
    const recorder = new ReplayRecorder({ maxPrompts: 2 });
    for (const g of [1, 2, 3]) recorder.begin({ ...key, promptGeneration: g });
    expect(recorder.size()).toBe(2);
    expect(recorder.snapshot({ ...key, promptGeneration: 1 })).toBeNull();
    recorder.end({ ...key, promptGeneration: 3 });
    expect(recorder.size()).toBe(1);
  });

  it("[SAF-09] records every interactive prompt too: a task session's failure is judged on its recorded evidence", async () => {
    const h = await noticeHarness();
    try {
      const s1 = { taskId: 't1', sessionId: 's1' };
      await h.open(s1);
      const route = (await h.db.store.readRoute('session:s1'))!;
      const recorder = new ReplayRecorder();
      recorder.begin(replayKeyOf(route));
      recorder.record(replayKeyOf(route), { kind: 'tool_call' });
      const outcome = await h.sessions.reportFailure(s1, {
        evidence: envelopes.overloaded,
        replay: recorder.snapshot(replayKeyOf(route)),
        invocationId: route.dispatch!.intentId,
      });
      expect(outcome).toMatchObject({
        outcome: 'changed',
        route: { state: 'action_required', reason: 'unsafe' },
      });
    } finally {
      await h.close();
    }
  });

  it('[SAF-14][CAL-03] a dynamic route keeps its own pre-result check and its configured policy owner', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.idle();
      const recorder = new ReplayRecorder();
      const route = await h.route('r1');
      recorder.begin(replayKeyOf(route));
      expect(
        await h.engine.reportFailure({
          routeId: 'r1',
          generation: 1,
          invocationId: route.dispatch!.intentId,
          evidence: envelopes.overloaded,
          replay: recorder.snapshot(replayKeyOf(route)),
        }),
      ).toMatchObject({
        outcome: 'changed',
        route: { state: 'retry_wait', maxRetries: 3, pendingOutcome: 'skip' },
      });
      const [attempt] = await h.store.listAttempts('r1');
      expect(attempt!.policySnapshot).toEqual(standardPolicy.transient);
    } finally {
      await h.close();
    }
  });
});
