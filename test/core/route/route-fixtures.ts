import {
  classify,
  newRoute,
  transition,
  type ClassPolicy,
  type Classification,
  type PolicyDocument,
  type ProfileCandidate,
  type Route,
  type RouteEvent,
  type SafetyVerdict,
  type Transition,
  type TransitionContext,
} from '../../../src/core/index.js';

export const t0 = Date.parse('2026-06-01T12:00:00Z');
export const iso = (seconds: number) => new Date(t0 + seconds * 1000).toISOString().replace('.000Z', 'Z');
export const safe: SafetyVerdict = { safe: true, basis: 'pre_result' };

const cls = (envelope: object): Classification => classify({ observed_at: iso(0), ...envelope }, { now: t0 });

/** Classified evidence of the kinds the route tests need (real catalogue rules, not hand-made results). */
export const evidence = {
  overloaded: cls({
    kind: 'http',
    status: 529,
    provider: 'anthropic',
    body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  }),
  quotaResetIn: (seconds: number, at = 0) =>
    classify(
      {
        kind: 'http',
        status: 429,
        provider: 'anthropic',
        observed_at: iso(at),
        headers: { 'anthropic-ratelimit-unified-reset': String(t0 / 1000 + at + seconds) },
        body: '{"type":"error","error":{"type":"rate_limit_error","message":"5-hour usage limit reached"}}',
      },
      { now: t0 + at * 1000 },
    ),
  credits: cls({ kind: 'stderr', agent: 'claude-code', text: 'Credit balance is too low' }),
  unknown: cls({ kind: 'stderr', text: 'weird gibberish' }),
  shortHint: cls({
    kind: 'http',
    status: 429,
    provider: 'openai',
    headers: { 'retry-after': '7' },
    body: '{"error":{"type":"rate_limit_exceeded","code":"rate_limit_exceeded","message":"Rate limit reached for requests"}}',
  }),
};

export const off: ClassPolicy = {
  retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
  wait_for_reset: { enabled: false, max_wait_seconds: 0 },
  on_exhausted: 'stop',
};
export const retries = (n: number, initial: number, outcome: 'skip' | 'stop'): ClassPolicy => ({
  retry: { enabled: true, max_retries: n, initial_interval_seconds: initial },
  wait_for_reset: { enabled: false, max_wait_seconds: 0 },
  on_exhausted: outcome,
});
export const waitsUpTo = (seconds: number, base: ClassPolicy): ClassPolicy => ({
  ...base,
  wait_for_reset: { enabled: true, max_wait_seconds: seconds },
});
export const doc = (transient: ClassPolicy, hard: ClassPolicy): PolicyDocument => ({
  version: 1,
  transient,
  hard,
});

/** a: transient retries 3 from 5 s then skip; hard waits up to 5 min then stops. b, c: the same. */
export const standardPolicy = doc(retries(3, 5, 'skip'), waitsUpTo(300, off));
export const candidates = (
  policy: PolicyDocument = standardPolicy,
  ids = ['a', 'b', 'c'],
): ProfileCandidate[] => ids.map((id) => ({ profile_id: id, enabled: true, policy }));

export function context(nowSeconds: number, overrides: Partial<TransitionContext> = {}): TransitionContext {
  let n = 0;
  return {
    nowMs: t0 + nowSeconds * 1000,
    candidates: candidates(),
    eligible: () => true,
    newIntentId: () => `intent-${nowSeconds}-${++n}`,
    ...overrides,
  };
}

export function failure(classification: Classification, safety: SafetyVerdict = safe): RouteEvent {
  return { type: 'failure', classification, safety };
}

export const fresh = (mode: 'dynamic' | 'interactive' = 'dynamic'): Route =>
  newRoute({
    id: 'r1',
    mode,
    profileId: mode === 'dynamic' ? 'p' : 'a',
    caller: 'task',
    candidate: 'a',
    intentId: 'intent-start',
    nowMs: t0,
  });

/** Applies a transition that must change the route, and returns the new route. */
export function step(route: Route, event: RouteEvent, ctx: TransitionContext): Route {
  const t = transition(route, event, ctx);
  if (t.outcome !== 'changed') throw new Error(`expected a change, got ${JSON.stringify(t)}`);
  return t.route;
}

export function expectChanged(t: Transition): Extract<Transition, { outcome: 'changed' }> {
  if (t.outcome !== 'changed') throw new Error(`expected a change, got ${JSON.stringify(t)}`);
  return t;
}

/** One route in every state, reached through real transitions. */
export function routesInEveryState(): Record<Route['state'], Route> {
  const active = step(fresh(), { type: 'dispatch_acknowledged', intentId: 'intent-start' }, context(0));
  const retryWait = step(active, failure(evidence.overloaded), context(1));
  const waitingForReset = step(active, failure(evidence.quotaResetIn(60, 1)), context(1));
  const retrying = step(retryWait, { type: 'deadline', generation: 1 }, context(6));
  const switching = step(
    retryWait,
    { type: 'action', action: 'skip_now', expectedGeneration: 1 },
    context(2),
  );
  const actionRequired = step(active, failure(evidence.unknown), context(1));
  return {
    active,
    waiting_for_reset: waitingForReset,
    retry_wait: retryWait,
    retrying,
    switching,
    action_required: actionRequired,
  };
}
