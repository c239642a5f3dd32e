import { describe, expect, it } from 'vitest';
import { eventOf, fixtureFiles, givenRoutes, runCase, worldAt } from './decision-runner.js';
import { routesInEveryState } from './route-fixtures.js';
import { decide, routeStates, type Route } from '../../../src/core/index.js';

const given = givenRoutes();

// Every route decision has fixtures (`fixtures/*.json`), replayed by this one runner.
for (const { file, cases } of fixtureFiles(new URL('./fixtures/', import.meta.url))) {
  describe(`route decisions: ${file}`, () => {
    for (const c of cases) it(c.name, () => runCase(c, given));
  });
}

describe('route decisions: every (state, trigger) pair the table does not allow is refused and changes nothing', () => {
  // One route per state; the triggers a person, a timer, the dispatcher or an agent can send it.
  const states = routesInEveryState();
  const triggers = {
    failure: { type: 'failure', evidence: 'overloaded' },
    success: { type: 'success' },
    deadline: { type: 'deadline' },
    acknowledged: { type: 'dispatch_result', result: 'acknowledged' },
    ambiguous: { type: 'dispatch_result', result: 'ambiguous' },
    retry_now: { type: 'action', action: 'retry_now' },
    skip_now: { type: 'action', action: 'skip_now' },
    cancel: { type: 'action', action: 'cancel' },
    stop: { type: 'action', action: 'stop' },
    prompt: { type: 'prompt' },
    restart: { type: 'restart' },
  } as const;
  // Which triggers each state accepts (any outcome but refused); every other pair must be refused.
  const accepted: Record<Route['state'], readonly (keyof typeof triggers)[]> = {
    active: ['failure', 'success', 'stop', 'prompt', 'restart'],
    waiting_for_reset: ['deadline', 'retry_now', 'skip_now', 'cancel', 'stop', 'restart'],
    retry_wait: ['deadline', 'retry_now', 'skip_now', 'cancel', 'stop', 'restart'],
    retrying: ['failure', 'success', 'acknowledged', 'ambiguous', 'cancel', 'stop', 'restart'],
    switching: ['failure', 'success', 'acknowledged', 'ambiguous', 'cancel', 'stop', 'restart'],
    action_required: ['retry_now', 'skip_now', 'cancel', 'stop', 'prompt', 'restart'],
  };
  for (const state of routeStates) {
    for (const [name, trigger] of Object.entries(triggers)) {
      const ok = accepted[state].includes(name as keyof typeof triggers);
      it(`[RTE-14] ${state} + ${name}: ${ok ? 'accepted' : 'refused, nothing changes'}`, () => {
        const route = states[state];
        const snapshot = structuredClone(route);
        const at = state === 'waiting_for_reset' ? 61 : 400;
        const d = decide(route, eventOf(trigger, route, at), worldAt(at, undefined, route));
        if (ok) expect(d.outcome).not.toBe('refused');
        else {
          expect(d.outcome).toBe('refused');
          expect(d.route).toBe(route);
        }
        expect(route).toEqual(snapshot);
      });
    }
  }

  it('[RTE-19][RTE-20] an action with a stale expected generation is refused in every state, with the snapshot', () => {
    for (const route of Object.values(states)) {
      for (const action of ['retry_now', 'skip_now', 'cancel', 'stop'] as const) {
        const event = { type: 'action', action, expectedGeneration: route.generation + 1 } as const;
        const d = decide(route, event, worldAt(2, undefined, route));
        expect(d).toMatchObject({ outcome: 'refused', route, reason: 'stale_generation' });
      }
    }
  });

  it('[RTE-01] the route state machine has exactly the six states of the seed', () => {
    expect([...routeStates]).toEqual([
      'active',
      'waiting_for_reset',
      'retry_wait',
      'retrying',
      'switching',
      'action_required',
    ]);
    expect(Object.keys(states).sort()).toEqual([...routeStates].sort());
  });

  it('[RTE-16] the generation advances only when a new candidate attempt begins', () => {
    const { active, retry_wait, waiting_for_reset, retrying, action_required, switching } = states;
    expect(
      [active, retry_wait, waiting_for_reset, retrying, action_required].map((r) => r.generation),
    ).toEqual([1, 1, 1, 1, 1]);
    expect(switching.generation).toBe(2);
  });
});
