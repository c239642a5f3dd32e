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
