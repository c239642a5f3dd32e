import { describe, expect, it } from 'vitest';
import { envelopes, harness, profileDocument } from './harness.js';
import { systemClock } from '../../src/engine/index.js';
import { doc, off, retries, standardPolicy, t0, waitsUpTo } from '../core/route/route-fixtures.js';

async function withRoutes(ids: string[], policy: object = standardPolicy) {
  const h = await harness();
  await h.engine.saveProfile(profileDocument(policy));
  for (const id of ids) await h.engine.startRoute({ routeId: id, profileId: 'p' });
  await h.engine.idle();
  return h;
}

describe('durable timers', () => {
  it('[DUR-01] the engine arms one in-process timer, for the earliest stored deadline', async () => {
    const h = await withRoutes(['r1', 'r2', 'r3'], doc(retries(3, 20, 'stop'), off));
    try {
      await h.advance(0);
      await h.fail('r1', envelopes.overloaded); // due at 20 s
      h.clock.set(t0 + 5000);
      await h.fail('r2', envelopes.overloaded); // due at 25 s
      h.clock.set(t0 + 6000);
      await h.fail('r3', envelopes.overloaded); // due at 26 s
      expect(h.clock.pending()).toBe(1);
      expect(h.engine.armedFor()).toBe(t0 + 20_000);
      await h.advance(20);
      expect(h.dispatcher.kinds().slice(3)).toEqual(['retry:a:1']);
      expect(h.engine.armedFor()).toBe(t0 + 25_000);
      await h.advance(30);
      expect(h.dispatcher.kinds().slice(3)).toEqual(['retry:a:1', 'retry:a:1', 'retry:a:1']);
      expect(h.engine.armedFor()).toBeNull();
    } finally {
      await h.close();
    }
  });

  it('[DUR-01][DUR-02] reading a route and its absolute deadline, however often and however late, dispatches nothing: only the engine timer does', async () => {
    const h = await withRoutes(['r1'], doc(retries(3, 20, 'stop'), off));
    try {
      await h.fail('r1', envelopes.overloaded); // due at 20 s
      const route = await h.route('r1');
      expect(route).toMatchObject({ state: 'retry_wait', deadlineMs: t0 + 20_000 });
      // A display counts down on its own clock and reads the route past the deadline: nothing is dispatched.
      h.clock.set(t0 + 25_000);
      for (let i = 0; i < 50; i++) {
        await h.store.readRoute('r1');
        await h.store.listAttempts('r1');
        await h.store.countRoutes();
      }
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);
      // The engine's own timer, when it runs, dispatches the retry exactly once.
      await h.advance(25);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'retry:a:1']);
    } finally {
      await h.close();
    }
  });

  it('a transition made by a deadline firing carries the deadline it fired for; other transitions carry none', async () => {
    const h = await withRoutes(['r1'], doc(retries(3, 20, 'stop'), off));
    try {
      await h.fail('r1', envelopes.overloaded); // due at 20 s
      // The firing runs 3 s late (a busy loop, a suspended host): the event says so.
      h.clock.set(t0 + 23_000);
      h.clock.fireDue();
      await h.engine.idle();
      const transitions = h.events.filter((e) => e.type === 'transition');
      expect(
        transitions.map((e) => [e.decision, e.atMs - t0, e.dueAtMs === null ? null : e.dueAtMs - t0]),
      ).toEqual([
        ['start', 0, null],
        ['retry', 0, null],
        ['deadline', 23_000, 20_000],
      ]);
    } finally {
      await h.close();
    }
  });

  it('[RTE-09] a timer that fires early acts on nothing and is armed again for the same absolute deadline', async () => {
    const h = await withRoutes(['r1']);
    try {
      await h.fail('r1', envelopes.overloaded);
      h.clock.set(t0 + 2000);
      expect(h.clock.fireAllEarly()).toBe(1);
      await h.engine.idle();
      expect(await h.route('r1')).toMatchObject({ state: 'retry_wait', deadlineMs: t0 + 5000 });
      expect(h.engine.armedFor()).toBe(t0 + 5000);
      await h.advance(5);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'retry:a:1']);
    } finally {
      await h.close();
    }
  });

  it('[RTE-09][DUR-10] a clock that jumps backwards neither fires twice nor loses a deadline', async () => {
    const h = await withRoutes(['r1', 'r2']);
    try {
      await h.fail('r1', envelopes.overloaded); // due at 5 s
      h.clock.set(t0 + 3000);
      await h.fail('r2', envelopes.overloaded); // due at 8 s
      await h.advance(5);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'initial:a:1', 'retry:a:1']);
      // The wall clock steps back an hour and the timer wakes: nothing is due by the new clock.
      h.clock.set(t0 - 3600_000);
      h.clock.fireAllEarly();
      await h.engine.idle();
      expect(h.dispatcher.sent).toHaveLength(3);
      expect(await h.route('r2')).toMatchObject({ state: 'retry_wait', deadlineMs: t0 + 8000 });
      // Back to real time: r2 fires once at its stored deadline, r1 never again.
      await h.advance(3600);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'initial:a:1', 'retry:a:1', 'retry:a:1']);
      expect(h.dispatcher.sent.map((i) => i.routeId)).toEqual(['r1', 'r2', 'r1', 'r2']);
    } finally {
      await h.close();
    }
  });

  it('[RTE-09] the system clock re-checks the wall clock when it wakes: a step back delays, never fires early or twice', async () => {
    let offset = 0;
    const clock = systemClock({ now: () => Date.now() + offset, maxSleepMs: 20 });
    const fired: number[] = [];
    const due = clock.now() + 60;
    clock.schedule(due, () => fired.push(clock.now()));
    offset = -10_000;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(fired).toEqual([]);
    offset = 0;
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(due);
    const cancel = clock.schedule(clock.now() + 30, () => fired.push(-1));
    cancel();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(fired).toHaveLength(1);
  });

  it('[SCN-02][EVL-13] a trusted reset one minute away: waits durably until it, then retries the same candidate once', async () => {
    const h = await withRoutes(['r1'], doc(off, waitsUpTo(300, off)));
    try {
      const outcome = await h.fail('r1', envelopes.quotaResetAt(t0 + 60_000));
      expect(outcome.route).toMatchObject({
        state: 'waiting_for_reset',
        deadlineMs: t0 + 60_000,
        pendingOutcome: 'stop',
      });
      await h.advance(59);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);
      await h.advance(60);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'reset_retry:a:1']);
      const again = await h.fail('r1', envelopes.quotaResetAt(t0 + 120_000));
      expect(again.route).toMatchObject({ state: 'action_required', reason: 'exhausted', candidate: 'a' });
    } finally {
      await h.close();
    }
  });

  it('[DUR-08][DUR-09] a profile edit leaves the pending timer and the history alone and applies from the next decision', async () => {
    const h = await withRoutes(['r1'], doc(retries(3, 5, 'skip'), off));
    try {
      await h.fail('r1', envelopes.overloaded);
      const attemptsBefore = await h.store.listAttempts('r1');
      const edited = await h.engine.saveProfile(profileDocument(doc(retries(1, 30, 'stop'), off)));
      expect(edited.version).toBe(2);
      expect(await h.route('r1')).toMatchObject({
        state: 'retry_wait',
        deadlineMs: t0 + 5000,
        pendingOutcome: 'skip',
        maxRetries: 3,
      });
      expect(await h.store.listAttempts('r1')).toEqual(attemptsBefore);
      await h.advance(5);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'retry:a:1']);
      // The next decision reads version 2: its one retry is already used, so it stops rather than skipping.
      const next = await h.fail('r1', envelopes.overloaded);
      expect(next.route).toMatchObject({ state: 'action_required', reason: 'exhausted' });
      const attempts = await h.store.listAttempts('r1');
      expect(attempts.map((a) => a.policySnapshot?.on_exhausted)).toEqual(['skip', 'stop']);
    } finally {
      await h.close();
    }
  });
});
