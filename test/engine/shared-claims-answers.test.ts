import { afterAll, describe, expect, it } from 'vitest';
import type { DueLock, Store } from '../../src/core/index.js';
import type { DispatchIntent, Route } from '../../src/core/index.js';
import { Engine, systemClock, type EngineEvent } from '../../src/engine/index.js';
import { dropSchemas } from '../helpers/postgres.js';
import { openSharedNodeDatabase, replacingLockDueRoutes } from '../helpers/shared-node.js';
import { profileDocument, replayOf } from './harness.js';
import { off, waitsUpTo } from '../core/route/route-fixtures.js';
import { until } from '../helpers/until.js';

// A shared node on the real PostgreSQL at 127.0.0.1:5432 (database `test`, a fresh schema dropped at the end), on
// the system clock: due times are the database's. Its poll is an hour: only its own timer fires the routes.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

/** What one transaction of the store did: whether it claimed due routes (and how many), and how many route pieces. */
interface Transaction {
  claimed: number | null;
  readonly routePieces: number;
}

/** The store as it is, each transaction noted: a claim's lock, and the route pieces the batch named. */
function recordingTransactions(store: Store) {
  const seen: Transaction[] = [];
  const recording = replacingLockDueRoutes(store, (tx, plan) => {
    const noted: Transaction = { claimed: null, routePieces: plan?.routeIds?.length ?? 0 };
    seen.push(noted);
    return async (lock: DueLock) => {
      const locked = await tx.lockDueRoutes!(lock);
      noted.claimed = (noted.claimed ?? 0) + locked.due.length;
      return locked;
    };
  });
  return { recording, seen };
}

/** Anthropic's 529 with the instant its rate limit resets: the route waits for it. */
const overloadedUntil = (resetAtMs: number) => ({
  kind: 'http' as const,
  status: 529,
  provider: 'anthropic',
  headers: { 'x-ratelimit-reset': String(resetAtMs) },
  body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
});

/** Starts `count` routes on profile `p` (waits for reset up to 10 minutes), each dispatched once; returns them. */
async function startWaitingRoutes(engine: Engine, count: number): Promise<Route[]> {
  await engine.reconcile();
  await engine.saveProfile(profileDocument({ version: 1, transient: waitsUpTo(600, off), hard: off }));
  const ids = Array.from({ length: count }, (_, i) => `r${i}`);
  const started = await Promise.all(ids.map((id) => engine.startRoute({ routeId: id, profileId: 'p' })));
  await engine.idle();
  return started;
}

/** Each route's first attempt fails with an overloaded 529 that resets at `resetAtMs`. */
async function failAllUntil(engine: Engine, routes: readonly Route[], resetAtMs: number): Promise<void> {
  await Promise.all(
    routes.map((route) =>
      engine.reportFailure({
        routeId: route.id,
        generation: route.generation,
        invocationId: route.dispatch!.intentId,
        evidence: overloadedUntil(resetAtMs),
        replay: replayOf(route),
      }),
    ),
  );
  await engine.idle();
}

describe('[DUR-01] a shared node firing claim after claim', () => {
  it('records the answers to one claim’s firings in the next claim’s transaction, not in one of their own', async () => {
    const db = await openSharedNodeDatabase(schemas);
    const { recording, seen } = recordingTransactions(db.store);
    const events: EngineEvent[] = [];
    const routes = 600;
    // The dispatcher answers each attempt a few milliseconds after it is sent: while the next claim's transaction
    // runs, as a provider's acceptance comes back over the network.
    const engine = new Engine({
      store: recording,
      clock: systemClock(),
      dispatcher: { dispatch: () => new Promise((resolve) => setTimeout(resolve, 3)) },
      shared: { cluster: db.cluster!, leaseMs: 3_600_000, pollMs: 3_600_000 },
      onEvent: (e) => events.push(e),
    });
    try {
      const started = await startWaitingRoutes(engine, routes);
      const ids = started.map((r) => r.id);
      // Every route waits for one reset instant, so they all come due at once and the claims come back full.
      await failAllUntil(engine, started, Date.now() + 10_000);
      const waiting = await Promise.all(ids.map(async (id) => (await db.store.readRoute(id))!.state));
      expect(waiting.every((s) => s === 'waiting_for_reset')).toBe(true);
      const from = seen.length;
      const retried = (e: EngineEvent) => e.type === 'dispatch' && e.intent.kind !== 'initial';
      const retryIntents = () =>
        new Set(events.filter(retried).map((e) => (e as { intent: { id: string } }).intent.id));
      await until(
        () =>
          events.filter((e) => e.type === 'dispatch_acknowledged' && retryIntents().has(e.intentId))
            .length === routes,
      );
      await engine.idle();

      // Every route fired once and its retry was answered once.
      expect(events.filter(retried)).toHaveLength(routes);
      const firings = events.filter((e) => e.type === 'transition' && e.decision === 'deadline');
      expect(new Set(firings.map((e) => (e as { route: { id: string } }).route.id)).size).toBe(routes);
      expect(firings).toHaveLength(routes);

      const during = seen.slice(from);
      const claims = during.filter((t) => t.claimed !== null && t.claimed > 0);
      // 600 routes due at once: full claims of 128 and the rest.
      expect(claims.map((t) => t.claimed)).toEqual([128, 128, 128, 128, 88]);
      // The answers to a claim's firings ride with the next claim that comes after they arrive (here the one after
      // next: the next claim is queued the moment its predecessor commits, before any answer is back). Answers have
      // a transaction of their own only when no claim follows: those held when the pass ended, and the last claim's.
      // Queued at once, the answers to each claim took a transaction between it and the next (four here).
      expect(claims.slice(2).every((t) => t.routePieces === 128)).toBe(true);
      const answersAlone = during.filter((t) => t.claimed === null && t.routePieces > 0);
      expect(answersAlone.length).toBeLessThanOrEqual(2);
      expect(during.reduce((sum, t) => sum + t.routePieces, 0)).toBe(routes);
    } finally {
      await engine.close();
      await db.store.close();
    }
  });

  it('records an answer held for the next claim before a report that came after it', async () => {
    const db = await openSharedNodeDatabase(schemas);
    const events: EngineEvent[] = [];
    const routes = 600;
    let retrying = false;
    const reports: Promise<unknown>[] = [];
    // The dispatcher accepts each attempt after 3 ms; once the routes retry, the provider refuses again at once and
    // the agent reports that failure 1 ms after the acceptance (the herd this path is for). The acceptance came
    // first, so it must be recorded first: not refused as stale because the report proved delivery before it.
    const engine: Engine = new Engine({
      store: db.store,
      clock: systemClock(),
      dispatcher: {
        dispatch: (intent: DispatchIntent) =>
          new Promise<void>((resolve) =>
            setTimeout(() => {
              resolve();
              if (!retrying || intent.kind === 'initial') return;
              setTimeout(() => {
                const report = db.store.readRoute(intent.routeId).then((route) =>
                  engine.reportFailure({
                    routeId: intent.routeId,
                    generation: intent.generation,
                    invocationId: intent.id,
                    evidence: overloadedUntil(Date.now() + 300_000),
                    replay: replayOf(route!),
                  }),
                );
                reports.push(report);
              }, 1);
            }, 3),
          ),
      },
      shared: { cluster: db.cluster!, leaseMs: 3_600_000, pollMs: 3_600_000 },
      onEvent: (e) => events.push(e),
    });
    try {
      const started = await startWaitingRoutes(engine, routes);
      await failAllUntil(engine, started, Date.now() + 6_000);
      retrying = true;
      const from = events.length;
      await until(() => reports.length === routes);
      await Promise.all(reports);
      await engine.idle();
      const later = events.slice(from);
      const refusedAnswers = later.filter(
        (e) => e.type === 'refused' && e.trigger === 'dispatch_acknowledged',
      );
      expect(refusedAnswers).toEqual([]);
      expect(later.filter((e) => e.type === 'dispatch_acknowledged')).toHaveLength(routes);
      // Every report was taken as the retried attempt's failure (the policy allows one wait: the routes stop).
      const outcomes = (await Promise.all(reports)) as { route: Route }[];
      expect(outcomes.map((o) => o.route.state)).toEqual(started.map(() => 'action_required'));
    } finally {
      await engine.close();
      await db.store.close();
    }
  });
});
