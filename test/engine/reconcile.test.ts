import { describe, expect, it } from 'vitest';
import { envelopes, harness, profileDocument } from './harness.js';
import { doc, off, retries, standardPolicy, t0 } from '../core/route/route-fixtures.js';

async function started(policy: object = standardPolicy, mode: 'dynamic' | 'interactive' = 'dynamic') {
  const h = await harness();
  await h.engine.saveProfile(profileDocument(policy));
  await h.engine.startRoute({ routeId: 'r1', profileId: mode === 'dynamic' ? 'p' : 'a', mode });
  await h.engine.idle();
  return h;
}

describe('restart reconciliation', () => {
  it('[DUR-05][DUR-07] a schedule that never reached an intent is re-armed after a restart and fires once', async () => {
    const h = await started();
    try {
      await h.fail('r1', envelopes.overloaded);
      const before = await h.route('r1');
      const attempts = await h.store.listAttempts('r1');
      const report = await h.restart();
      expect(report.rearmed).toEqual([{ id: 'r1', generation: 1, deadlineMs: t0 + 5000 }]);
      expect(report.stopped).toEqual([]);
      // Classification, catalogue version, policy snapshot, ordinal, deadline and pending outcome all survived.
      expect(await h.route('r1')).toEqual(before);
      expect(await h.store.listAttempts('r1')).toEqual(attempts);
      expect(h.engine.armedFor()).toBe(t0 + 5000);
      await h.advance(60);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'retry:a:1']);
    } finally {
      await h.close();
    }
  });

  it('[DUR-06] a dispatch without an acknowledgement is never repeated after a restart: the route stops for a person', async () => {
    const h = await started();
    try {
      await h.fail('r1', envelopes.overloaded);
      h.dispatcher.mode = 'lose';
      await h.advance(5);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'retry:a:1']);
      h.dispatcher.mode = 'ack';
      const report = await h.restart();
      expect(report.stopped).toEqual([
        { routeId: 'r1', generation: 1, intentId: h.dispatcher.sent[1]!.id, kind: 'retry', candidate: 'a' },
      ]);
      expect(report.rearmed).toEqual([]);
      expect(await h.route('r1')).toMatchObject({ state: 'action_required', reason: 'ambiguous_dispatch' });
      await h.advance(3600);
      expect(h.dispatcher.sent).toHaveLength(2);
      // A second restart finds nothing left to decide.
      expect(await h.restart()).toMatchObject({ rearmed: [], stopped: [], superseded: 0 });
    } finally {
      await h.close();
    }
  });

  it('[DUR-06] a dispatcher that cannot confirm delivery stops the route at once, without a repeat', async () => {
    const h = await started();
    try {
      await h.fail('r1', envelopes.overloaded);
      h.dispatcher.mode = 'reject';
      await h.advance(60);
      expect(await h.route('r1')).toMatchObject({ state: 'action_required', reason: 'ambiguous_dispatch' });
      expect(h.dispatcher.sent).toHaveLength(2);
      expect((await h.store.listIntents('r1')).map((i) => i.outcome)).toEqual(['acknowledged', 'ambiguous']);
    } finally {
      await h.close();
    }
  });

  it('[DUR-05] a provider answer proves delivery: its intent counts as acknowledged and nothing is stopped later', async () => {
    const h = await started(doc({ ...off, on_exhausted: 'stop' }, off));
    try {
      h.dispatcher.mode = 'lose';
      await h.engine.startRoute({ routeId: 'r2', profileId: 'p' });
      await h.engine.idle();
      // The failure report proves the attempt ran; the decision replaces the unacknowledged intent.
      await h.fail('r2', envelopes.overloaded);
      const report = await h.restart();
      expect(report).toMatchObject({ stopped: [], superseded: 0 });
      expect((await h.store.listIntents('r2')).map((i) => i.outcome)).toEqual(['acknowledged']);
      expect(await h.route('r2')).toMatchObject({
        state: 'action_required',
        reason: 'exhausted',
        dispatch: { acknowledged: true },
      });
    } finally {
      await h.close();
    }
  });

  it('[CUR-36][CUR-37] interactive retry is durable: a restart re-arms an undispatched retry and stops an ambiguous one', async () => {
    const h = await started(standardPolicy, 'interactive');
    try {
      await h.fail('r1', envelopes.overloaded);
      expect((await h.restart()).rearmed).toHaveLength(1);
      h.dispatcher.mode = 'lose';
      await h.advance(5);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'retry:a:1']);
      const report = await h.restart();
      expect(report.stopped).toHaveLength(1);
      expect(await h.route('r1')).toMatchObject({
        state: 'action_required',
        reason: 'ambiguous_dispatch',
        recoveryActions: ['resume', 'start_fresh'],
      });
    } finally {
      await h.close();
    }
  });

  it('[DUR-05] a restart between many decisions re-arms every waiting route and the earliest first', async () => {
    const h = await started(doc(retries(3, 10, 'stop'), off));
    try {
      for (let i = 2; i <= 20; i++) await h.engine.startRoute({ routeId: `r${i}`, profileId: 'p' });
      await h.engine.idle();
      for (let i = 1; i <= 20; i++) {
        h.clock.set(t0 + (21 - i) * 1000);
        await h.fail(`r${i}`, envelopes.overloaded);
      }
      const report = await h.restart();
      expect(report.rearmed).toHaveLength(20);
      expect(h.engine.armedFor()).toBe(t0 + 11_000);
      await h.advance(40);
      expect(h.dispatcher.sent.filter((i) => i.kind === 'retry')).toHaveLength(20);
      expect(new Set(h.dispatcher.sent.filter((i) => i.kind === 'retry').map((i) => i.routeId)).size).toBe(
        20,
      );
    } finally {
      await h.close();
    }
  });
});

describe('attempts a restart finds running (orphans)', () => {
  it('[DUR-06][OUT-01][RTE-18] a crash while a retry runs strands nothing: reported orphaned, then Retry now takes over and the old report is stale', async () => {
    const h = await started();
    try {
      await h.fail('r1', envelopes.overloaded);
      await h.advance(5); // the retry is dispatched and accepted; the process then dies before the agent reports
      const retry = h.dispatcher.sent[1]!;
      const report = await h.restart();
      expect(report.orphaned).toEqual([
        { routeId: 'r1', generation: 1, intentId: retry.id, kind: 'retry', candidate: 'a' },
      ]);
      expect(report.stopped).toEqual([]);
      // Nothing is inferred from the silence: the route still waits for its attempt.
      await h.advance(3600);
      expect(await h.route('r1')).toMatchObject({ state: 'retrying', dispatch: { orphaned: true } });
      expect(h.dispatcher.sent).toHaveLength(2);
      const taken = await h.engine.act({ routeId: 'r1', action: 'retry_now', expectedGeneration: 1 });
      expect(taken).toMatchObject({
        outcome: 'changed',
        route: { state: 'retrying', generation: 2, dispatch: { kind: 'manual' } },
      });
      await h.engine.idle();
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'retry:a:1', 'manual:a:2']);
      // The orphan answers late: another generation now, so it changes nothing.
      const late = await h.engine.reportFailure({
        routeId: 'r1',
        generation: 1,
        invocationId: retry.id,
        evidence: envelopes.overloaded,
        replay: null,
      });
      expect(late).toMatchObject({ outcome: 'refused', reason: 'stale_generation' });
      expect(await h.route('r1')).toMatchObject({ state: 'retrying', generation: 2 });
    } finally {
      await h.close();
    }
  });

  it('[DUR-06] Stop takes over an orphan; a report of the orphan that does arrive still counts until then', async () => {
    const h = await started();
    try {
      await h.fail('r1', envelopes.overloaded);
      await h.advance(5);
      await h.restart();
      // The attempt was still running elsewhere and reports: it counts (delivery and outcome are proven).
      expect(await h.fail('r1', envelopes.overloaded)).toMatchObject({
        outcome: 'changed',
        route: { state: 'retry_wait', retryOrdinal: 2 },
      });
      await h.advance(20);
      await h.restart();
      expect(await h.engine.act({ routeId: 'r1', action: 'stop', expectedGeneration: 1 })).toMatchObject({
        outcome: 'changed',
        route: { state: 'action_required', reason: 'stopped' },
      });
    } finally {
      await h.close();
    }
  });

  it("[RTE-15][DUR-06] a lost successor acknowledgement does not strand the switch: the successor's success proves delivery, and a restart then stops nothing", async () => {
    const h = await started({ ...standardPolicy, transient: { ...off, on_exhausted: 'skip' } });
    try {
      h.dispatcher.mode = 'lose';
      await h.fail('r1', envelopes.overloaded);
      expect(await h.route('r1')).toMatchObject({ state: 'switching', nextCandidate: 'b' });
      const successor = h.dispatcher.sent.at(-1)!;
      const success = await h.engine.reportSuccess({
        routeId: 'r1',
        generation: 2,
        invocationId: successor.id,
      });
      expect(success).toMatchObject({ outcome: 'changed', route: { state: 'active', candidate: 'b' } });
      h.dispatcher.mode = 'ack';
      const report = await h.restart();
      expect(report.stopped).toEqual([]);
      expect(await h.route('r1')).toMatchObject({ state: 'active', candidate: 'b' });
      const intents = await h.store.listIntents('r1');
      expect(intents.find((i) => i.id === successor.id)).toMatchObject({ outcome: 'acknowledged' });
    } finally {
      await h.close();
    }
  });

  it('[RTE-15] Cancel and Stop are allowed while switching', async () => {
    const h = await started({ ...standardPolicy, transient: { ...off, on_exhausted: 'skip' } });
    try {
      h.dispatcher.mode = 'lose';
      await h.fail('r1', envelopes.overloaded);
      const cancelled = await h.engine.act({ routeId: 'r1', action: 'cancel', expectedGeneration: 2 });
      expect(cancelled).toMatchObject({
        outcome: 'changed',
        route: { state: 'action_required', reason: 'cancelled', candidate: 'b' },
      });
    } finally {
      await h.close();
    }
  });

  it('[DUR-06] every restart reports every orphan, also one an earlier restart marked', async () => {
    const h = await started();
    try {
      const first = await h.restart();
      expect(first.orphaned.map((o) => `${o.routeId}:${o.kind}`)).toEqual(['r1:initial']);
      const second = await h.restart();
      expect(second.orphaned.map((o) => `${o.routeId}:${o.kind}`)).toEqual(['r1:initial']);
    } finally {
      await h.close();
    }
  });

  it('[CUR-34][DUR-06] a failure reported while the prompt call was open proves delivery: a restart reports an orphan, not an ambiguous dispatch', async () => {
    const h = await started();
    try {
      await h.fail('r1', envelopes.overloaded);
      h.dispatcher.mode = 'lose';
      await h.advance(5);
      const r = await h.route('r1');
      const open = await h.engine.reportFailure({
        routeId: 'r1',
        generation: 1,
        invocationId: r.dispatch!.intentId,
        evidence: envelopes.overloaded,
        replay: null,
        promptOpen: true,
      });
      expect(open).toMatchObject({ outcome: 'refused', reason: 'prompt_open' });
      h.dispatcher.mode = 'ack';
      const report = await h.restart();
      expect(report.stopped).toEqual([]);
      expect(report.orphaned.map((o) => o.kind)).toEqual(['retry']);
      expect(await h.route('r1')).toMatchObject({ state: 'retrying', dispatch: { acknowledged: true } });
    } finally {
      await h.close();
    }
  });
});
