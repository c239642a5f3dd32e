import { describe, expect, it } from 'vitest';
import { envelopes, harness, profileDocument, replayOf } from './harness.js';
import type { Store } from '../../src/core/index.js';
import { standardPolicy } from '../core/route/route-fixtures.js';

/**
 * The engine's state machine and timers as a hostile reviewer drives them: reads and commits interleaved at the
 * worst moment, on a real SQLite file. Each case failed before its fix.
 */

/** The store with its `earliestDeadline` read held open until `release` (a slow read: a PostgreSQL round trip). */
function slowDeadlineReads() {
  const gate = { held: null as Promise<void> | null, release: () => undefined as void, reads: 0 };
  const hold = () => {
    gate.held = new Promise<void>((resolve) => {
      gate.release = () => {
        gate.held = null;
        resolve();
      };
    });
  };
  const wrap = (store: Store): Store =>
    new Proxy(store, {
      get(target, property, receiver) {
        if (property !== 'earliestDeadline') {
          const value = Reflect.get(target, property, receiver) as unknown;
          return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
        }
        return async () => {
          const read = await target.earliestDeadline();
          const held = gate.held;
          if (held !== null) {
            gate.reads++;
            await held;
          }
          return read;
        };
      },
    });
  return { gate, hold, wrap };
}

describe('timers are never lost', () => {
  it('[DUR-01][RTE-08] a retry committed while the timer is re-armed after a cancel still fires', async () => {
    const slow = slowDeadlineReads();
    const h = await harness({ wrapStore: slow.wrap });
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.startRoute({ routeId: 'r2', profileId: 'p' });
      await h.engine.idle();
      await h.fail('r1', envelopes.overloaded);
      // Cancelling r1's wait re-arms the timer from the stored deadlines; that read sees none and is held open...
      slow.hold();
      await h.engine.act({ routeId: 'r1', action: 'cancel', expectedGeneration: 1 });
      while (slow.gate.reads === 0) await new Promise((resolve) => setImmediate(resolve));
      // ...while r2's failure commits a retry 5 s away and arms the timer for it.
      const r2 = await h.route('r2');
      const failed = await h.engine.reportFailure({
        routeId: 'r2',
        generation: 1,
        invocationId: r2.dispatch!.intentId,
        evidence: envelopes.overloaded,
        replay: replayOf(r2),
      });
      expect(failed.route).toMatchObject({ state: 'retry_wait', deadlineMs: r2.updatedAtMs + 5000 });
      // The read answers with what it saw before r2's retry: the timer must still fire for r2.
      slow.gate.release();
      await h.engine.idle();
      expect(h.engine.armedFor()).toBe(r2.updatedAtMs + 5000);
      await h.advance(3600);
      expect((await h.route('r2')).state).toBe('retrying');
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1', 'initial:a:1', 'retry:a:1']);
    } finally {
      slow.gate.release();
      await h.close();
    }
  });
});
