import { describe, expect, it } from 'vitest';
import type { DispatchIntent } from '../../src/core/index.js';
import { demoDispatcher, formatFleetSummary, type FleetSummary } from '../../src/demo/index.js';
import type { DemoAttempt } from '../../src/demo/demo-dispatcher.js';
import { countByState } from '../../src/demo/fleet-summary.js';

const intent = (id: string): DispatchIntent => ({
  id,
  routeId: 'demo-s01-t0001',
  generation: 1,
  candidate: 'review-main',
  kind: 'retry',
  createdAtMs: 0,
});

/** Whether the promise settled by the next turn of the event loop. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('the demo dispatcher', () => {
  it('holds attempts sent before the fleet attaches, and accepts only when the agent does', async () => {
    const dispatcher = demoDispatcher();
    const early = dispatcher.dispatch(intent('i1'), null);
    const taken: DemoAttempt[] = [];
    dispatcher.attach((attempt) => taken.push(attempt));
    expect(taken.map((a) => a.intent.id)).toEqual(['i1']);
    expect(await settled(early)).toBe(false);
    taken[0]!.accept();
    taken[0]!.accept(); // at most once
    expect(await settled(early)).toBe(true);
  });

  it('accepts everything still open on detach, and later attempts at once: a clean close leaves no ambiguity', async () => {
    const dispatcher = demoDispatcher();
    dispatcher.attach(() => undefined);
    const running = dispatcher.dispatch(intent('i1'), null);
    dispatcher.detach();
    expect(await settled(running)).toBe(true);
    expect(await settled(dispatcher.dispatch(intent('i2'), null))).toBe(true);
  });
});

describe('the fleet summary', () => {
  it('counts every state and makes one status line of it', () => {
    const byState = countByState([{ state: 'active' }, { state: 'active' }, { state: 'retry_wait' }]);
    expect(byState).toEqual({
      active: 2,
      waiting_for_reset: 0,
      retry_wait: 1,
      retrying: 0,
      switching: 0,
      action_required: 0,
    });
    const summary: FleetSummary = {
      routes: 3,
      byState,
      recovered: 4,
      switched: 1,
      stopped: 2,
      operatorActions: 2,
    };
    expect(formatFleetSummary(summary)).toBe(
      '3 routes: 2 active, 1 retry_wait | since start: 4 recovered, 1 switched, 2 stopped, 2 operator actions',
    );
  });
});
