import { describe, expect, it } from 'vitest';
import { envelopes, harness, profileDocument, replayOf } from './harness.js';
import type { EvidenceEnvelope, Route } from '../../src/core/index.js';
import {
  EngineInputError,
  ProfileNotFoundError,
  RouteExistsError,
  RouteNotFoundError,
} from '../../src/engine/index.js';
import { standardPolicy } from '../core/route/route-fixtures.js';

/** The route without what differs by construction between two callers: id, caller kind and intent ids. */
function comparable(route: Route) {
  const { id: _id, caller: _caller, dispatch, ...rest } = route;
  return { ...rest, dispatch: dispatch === null ? null : { ...dispatch, intentId: '-' } };
}

describe('every caller goes through the same evaluator', () => {
  it('[CAL-03][CAL-02][CAL-06][SCN-10] a task and an office session on one dynamic profile: one failure, identical transitions', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      for (const [id, caller] of [
        ['task-1', 'task'],
        ['office-1', 'office'],
        ['workflow-1', 'workflow'],
        ['plan-1', 'plan'],
      ] as const) {
        await h.engine.startRoute({ routeId: id, profileId: 'p', caller });
      }
      await h.engine.idle();
      const seen = h.events.length;
      for (const id of ['task-1', 'office-1', 'workflow-1', 'plan-1']) await h.fail(id, envelopes.overloaded);
      await h.advance(5);
      for (const id of ['task-1', 'office-1', 'workflow-1', 'plan-1'])
        await h.fail(id, envelopes.quotaResetAt(Date.parse('2026-06-01T12:01:00Z')));
      const trail = (id: string) =>
        h.events
          .slice(seen)
          .flatMap((e) =>
            e.type === 'transition' && e.route.id === id ? [[e.decision, comparable(e.route)]] : [],
          );
      const task = trail('task-1');
      expect(task.map(([d]) => d)).toEqual(['retry', 'deadline', 'wait_for_reset']);
      for (const other of ['office-1', 'workflow-1', 'plan-1']) expect(trail(other)).toEqual(task);
      const attempts = async (id: string) =>
        (await h.store.listAttempts(id)).map(({ seq: _s, routeId: _r, ...a }) => a);
      for (const other of ['office-1', 'workflow-1', 'plan-1'])
        expect(await attempts(other)).toEqual(await attempts('task-1'));
    } finally {
      await h.close();
    }
  });

  it('[CAL-01][CAL-07] a concrete profile and a dynamic profile share the catalogue and the evaluator: the same failure, the same class and timing', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await h.engine.startRoute({ routeId: 'dynamic-1', profileId: 'p' });
      await h.engine.startRoute({ routeId: 'concrete-1', profileId: 'a', mode: 'interactive' });
      await h.engine.idle();
      const shortHint: EvidenceEnvelope = {
        kind: 'http',
        status: 429,
        provider: 'openai',
        headers: { 'retry-after': '7' },
        body: '{"error":{"type":"rate_limit_exceeded","code":"rate_limit_exceeded","message":"Rate limit reached"}}',
      };
      for (const id of ['dynamic-1', 'concrete-1']) await h.fail(id, shortHint);
      const [dynamic] = await h.store.listAttempts('dynamic-1');
      const [concrete] = await h.store.listAttempts('concrete-1');
      const shared = ({ code, failureClass, rule, catalogueVersion }: typeof dynamic & object) => ({
        code,
        failureClass,
        rule,
        catalogueVersion,
      });
      expect(shared(concrete!)).toEqual(shared(dynamic!));
      // The concrete entry's product default (a hint within 60 s replaces the delay) over the same timing.
      expect(await h.route('concrete-1')).toMatchObject({
        state: 'retry_wait',
        deadlineMs: dynamic!.atMs + 7000,
      });
      expect(await h.route('dynamic-1')).toMatchObject({
        state: 'retry_wait',
        deadlineMs: dynamic!.atMs + 5000,
      });
    } finally {
      await h.close();
    }
  });

  it('[CAL-10][CAL-11] an Office session wakes the route only through the same events: its policy is never modified', async () => {
    const h = await harness();
    try {
      const saved = await h.engine.saveProfile(profileDocument(standardPolicy));
      await h.engine.startRoute({ routeId: 'office-1', profileId: 'p', caller: 'office' });
      await h.engine.idle();
      await h.fail('office-1', envelopes.overloaded);
      // A scheduler waking the session early reads the route and acts like anyone else; it has no policy input.
      const woken = await h.engine.act({ routeId: 'office-1', action: 'retry_now', expectedGeneration: 1 });
      expect(woken).toMatchObject({ outcome: 'changed', route: { state: 'retrying' } });
      await h.advance(60);
      expect(await h.store.readProfile('p')).toEqual(saved);
      expect(await h.route('office-1')).toMatchObject({ caller: 'office', state: 'retrying' });
    } finally {
      await h.close();
    }
  });

  it('[CAL-08][CAL-05] each utility call routes under its own invocation id; reusing one is refused', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      const a = await h.engine.startRoute({ routeId: 'util-0193-a', profileId: 'p', caller: 'utility' });
      const b = await h.engine.startRoute({ routeId: 'util-0193-b', profileId: 'p', caller: 'utility' });
      expect([a.id, b.id]).toEqual(['util-0193-a', 'util-0193-b']);
      await expect(
        h.engine.startRoute({ routeId: 'util-0193-a', profileId: 'p', caller: 'utility' }),
      ).rejects.toBeInstanceOf(RouteExistsError);
      const generated = await h.engine.startRoute({ profileId: 'p', caller: 'utility' });
      expect(generated.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    } finally {
      await h.close();
    }
  });

  it('[CAL-09][SAF-04] a utility call recovers only before any partial result', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await h.engine.startRoute({ routeId: 'util-1', profileId: 'p', caller: 'utility' });
      await h.engine.idle();
      const outcome = await h.fail('util-1', envelopes.overloaded, [{ kind: 'partial_result' }]);
      expect(outcome.route).toMatchObject({
        state: 'action_required',
        reason: 'unsafe',
        detail: 'partial_result',
      });
    } finally {
      await h.close();
    }
  });

  it('[SCN-07][SAF-08] a failure after tool activity stops for manual recovery whatever the policy says', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.idle();
      const outcome = await h.fail('r1', envelopes.overloaded, [{ kind: 'tool_call' }]);
      expect(outcome.route).toMatchObject({
        state: 'action_required',
        reason: 'unsafe',
        detail: 'tool_activity',
      });
      await h.advance(3600);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);
    } finally {
      await h.close();
    }
  });
});

describe('bad input to the engine gets a field-addressed error and changes nothing', () => {
  it('rejects a malformed envelope, a bad generation, a hostile id and an unknown action', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.idle();
      const route = await h.route('r1');
      const errorOf = async (p: Promise<unknown>) => {
        try {
          await p;
        } catch (error) {
          if (error instanceof EngineInputError) return error.issues;
          throw error;
        }
        throw new Error('expected an EngineInputError');
      };
      expect(
        await errorOf(
          h.engine.reportFailure({
            routeId: 'r1',
            generation: 1,
            evidence: { kind: 'http', status: 'x' } as never,
          }),
        ),
      ).toEqual([{ path: '/evidence/status', message: expect.stringContaining('status') as string }]);
      expect(
        (
          await errorOf(
            h.engine.reportFailure({ routeId: 'r1', generation: 0.5, evidence: envelopes.overloaded }),
          )
        )[0]!.path,
      ).toBe('/generation');
      expect(
        (await errorOf(h.engine.reportSuccess({ routeId: '../../etc/passwd\u0000', generation: 1 })))[0]!
          .path,
      ).toBe('/route_id');
      const bad = {
        routeId: 'r1',
        action: 'explode',
        expectedGeneration: 1,
        expectedState: 'nowhere',
      } as unknown as Parameters<typeof h.engine.act>[0];
      expect((await errorOf(h.engine.act(bad))).map((i) => i.path)).toEqual(['/action', '/expected_state']);
      expect(
        (await errorOf(h.engine.saveProfile({ id: 'p', name: 'x', version: 1, candidates: [] })))[0]!.path,
      ).toBe('/candidates');
      await expect(
        h.engine.act({ routeId: 'ghost', action: 'stop', expectedGeneration: 1 }),
      ).rejects.toBeInstanceOf(RouteNotFoundError);
      await expect(h.engine.startRoute({ profileId: 'no-such-profile' })).rejects.toBeInstanceOf(
        ProfileNotFoundError,
      );
      expect(await h.route('r1')).toEqual(route);
      expect(await h.store.listAttempts('r1')).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('[DAT-13] a credential in the evidence reaches neither the route, the attempt nor the events', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.idle();
      const secret = `sk-ant-api03-${'Z'.repeat(40)}`;
      await h.engine.reportFailure({
        routeId: 'r1',
        generation: 1,
        evidence: {
          ...envelopes.overloaded,
          headers: { 'x-api-key': secret },
          body: `${envelopes.overloaded.body} key=${secret}`,
        },
        replay: replayOf(await h.route('r1')),
      });
      await h.engine.idle();
      const everything = JSON.stringify([await h.route('r1'), await h.store.listAttempts('r1'), h.events]);
      expect(everything).toContain('provider_overloaded');
      expect(everything).not.toContain(secret);
    } finally {
      await h.close();
    }
  });
});
