// The engine drive shared by the benchmarks (bench:engine, bench:postgres-store, bench:postgres): one dynamic profile,
// routes started on it, and each route's current attempt failing once with a transient failure. Not a test.
import { openReplayEvidence } from '../dist/core/index.js';
import { Engine, ManualClock } from '../dist/engine/index.js';

/** An instant far from now: decisions timed on a manual clock fire no timer while they are measured. */
export const t0 = Date.parse('2026-06-01T12:00:00Z');

/** Anthropic's 529 overloaded answer: classified transient (`anthropic.overloaded.v1`). */
export const overloaded = {
  kind: 'http',
  status: 529,
  provider: 'anthropic',
  body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
};

/** Transient failures retry three times, 5 s apart; hard ones wait for a trusted reset up to an hour. */
export const retryPolicy = {
  version: 1,
  transient: {
    retry: { enabled: true, max_retries: 3, initial_interval_seconds: 5 },
    wait_for_reset: { enabled: false, max_wait_seconds: 0 },
    on_exhausted: 'skip',
  },
  hard: {
    retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
    wait_for_reset: { enabled: true, max_wait_seconds: 3600 },
    on_exhausted: 'stop',
  },
};

/** The profile `bench` with two candidates, `a` and `b`, under one policy. */
export function benchProfile(policy = retryPolicy) {
  return {
    id: 'bench',
    name: 'bench',
    version: 1,
    candidates: ['a', 'b'].map((c) => ({ profile_id: c, enabled: true, policy })),
  };
}

/** A dispatcher that accepts every attempt at once. */
export const acceptAll = { dispatch: async () => undefined };

export const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The value at quantile `p` (0 to 1) of ascending numbers. */
export const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];

/**
 * Starts `ids` on the profile `bench` all at once and waits until their first dispatches are acknowledged. Returns
 * the routes as started: their generation and intent are what a failure report names.
 */
export async function startRoutes(engine, ids) {
  const routes = await Promise.all(ids.map((id) => engine.startRoute({ routeId: id, profileId: 'bench' })));
  await engine.idle();
  return routes;
}

/** The route's current attempt fails with `evidence` before any output (so a replay is safe). */
export function failAttempt(engine, route, evidence = overloaded) {
  return engine.reportFailure({
    routeId: route.id,
    generation: route.generation,
    invocationId: route.dispatch.intentId,
    evidence,
    replay: openReplayEvidence({
      sessionId: route.id,
      executionId: route.dispatch.intentId,
      promptGeneration: route.generation,
    }),
  });
}

/**
 * Durable decisions per second on a migrated `store`: `routes` routes are started, then all fail at once; each
 * failure is classified, gated, evaluated, committed with its attempt, and armed (on a manual clock: nothing fires).
 * Closes the engine and the store.
 */
export async function measureDecisions(store, routes) {
  const engine = new Engine({ store, clock: new ManualClock(t0), dispatcher: acceptAll });
  await engine.saveProfile(benchProfile());
  const ids = Array.from({ length: routes }, (_, i) => `r${i}`);
  const snapshots = await startRoutes(engine, ids);
  const started = performance.now();
  const outcomes = await Promise.all(snapshots.map((r) => failAttempt(engine, r)));
  const seconds = (performance.now() - started) / 1000;
  if (outcomes.some((o) => o.route.state !== 'retry_wait')) throw new Error('a decision went wrong');
  await engine.close();
  await store.close();
  return routes / seconds;
}
