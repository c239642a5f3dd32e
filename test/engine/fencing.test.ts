import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { envelopes, harness, profileDocument, replayOf, type Harness } from './harness.js';
import type { Route } from '../../src/core/index.js';
import { RouteNotFoundError, type RouteOutcome } from '../../src/engine/index.js';
import { standardPolicy, t0 } from '../core/route/route-fixtures.js';

/** A route r1 on profile p, failed once with a transient overload: retry_wait, due at t0 + 5 s. */
async function waitingRoute(): Promise<Harness> {
  const h = await harness();
  await h.engine.saveProfile(profileDocument(standardPolicy));
  await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
  await h.engine.idle();
  await h.fail('r1', envelopes.overloaded);
  return h;
}

const execFileAsync = promisify(execFile);

const permutations = <T>(xs: readonly T[]): T[][] =>
  xs.length <= 1
    ? [[...xs]]
    : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));

describe('one transition owner: generation fencing', () => {
  for (const order of permutations(['timer', 'skip_now', 'cancel', 'late_failure'] as const)) {
    it(`[RTE-17] timer, manual actions and a late provider event racing at the deadline commit one outcome (${order.join(', ')})`, async () => {
      const h = await waitingRoute();
      try {
        const initial = (await h.store.listIntents('r1'))[0]!;
        const replay = replayOf(await h.route('r1'));
        const seen = h.events.length;
        h.clock.set(t0 + 5000);
        const racers: Promise<unknown>[] = [];
        for (const racer of order) {
          if (racer === 'timer') {
            h.clock.fireDue();
          } else if (racer === 'late_failure') {
            const late = {
              routeId: 'r1',
              generation: 1,
              invocationId: initial.id,
              evidence: envelopes.overloaded,
              replay,
            };
            racers.push(h.engine.reportFailure(late));
          } else {
            racers.push(
              h.engine.act({
                routeId: 'r1',
                action: racer,
                expectedGeneration: 1,
                expectedState: 'retry_wait',
              }),
            );
          }
        }
        const outcomes = (await Promise.all(racers)) as RouteOutcome[];
        await h.engine.idle();
        const after = h.events.slice(seen);
        const moved = after.filter((e) => e.type === 'transition' && e.from === 'retry_wait');
        expect(moved).toHaveLength(1);
        const winner = moved[0]!.type === 'transition' ? moved[0].decision : '';
        // Every caller that lost is refused; a timer that lost finds nothing due or is refused as stale.
        expect(outcomes.filter((o) => o.outcome === 'changed')).toHaveLength(winner === 'deadline' ? 0 : 1);
        const extraDispatches = h.dispatcher.sent.length - 1;
        expect(extraDispatches).toBe(winner === 'cancel' ? 0 : 1);
        await h.advance(3600);
        expect(h.dispatcher.sent.length - 1).toBe(extraDispatches);
      } finally {
        await h.close();
      }
    });
  }

  it('[RTE-17] two processes on one database acting on one route at the same instant commit exactly one outcome', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const h = await waitingRoute();
      try {
        const child = fileURLToPath(new URL('./fixtures/act-child.mjs', import.meta.url));
        const startAt = Date.now() + 700;
        const run = async (action: string) =>
          (await execFileAsync(process.execPath, [child, h.file, action, String(startAt), String(t0 + 2000)]))
            .stdout;
        const outputs = await Promise.all([run('retry_now'), run('skip_now')]);
        const lines = outputs
          .flatMap((o) => o.trim().split('\n'))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(
          lines
            .filter((l) => 'outcome' in l)
            .map((l) => l.outcome)
            .sort(),
        ).toEqual(['changed', 'refused']);
        expect(lines.filter((l) => 'dispatch' in l)).toHaveLength(1);
        expect((await h.store.listIntents('r1')).length).toBe(2);
      } finally {
        await h.close();
      }
    }
  });

  it('[RTE-17][RTE-20] a fenced write that finds the route moved (zero rows) is a stale outcome answered with the snapshot', async () => {
    let staleReads = 0;
    let stale: Route | null = null;
    // A read-committed store (PostgreSQL) can read a route that another node changes before this write: the
    // wrapper hands the engine such a stale read once, so that the fence in the UPDATE has to catch it.
    const h = await harness({
      wrapStore: (store) => ({
        ...store,
        migrate: () => store.migrate(),
        close: () => store.close(),
        readRoute: (id) => store.readRoute(id),
        listIntents: (id) => store.listIntents(id),
        dueRoutes: (n, l) => store.dueRoutes(n, l),
        earliestDeadline: () => store.earliestDeadline(),
        scheduledRoutes: () => store.scheduledRoutes(),
        awaitingRoutes: () => store.awaitingRoutes(),
        unresolvedIntents: () => store.unresolvedIntents(),
        storedIntents: (ids) => store.storedIntents(ids),
        transact: (work) =>
          store.transact((tx) =>
            work({
              ...tx,
              readRoute: async (id) => {
                if (stale !== null && staleReads++ === 0) return stale;
                return tx.readRoute(id);
              },
              insertRoute: (r) => tx.insertRoute(r),
              updateRoute: (r, f) => tx.updateRoute(r, f),
              appendAttempt: (a) => tx.appendAttempt(a),
              insertIntent: (i) => tx.insertIntent(i),
              resolveIntent: (i, o, at) => tx.resolveIntent(i, o, at),
              saveProfile: (p, at) => tx.saveProfile(p, at),
              readProfile: (id) => tx.readProfile(id),
              lockProfiles: () => tx.lockProfiles(),
              shareProfiles: () => tx.shareProfiles(),
              retiredProfileVersion: (id) => tx.retiredProfileVersion(id),
              retiredRouteGeneration: (id) => tx.retiredRouteGeneration(id),
              forgetRetiredRoutes: (before) => tx.forgetRetiredRoutes(before),
              readCircuits: (keys) => tx.readCircuits(keys),
              writeCircuit: (c, v) => tx.writeCircuit(c, v),
              confirmCircuitReads: () => tx.confirmCircuitReads(),
              saveReplaySnapshot: (r, g, e, at) => tx.saveReplaySnapshot(r, g, e, at),
              appendPlanError: (r) => tx.appendPlanError(r),
            }),
          ),
      }),
    });
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.idle();
      await h.fail('r1', envelopes.overloaded);
      const beforeCancel = await h.route('r1');
      await h.engine.act({ routeId: 'r1', action: 'cancel', expectedGeneration: 1 });
      stale = beforeCancel;
      const outcome = await h.engine.act({
        routeId: 'r1',
        action: 'skip_now',
        expectedGeneration: 1,
        expectedState: 'retry_wait',
      });
      expect(outcome).toMatchObject({
        outcome: 'refused',
        reason: 'stale_generation',
        route: { state: 'action_required', reason: 'cancelled' },
      });
      await h.engine.idle();
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);
    } finally {
      await h.close();
    }
  });

  it('[RTE-19][RTE-20] a manual action with a stale generation changes nothing and returns the authoritative snapshot', async () => {
    const h = await waitingRoute();
    try {
      const skipped = await h.engine.act({ routeId: 'r1', action: 'skip_now', expectedGeneration: 1 });
      expect(skipped).toMatchObject({
        outcome: 'changed',
        route: { state: 'switching', nextCandidate: 'b', generation: 2 },
      });
      await h.engine.idle();
      const stale = await h.engine.act({ routeId: 'r1', action: 'stop', expectedGeneration: 1 });
      expect(stale).toEqual<RouteOutcome>({
        outcome: 'refused',
        reason: 'stale_generation',
        detail: 'expected generation 1, the route is at 2',
        route: await h.route('r1'),
        classification: null,
      });
    } finally {
      await h.close();
    }
  });

  it('[RTE-21][RTE-11] cancelling a pending wait stops its timer from dispatching; cancelling again changes nothing', async () => {
    const h = await waitingRoute();
    try {
      const first = await h.engine.act({ routeId: 'r1', action: 'cancel', expectedGeneration: 1 });
      expect(first.route).toMatchObject({ state: 'action_required', reason: 'cancelled', generation: 1 });
      const again = await h.engine.act({ routeId: 'r1', action: 'cancel', expectedGeneration: 1 });
      expect(again).toMatchObject({ outcome: 'unchanged', route: first.route });
      await h.advance(3600);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);
    } finally {
      await h.close();
    }
  });

  it('[RTE-19] a provider event of an earlier attempt of the same generation is refused (stale invocation)', async () => {
    const h = await waitingRoute();
    try {
      const initial = (await h.store.listIntents('r1'))[0]!;
      await h.advance(5);
      const late = await h.engine.reportSuccess({ routeId: 'r1', generation: 1, invocationId: initial.id });
      expect(late).toMatchObject({
        outcome: 'refused',
        reason: 'stale_invocation',
        route: { state: 'retrying' },
      });
      await expect(h.engine.reportSuccess({ routeId: 'nope', generation: 1 })).rejects.toBeInstanceOf(
        RouteNotFoundError,
      );
    } finally {
      await h.close();
    }
  });
});
