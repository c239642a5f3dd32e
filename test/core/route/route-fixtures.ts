import { givenRoutes } from './decision-runner.js';
import {
  classify,
  type Circuit,
  type ClassPolicy,
  type Classification,
  type PolicyDocument,
  type Route,
} from '../../../src/core/index.js';

export const t0 = Date.parse('2026-06-01T12:00:00Z');
/** A provider circuit opened by r1 at t0 for a minute, stored at version 1 (no probe yet). */
export const openCircuit: Circuit = {
  key: 'provider:x',
  scope: 'provider',
  state: 'open',
  openUntilMs: t0 + 60_000,
  openedBy: 'r1',
  probeOwner: null,
  probeLeaseUntilMs: 0,
  version: 1,
};
export const iso = (seconds: number) => new Date(t0 + seconds * 1000).toISOString().replace('.000Z', 'Z');

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

/** One route in every state, reached through real decisions (the decision fixtures' given routes). */
export function routesInEveryState(): Record<Route['state'], Route> {
  const given = givenRoutes();
  return {
    active: given.active!,
    waiting_for_reset: given.waiting_for_reset!,
    retry_wait: given.retry_wait!,
    retrying: given.retrying!,
    switching: given.switching!,
    action_required: given.action_required!,
  };
}
