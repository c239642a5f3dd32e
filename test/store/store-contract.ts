import { describe, expect, it } from 'vitest';
import {
  createErrorRecoveryPolicy,
  mergeErrorDetails,
  newPlan,
  recordPlanError,
  revise,
  type AttemptRecord,
  type DynamicProfile,
  type Route,
  type Store,
} from '../../src/core/index.js';
import { givenRoutes } from '../core/route/decision-runner.js';
import { openCircuit, routesInEveryState, standardPolicy, t0 } from '../core/route/route-fixtures.js';

/**
 * The Store contract: every adapter (SQLite now, PostgreSQL next) passes the same suite. `open` opens the same
 * database each time it is called (a reopen is a restart); `fresh` gives an empty one.
 */
export function storeContract(
  name: string,
  adapter: { fresh: () => Promise<{ open: () => Promise<Store> }> },
): void {
  describe(`Store contract: ${name}`, () => {
    /** Version 1 of dynamic profile `p`, one candidate on the standard policy. */
    const profileV1: DynamicProfile = {
      id: 'p',
      name: 'P',
      version: 1,
      candidates: [{ profile_id: 'a', enabled: true, policy: standardPolicy }],
    };
    const withStore = async (
      run: (store: Store, reopen: () => Promise<Store>) => Promise<void>,
    ): Promise<void> => {
      const { open } = await adapter.fresh();
      let store = await open();
      try {
        await run(store, async () => {
          await store.close();
          store = await open();
          return store;
        });
      } finally {
        await store.close();
      }
    };

    it('applies numbered migrations once', async () => {
      const { open } = await adapter.fresh();
      const store = await open();
      try {
        expect(await store.migrate()).toEqual([]);
      } finally {
        await store.close();
      }
    });

    it('[DUR-07][DAT-10] a route in every state survives a restart exactly, with its decision fields', async () => {
      await withStore(async (store, reopen) => {
        const routes = Object.values(routesInEveryState()).map((r, i) => ({ ...r, id: `r${i}` }));
        await store.transact(async (tx) => {
          for (const r of routes) await tx.insertRoute(r);
        });
        const again = await reopen();
        for (const r of routes) expect(await again.readRoute(r.id)).toEqual(r);
        expect(await again.countRoutes()).toEqual({
          active: 1,
          waiting_for_reset: 1,
          retry_wait: 1,
          retrying: 1,
          switching: 1,
          action_required: 1,
        });
      });
    });

    it('[CIR-05] a waiting route held by a circuit keeps that mark; one waiting for its own policy has none', async () => {
      await withStore(async (store, reopen) => {
        const { retry_wait, waiting_for_reset } = routesInEveryState();
        const held = [
          { ...retry_wait, id: 'held-retry', heldByCircuit: true },
          { ...waiting_for_reset, id: 'held-reset', heldByCircuit: true },
        ] as Route[];
        const own = [
          { ...retry_wait, id: 'own-retry' },
          { ...waiting_for_reset, id: 'own-reset' },
        ];
        await store.transact(async (tx) => {
          for (const r of [...held, ...own]) await tx.insertRoute(r);
        });
        const reopened = await reopen();
        for (const r of [...held, ...own]) expect(await reopened.readRoute(r.id)).toEqual(r);
        expect(own.map((r) => 'heldByCircuit' in r)).toEqual([false, false]);
      });
    });

    it('[RTE-16][RTE-17] a write is fenced by generation, state and revision: a stale writer changes nothing', async () => {
      await withStore(async (store) => {
        const { retry_wait: r } = routesInEveryState();
        await store.transact((tx) => tx.insertRoute(r));
        const next = { ...r, revision: r.revision + 1, updatedAtMs: r.updatedAtMs + 1 };
        const fence = { generation: r.generation, state: r.state, revision: r.revision };
        const results = await store.transact(async (tx) => [
          await tx.updateRoute(next, { ...fence, generation: r.generation + 1 }),
          await tx.updateRoute(next, { ...fence, state: 'active' }),
          await tx.updateRoute(next, { ...fence, revision: r.revision - 1 }),
        ]);
        expect(results).toEqual([false, false, false]);
        expect(await store.readRoute(r.id)).toEqual(r);
        expect(await store.transact((tx) => tx.updateRoute(next, fence))).toBe(true);
        expect(await store.transact((tx) => tx.updateRoute(next, fence))).toBe(false);
        expect(await store.readRoute(r.id)).toEqual(next);
      });
    });

    it('[RTE-16][RTE-17][DUR-05] a transaction that names its routes reads, fences and writes them as one that does not', async () => {
      await withStore(async (store, reopen) => {
        const s = routesInEveryState();
        const r = { ...s.retry_wait, id: 'r', payload: { task: 'keep me' } } as Route;
        const fenceOf = (x: Route) => ({ generation: x.generation, state: x.state, revision: x.revision });
        const intent = (id: string, routeId: string) => ({
          id,
          routeId,
          generation: 1,
          candidate: 'a',
          kind: 'retry' as const,
          createdAtMs: t0,
        });
        await store.transact(async (tx) => {
          await tx.insertRoute(r);
          await tx.insertIntent(intent('i1', 'r'));
        });
        const next = { ...r, revision: r.revision + 1, updatedAtMs: r.updatedAtMs + 1 };
        const later = { ...next, revision: next.revision + 1, updatedAtMs: next.updatedAtMs + 1 };
        const fresh = { ...s.active, id: 'n' } as Route;
        const freshNext = { ...fresh, revision: fresh.revision + 1 };
        const seen = await store.transact(
          async (tx) => [
            await tx.readRoute('r'),
            await tx.updateRoute(next, { ...fenceOf(r), generation: r.generation + 1 }),
            await tx.updateRoute(next, { ...fenceOf(r), state: 'active' }),
            await tx.updateRoute(next, fenceOf(r)),
            await tx.readRoute('r'),
            await tx.updateRoute(later, fenceOf(r)),
            await tx.updateRoute(later, fenceOf(next)),
            await tx.readRoute('n'),
            await tx.insertRoute(fresh),
            await tx.updateRoute(freshNext, fenceOf(fresh)),
            await tx.readRoute('n'),
            await tx.insertIntent(intent('i2', 'n')),
            await tx.resolveIntent('i2', 'acknowledged', t0 + 1),
            await tx.resolveIntent('i2', 'ambiguous', t0 + 2),
            await tx.resolveIntent('i1', 'ambiguous', t0 + 3),
            await tx.resolveIntent('i1', 'acknowledged', t0 + 4),
            await tx.resolveIntent('missing', 'ambiguous', t0 + 5),
            await tx.appendAttempt(attempt('r', 1)),
            await tx.appendAttempt(attempt('r', 2)),
          ],
          { routeIds: ['r', 'n', 'r'] },
        );
        expect(seen).toEqual([
          r,
          false,
          false,
          true,
          next,
          false,
          true,
          null,
          undefined,
          true,
          freshNext,
          undefined,
          true,
          false,
          true,
          false,
          false,
          undefined,
          undefined,
        ]);
        const again = await reopen();
        expect(await again.readRoute('r')).toEqual(later);
        expect(await again.readRoute('n')).toEqual(freshNext);
        expect(await again.listIntents('r')).toEqual([
          { ...intent('i1', 'r'), outcome: 'ambiguous', resolvedAtMs: t0 + 3 },
        ]);
        expect(await again.listIntents('n')).toEqual([
          { ...intent('i2', 'n'), outcome: 'acknowledged', resolvedAtMs: t0 + 1 },
        ]);
        expect((await again.listAttempts('r')).map((a) => a.retryOrdinal)).toEqual([1, 2]);
        // A planned transaction that fails leaves its routes, intents and history as they were.
        await expect(
          again.transact(
            async (tx) => {
              await tx.updateRoute({ ...later, revision: later.revision + 1 }, fenceOf(later));
              await tx.appendAttempt(attempt('r', 3));
              throw new Error('disk full');
            },
            { routeIds: ['r'] },
          ),
        ).rejects.toThrow('disk full');
        expect(await again.readRoute('r')).toEqual(later);
        expect(await again.listAttempts('r')).toHaveLength(2);
      });
    });

    it('[DUR-04] a transaction that fails writes nothing', async () => {
      await withStore(async (store) => {
        const { retry_wait: r } = routesInEveryState();
        await expect(
          store.transact(async (tx) => {
            await tx.insertRoute(r);
            await tx.appendAttempt(attempt(r.id, 1));
            throw new Error('disk full');
          }),
        ).rejects.toThrow('disk full');
        expect(await store.readRoute(r.id)).toBeNull();
        expect(await store.listAttempts(r.id)).toEqual([]);
      });
    });

    it('[DAT-11][DAT-12] attempts are append-only, in order, each with its own policy snapshot', async () => {
      await withStore(async (store, reopen) => {
        await store.transact(async (tx) => {
          await tx.appendAttempt(attempt('r1', 1));
          await tx.appendAttempt({
            ...attempt('r1', 2),
            policySnapshot: null,
            decision: 'reject:unsafe:tool_activity',
          });
          await tx.appendAttempt(attempt('other', 1));
        });
        const attempts = await (await reopen()).listAttempts('r1');
        expect(attempts.map((a) => [a.retryOrdinal, a.decision])).toEqual([
          [1, 'retry'],
          [2, 'reject:unsafe:tool_activity'],
        ]);
        expect(attempts[0]).toMatchObject({ ...attempt('r1', 1), seq: expect.any(Number) as number });
        expect(attempts[1]!.seq).toBeGreaterThan(attempts[0]!.seq);
      });
    });

    it('[CLS-22][DAT-11] an attempt keeps the code, class, rule and catalogue version it was decided with, whatever the catalogue is now', async () => {
      await withStore(async (store, reopen) => {
        // A row written under an older catalogue, whose rule the current one no longer has.
        const old = {
          ...attempt('r1', 1),
          catalogueVersion: '2025.01.01-1',
          rule: 'retired.rule.v1',
          code: 'model_capacity',
          note: null,
        };
        await store.transact((tx) => tx.appendAttempt(old));
        const [stored] = await (await reopen()).listAttempts('r1');
        expect(stored).toMatchObject({
          catalogueVersion: '2025.01.01-1',
          rule: 'retired.rule.v1',
          code: 'model_capacity',
          failureClass: 'transient',
        });
      });
    });

    it('[DUR-10] deadlines are absolute UTC epoch ms: the due query and the earliest deadline read them back', async () => {
      await withStore(async (store) => {
        const s = routesInEveryState();
        const a = { ...s.retry_wait, id: 'a', deadlineMs: t0 + 5000 } as Route;
        const b = { ...s.waiting_for_reset, id: 'b', deadlineMs: t0 + 2000 } as Route;
        await store.transact(async (tx) => {
          for (const r of [a, b, { ...s.active, id: 'c' }]) await tx.insertRoute(r);
        });
        expect(await store.earliestDeadline()).toBe(t0 + 2000);
        expect(await store.dueRoutes(t0 + 1999, 10)).toEqual([]);
        expect(await store.dueRoutes(t0 + 5000, 10)).toEqual([
          { id: 'b', generation: 1, deadlineMs: t0 + 2000 },
          { id: 'a', generation: 1, deadlineMs: t0 + 5000 },
        ]);
        expect(await store.dueRoutes(t0 + 5000, 1)).toHaveLength(1);
        expect((await store.scheduledRoutes()).map((r) => r.id).sort()).toEqual(['a', 'b']);
        // A closed circuit's instants find exactly the routes waiting until one of them.
        expect(await store.routesWaitingUntil([t0 + 2000, t0 + 3000])).toEqual([
          { id: 'b', generation: 1, deadlineMs: t0 + 2000 },
        ]);
        expect(await store.routesWaitingUntil([])).toEqual([]);
      });
    });

    it('[DUR-01][RTE-16] two stores claiming due routes at once never get the same route; each is claimed once', async () => {
      const { open } = await adapter.fresh();
      const [a, b] = [await open(), await open()];
      try {
        const s = routesInEveryState();
        const due = Array.from(
          { length: 24 },
          (_, i) => ({ ...s.retry_wait, id: `d${String(i).padStart(2, '0')}`, deadlineMs: t0 + i }) as Route,
        );
        await a.transact(async (tx) => {
          for (const r of due) await tx.insertRoute(r);
          await tx.insertRoute({ ...s.retry_wait, id: 'later', deadlineMs: t0 + 60_000 } as Route);
          await tx.insertRoute({ ...s.active, id: 'running' });
        });
        const claimed: string[][] = [[], []];
        for (let round = 0; round < 6; round++) {
          const [x, y] = await Promise.all([
            a.claimDueRoutes({ owner: 'node-a', nowMs: t0 + 1000, leaseMs: 30_000, limit: 5 }),
            b.claimDueRoutes({ owner: 'node-b', nowMs: t0 + 1000, leaseMs: 30_000, limit: 5 }),
          ]);
          claimed[0]!.push(...x.map((r) => r.id));
          claimed[1]!.push(...y.map((r) => r.id));
        }
        const all = [...claimed[0]!, ...claimed[1]!];
        expect(new Set(all).size).toBe(all.length);
        expect(all.sort()).toEqual(due.map((r) => r.id));
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('[DUR-01] a claim holds its lease; an expired lease is claimable again, earliest first', async () => {
      await withStore(async (store) => {
        const s = routesInEveryState();
        const early = { ...s.retry_wait, id: 'b', deadlineMs: t0 + 100 } as Route;
        const late = { ...s.waiting_for_reset, id: 'a', deadlineMs: t0 + 200 } as Route;
        await store.transact(async (tx) => {
          for (const r of [late, early]) await tx.insertRoute(r);
        });
        const claim = (owner: string, nowMs: number) =>
          store.claimDueRoutes({ owner, nowMs, leaseMs: 1000, limit: 10 });
        expect(await claim('dead-node', t0 + 99)).toEqual([]);
        expect(await claim('dead-node', t0 + 500)).toEqual([
          { id: 'b', generation: 1, deadlineMs: t0 + 100 },
          { id: 'a', generation: 1, deadlineMs: t0 + 200 },
        ]);
        expect(await claim('survivor', t0 + 1499)).toEqual([]);
        expect((await claim('survivor', t0 + 1500)).map((r) => r.id)).toEqual(['b', 'a']);
        // Claims change nothing a route reader sees.
        expect(await store.readRoute('b')).toEqual(early);
      });
    });

    it('[RTE-16][RTE-17] a claim fences nothing: the firing still needs its generation, and a new write frees the lease', async () => {
      await withStore(async (store) => {
        const r = { ...routesInEveryState().retry_wait, deadlineMs: t0 + 100 } as Route;
        await store.transact((tx) => tx.insertRoute(r));
        const [claimed] = await store.claimDueRoutes({
          owner: 'n1',
          nowMs: t0 + 100,
          leaseMs: 60_000,
          limit: 1,
        });
        expect(claimed).toEqual({ id: r.id, generation: r.generation, deadlineMs: t0 + 100 });
        // Another writer moved the route on (a manual retry: a new generation and deadline) before n1 fired it.
        const moved = {
          ...r,
          generation: r.generation + 1,
          revision: r.revision + 1,
          deadlineMs: t0 + 200,
        } as Route;
        const fence = { generation: r.generation, state: r.state, revision: r.revision };
        expect(await store.transact((tx) => tx.updateRoute(moved, fence))).toBe(true);
        const stale = { ...r, state: 'retrying', retryOrdinal: 1, dispatch: null } as unknown as Route;
        expect(
          await store.transact((tx) =>
            tx.updateRoute(stale, { generation: claimed!.generation, state: r.state, revision: r.revision }),
          ),
        ).toBe(false);
        expect(await store.readRoute(r.id)).toEqual(moved);
        // The write freed n1's lease: the new deadline is claimable at once, with its new generation.
        expect(
          await store.claimDueRoutes({ owner: 'n2', nowMs: t0 + 200, leaseMs: 60_000, limit: 1 }),
        ).toEqual([{ id: r.id, generation: r.generation + 1, deadlineMs: t0 + 200 }]);
      });
    });

    it('[DUR-05][DUR-06] dispatch intents resolve exactly once; unresolved ones are listed for reconciliation', async () => {
      await withStore(async (store) => {
        const intent = (id: string, at: number) => ({
          id,
          routeId: 'r1',
          generation: 1,
          candidate: 'a',
          kind: 'retry' as const,
          createdAtMs: at,
        });
        await store.transact(async (tx) => {
          await tx.insertIntent(intent('i1', t0));
          await tx.insertIntent(intent('i2', t0 + 1));
        });
        expect(await store.transact((tx) => tx.resolveIntent('i1', 'acknowledged', t0 + 5))).toBe(true);
        expect(await store.transact((tx) => tx.resolveIntent('i1', 'ambiguous', t0 + 6))).toBe(false);
        expect(await store.transact((tx) => tx.resolveIntent('missing', 'ambiguous', t0 + 6))).toBe(false);
        expect((await store.unresolvedIntents()).map((i) => i.id)).toEqual(['i2']);
        // Stored, whatever their answer: what tells a COMMIT whose answer was lost from one that did not land.
        expect([...(await store.storedIntents(['i2', 'missing', 'i1']))].sort()).toEqual(['i1', 'i2']);
        expect(await store.storedIntents([])).toEqual([]);
        expect(await store.listIntents('r1')).toEqual([
          { ...intent('i1', t0), outcome: 'acknowledged', resolvedAtMs: t0 + 5 },
          { ...intent('i2', t0 + 1), outcome: null, resolvedAtMs: null },
        ]);
      });
    });

    it('the candidates of a purge are exactly the routes that wait for nothing, so waiting ones never fill a batch', async () => {
      await withStore(async (store) => {
        const given = givenRoutes();
        const stopped = given.cancelled_in_flight!;
        const routes: Record<string, Route> = {
          // Each waits for something: a timer, or an attempt that may still answer.
          waiting: given.retry_wait!,
          running: given.active!,
          stoppedWhileRunning: stopped,
          // Each waits for nothing.
          answered: given.succeeded!,
          needsAction: given.action_required!,
          stoppedOrphan: { ...stopped, dispatch: { ...stopped.dispatch!, orphaned: true } },
        };
        await store.transact(async (tx) => {
          for (const [id, r] of Object.entries(routes)) await tx.insertRoute({ ...r, id });
        });
        const candidates = await store.finishedRoutes(Number.MAX_SAFE_INTEGER, 100);
        expect([...candidates].sort()).toEqual(['answered', 'needsAction', 'stoppedOrphan']);
        expect(await store.finishedRoutes(Number.MAX_SAFE_INTEGER, 1)).toHaveLength(1);
      });
    });

    it('[DUR-08] dynamic profiles are versioned documents; the latest version is read', async () => {
      await withStore(async (store) => {
        const v1 = profileV1;
        const v2: DynamicProfile = {
          ...v1,
          version: 2,
          candidates: [
            ...v1.candidates,
            { profile_id: 'b', enabled: true, policy: standardPolicy, provider: 'openai' },
          ],
        };
        await store.transact(async (tx) => {
          await tx.saveProfile(v1, t0);
          await tx.saveProfile(v2, t0 + 1);
        });
        expect(await store.readProfile('p')).toEqual(v2);
        expect(await store.readProfile('missing')).toBeNull();
      });
    });

    it('[RTE-16] a purged route leaves its generation, so one started again under its id goes on from it', async () => {
      await withStore(async (store) => {
        const { retry_wait: r } = routesInEveryState();
        expect(await store.transact((tx) => tx.retiredRouteGeneration(r.id))).toBe(0);
        await store.transact((tx) => tx.insertRoute(r));
        const fence = { generation: r.generation, state: r.state, revision: r.revision };
        // A stale fence deletes nothing and retires nothing.
        expect(
          await store.transact((tx) => tx.deleteRoute(r.id, { ...fence, generation: r.generation - 1 }, t0)),
        ).toBe(false);
        expect(await store.transact((tx) => tx.retiredRouteGeneration(r.id))).toBe(0);
        expect(await store.transact((tx) => tx.deleteRoute(r.id, fence, t0 + 10))).toBe(true);
        expect(await store.transact((tx) => tx.retiredRouteGeneration(r.id))).toBe(r.generation);
        expect(await store.transact((tx) => tx.retiredRouteGeneration(`${r.id}-other`))).toBe(0);
        // Forgotten once older than the cut-off, not before.
        expect(await store.transact((tx) => tx.forgetRetiredRoutes(t0 + 10))).toBe(0);
        expect(await store.transact((tx) => tx.retiredRouteGeneration(r.id))).toBe(r.generation);
        expect(await store.transact((tx) => tx.forgetRetiredRoutes(t0 + 11))).toBe(1);
        expect(await store.transact((tx) => tx.retiredRouteGeneration(r.id))).toBe(0);
      });
    });

    it('[DUR-08] a deleted profile leaves its last version, so one created again under its id goes on from it', async () => {
      await withStore(async (store) => {
        const v1 = profileV1;
        expect(await store.transact((tx) => tx.retiredProfileVersion('p'))).toBe(0);
        expect(await store.transact((tx) => tx.deleteProfile('p', t0))).toBe(false);
        expect(await store.transact((tx) => tx.retiredProfileVersion('p'))).toBe(0);
        await store.transact(async (tx) => {
          await tx.saveProfile(v1, t0);
          await tx.saveProfile({ ...v1, version: 2, name: 'P2' }, t0 + 1);
        });
        expect(await store.transact((tx) => tx.deleteProfile('p', t0 + 2))).toBe(true);
        expect(await store.readProfile('p')).toBeNull();
        expect(await store.transact((tx) => tx.retiredProfileVersion('p'))).toBe(2);
        expect(await store.transact((tx) => tx.retiredProfileVersion('other'))).toBe(0);
        // Created again at 3 and deleted: the last version only grows.
        await store.transact((tx) => tx.saveProfile({ ...v1, version: 3 }, t0 + 3));
        expect(await store.transact((tx) => tx.deleteProfile('p', t0 + 4))).toBe(true);
        expect(await store.transact((tx) => tx.retiredProfileVersion('p'))).toBe(3);
      });
    });

    it('[CIR-04] circuit writes are fenced by version: two writers of one circuit cannot both win', async () => {
      await withStore(async (store) => {
        const c = openCircuit;
        expect(await store.transact((tx) => tx.writeCircuit(c, 0))).toBe(true);
        expect(await store.transact((tx) => tx.writeCircuit(c, 0))).toBe(false);
        const probe = {
          ...c,
          state: 'half_open' as const,
          probeOwner: 'r2',
          probeLeaseUntilMs: t0 + 90_000,
          version: 2,
        };
        expect(await store.transact((tx) => tx.writeCircuit(probe, 1))).toBe(true);
        expect(await store.transact((tx) => tx.writeCircuit({ ...probe, probeOwner: 'r3' }, 1))).toBe(false);
        expect(await store.readCircuit('provider:x')).toEqual(probe);
        expect(await store.countCircuits()).toEqual({ open: 0, half_open: 1, closed: 0 });
        expect(await store.transact((tx) => tx.readCircuits(['provider:x', 'nope']))).toEqual(
          new Map([['provider:x', probe]]),
        );
      });
    });

    it('[CIR-04] a transaction confirms the circuits it read, unless one of its circuit writes lost', async () => {
      await withStore(async (store) => {
        const c = openCircuit;
        expect(await store.transact((tx) => tx.confirmCircuitReads())).toBe(true);
        expect(await store.transact((tx) => tx.writeCircuit(c, 0))).toBe(true);
        const confirmed = await store.transact(async (tx) => {
          await tx.readCircuits(['provider:x', 'nope']);
          return tx.confirmCircuitReads();
        });
        expect(confirmed).toBe(true);
        const written = await store.transact(async (tx) => {
          await tx.readCircuits(['provider:x']);
          await tx.writeCircuit({ ...c, state: 'closed', version: 2 }, 1);
          return tx.confirmCircuitReads();
        });
        expect(written).toBe(true);
        // A write fenced by a version that is not the stored one: what the transaction read is stale.
        const lost = await store.transact(async (tx) => {
          await tx.readCircuits(['provider:x']);
          expect(await tx.writeCircuit({ ...c, version: 2 }, 1)).toBe(false);
          return tx.confirmCircuitReads();
        });
        expect(lost).toBe(false);
      });
    });

    it('[PLN-49][PLN-51] plan error history is appended in order and survives a restart', async () => {
      await withStore(async (store, reopen) => {
        const checked = createErrorRecoveryPolicy({});
        if (!checked.ok) throw new Error('the default plan policy is valid');
        const policy = checked.value;
        const records = [0, 1].map((n) =>
          recordPlanError(
            { planId: 'plan-1', phase: 'execute', message: `tool failed ${n}`, retryCount: n },
            policy,
            t0 + n * 1000,
          ),
        );
        await store.transact(async (tx) => {
          for (const r of records) await tx.appendPlanError(r);
        });
        const again = await reopen();
        expect(await again.listPlanErrors('plan-1')).toEqual(records);
        expect(await again.listPlanErrors('other')).toEqual([]);
      });
    });

    it('[PLN-39][PLN-16] a plan keeps its phase, state and recovery config across a restart; writes are fenced by revision', async () => {
      await withStore(async (store, reopen) => {
        const recovery = { autoRetryThreshold: 0.5, maxRetries: 5, subplan: true };
        const plan = newPlan('plan-1', recovery, t0);
        await store.transact((tx) => tx.insertPlan(plan));
        const executing = revise(plan, { phase: 'execute' }, t0 + 1);
        const errored = revise(executing, { state: 'errored', retrySince: 2 }, t0 + 2);
        expect(await store.transact((tx) => tx.updatePlan(executing, plan.revision))).toBe(true);
        // A writer that read revision 1 lost: the stored plan is the winner's.
        expect(await store.transact((tx) => tx.updatePlan(errored, plan.revision))).toBe(false);
        expect(await store.readPlan('plan-1')).toEqual(executing);
        expect(await store.transact((tx) => tx.updatePlan(errored, executing.revision))).toBe(true);
        const again = await reopen();
        expect(await again.readPlan('plan-1')).toEqual(errored);
        expect(await again.transact((tx) => tx.readPlan('plan-1'))).toEqual(errored);
        expect(errored).toMatchObject({ phase: 'execute', state: 'errored', recovery, revision: 3 });
        expect(await again.readPlan('nope')).toBeNull();
      });
    });

    it('[PLN-32][PLN-33] error_details merge key by key: a later update keeps the keys it does not name', async () => {
      await withStore(async (store, reopen) => {
        const plan = newPlan('plan-2', { autoRetryThreshold: 0, maxRetries: 3, subplan: false }, t0);
        await store.transact((tx) => tx.insertPlan(plan));
        const updates: readonly Record<string, string>[] = [
          { error_category: 'transient', retry_count: '1', owner: 'ci' },
          { error_category: 'validation', retry_count: '2' },
        ];
        for (const details of updates) {
          await store.transact(async (tx) => {
            const current = (await tx.readPlan('plan-2'))!;
            expect(await tx.updatePlan(mergeErrorDetails(current, details, t0 + 5), current.revision)).toBe(
              true,
            );
          });
        }
        expect((await (await reopen()).readPlan('plan-2'))!.errorDetails).toEqual({
          error_category: 'validation',
          retry_count: '2',
          owner: 'ci',
        });
      });
    });

    it('lists plans newest first a page at a time, with their error count and latest error time', async () => {
      await withStore(async (store) => {
        const recovery = { autoRetryThreshold: 0, maxRetries: 3, subplan: false };
        // p-b and p-c changed at the same time: the id breaks the tie (descending).
        const changed: Record<string, number> = { 'p-a': 1, 'p-b': 2, 'p-c': 2, 'p-d': 3 };
        await store.transact(async (tx) => {
          for (const [id, at] of Object.entries(changed)) await tx.insertPlan(newPlan(id, recovery, t0 + at));
        });
        const checked = createErrorRecoveryPolicy({});
        if (!checked.ok) throw new Error('the default plan policy is valid');
        const records = [0, 1].map((n) =>
          recordPlanError(
            { planId: 'p-c', phase: 'strategize', message: `failed ${n}`, retryCount: n },
            checked.value,
            t0 + 100 + n,
          ),
        );
        await store.transact(async (tx) => {
          for (const r of records) await tx.appendPlanError(r);
        });
        const first = await store.listPlans({ limit: 2 });
        expect(first.map((p) => p.plan.id)).toEqual(['p-d', 'p-c']);
        expect(first[1]).toMatchObject({ errorCount: 2, plan: { id: 'p-c', phase: 'strategize' } });
        expect(first[1]!.lastErrorAtMs).toBeGreaterThanOrEqual(t0 + 101);
        expect(first[0]).toMatchObject({ errorCount: 0, lastErrorAtMs: null });
        const last = first.at(-1)!.plan;
        const second = await store.listPlans({
          before: { updatedAtMs: last.updatedAtMs, id: last.id },
          limit: 2,
        });
        expect(second.map((p) => p.plan.id)).toEqual(['p-b', 'p-a']);
        expect(await store.listPlans({ before: { updatedAtMs: t0 + 1, id: 'p-a' }, limit: 2 })).toEqual([]);
      });
    });

    it('[PLN-51] a plan error and its history are read back inside a transaction, in order', async () => {
      await withStore(async (store) => {
        const checked = createErrorRecoveryPolicy({});
        if (!checked.ok) throw new Error('the default plan policy is valid');
        const records = ['first', 'second'].map((message, n) =>
          recordPlanError({ planId: 'plan-3', phase: 'apply', message, retryCount: n }, checked.value, t0),
        );
        const seen = await store.transact(async (tx) => {
          for (const r of records) await tx.appendPlanError(r);
          return tx.listPlanErrors('plan-3');
        });
        expect(seen).toEqual(records);
      });
    });
  });
}

function attempt(routeId: string, ordinal: number): AttemptRecord {
  return {
    routeId,
    candidate: 'a',
    generation: 1,
    code: 'provider_overloaded',
    failureClass: 'transient',
    catalogueVersion: '2026.11.29-2',
    rule: 'anthropic.overloaded_error.v1',
    policySnapshot: standardPolicy.transient,
    decision: 'retry',
    retryOrdinal: ordinal,
    deadlineMs: t0 + ordinal * 5000,
    // Each source round-trips: the policy's schedule, a Retry-After, a reset time.
    delaySource: (['policy', 'retry_after', 'reset_at'] as const)[ordinal % 3]!,
    pendingOutcome: 'skip',
    safeExcerpt: 'Overloaded',
    note: ordinal === 2 ? 'observed_at was ahead of the engine clock' : null,
    atMs: t0,
  };
}
