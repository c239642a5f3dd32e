import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import {
  decide,
  newRoute,
  parseEnvelope,
  replayEvidenceOf,
  replayKeyOf,
  type Circuit,
  type ClassPolicy,
  type Decision,
  type PolicyDocument,
  type ProfileCandidate,
  type ProfileView,
  type ReplayProgress,
  type Route,
  type RouteEvent,
  type RouteWorld,
} from '../../../src/core/index.js';

/**
 * The table-driven runner of the route decisions (`decide`): each fixture file under `fixtures/` is a list of
 * cases `{name, given, world?, at, event, expected}` or sequences `{name, given, world?, steps: [{at, event,
 * expected}]}`. Times are seconds after t0; keys ending in `At` are such times (`deadlineAt` -> `deadlineMs`).
 * Starting routes are built by real decisions (`givenRoutes`); evidence is named (`evidenceOf`) or inline.
 */
export const t0 = Date.parse('2026-06-01T12:00:00Z');
export const ms = (seconds: number) => t0 + seconds * 1000;

export interface FixtureCase {
  readonly name: string;
  readonly given: string;
  /** Fields replaced on the given route (times in seconds: `deadlineAt`). */
  readonly route?: Record<string, unknown>;
  readonly world?: FixtureWorld;
  readonly at?: number;
  readonly event?: FixtureEvent;
  readonly expected?: Expected;
  readonly steps?: readonly { at: number; event: FixtureEvent; expected?: Expected; world?: FixtureWorld }[];
}

interface FixtureWorld {
  /** A named profile, `concrete`, `missing`, `{invalid: message}`, or `{candidates: [...]}`. */
  readonly profile?:
    string | { readonly invalid: string } | { readonly candidates: readonly FixtureCandidate[] };
  readonly circuits?: readonly FixtureCircuit[];
}

interface FixtureCandidate {
  readonly profile_id: string;
  readonly enabled?: boolean;
  readonly policy?: string | PolicyDocument;
  readonly provider?: string;
  readonly model?: string;
}

interface FixtureCircuit {
  readonly key: string;
  readonly scope?: Circuit['scope'];
  readonly state: Circuit['state'];
  readonly openUntil: number;
  readonly openedBy?: string | null;
  readonly probeOwner?: string | null;
  readonly probeLeaseUntil?: number;
  readonly version?: number;
}

type FixtureEvent =
  | {
      readonly type: 'failure';
      readonly evidence: string | Record<string, unknown>;
      /** What the attempt did; null: no replay evidence (unsafe: missing). Default: nothing (safe). */
      readonly progress?: ReplayProgress | null;
      /** The replay evidence names another attempt (stale). */
      readonly replay_of_other_attempt?: boolean;
      readonly generation?: number;
      /** `current` (default): the route's attempt; `none`: not given; else an id. */
      readonly invocation?: string;
      readonly prompt_open?: boolean;
    }
  | { readonly type: 'success'; readonly generation?: number; readonly invocation?: string }
  | { readonly type: 'deadline'; readonly generation?: number }
  /** A circuit closed that held routes until these instants (seconds after t0). */
  | { readonly type: 'circuit_closed'; readonly circuit: string; readonly heldUntil: readonly number[] }
  | {
      readonly type: 'dispatch_result';
      readonly result: 'acknowledged' | 'ambiguous';
      readonly intent?: string;
    }
  | {
      readonly type: 'action';
      readonly action: 'retry_now' | 'skip_now' | 'cancel' | 'stop';
      readonly expectedGeneration?: number;
      readonly expectedState?: Route['state'];
    }
  | { readonly type: 'prompt'; readonly expectedGeneration?: number }
  | { readonly type: 'restart' };

interface Expected {
  readonly outcome: Decision['outcome'];
  readonly decision?: string;
  readonly reason?: string;
  readonly detail?: string;
  /** A partial route (times in seconds for keys ending in `At`). */
  readonly route?: Record<string, unknown>;
  /** The route is exactly the given one. */
  readonly route_unchanged?: boolean;
  /** Effect kinds, exactly and in order. */
  readonly effects?: readonly string[];
  /** Partial effects each of which some effect must match. */
  readonly effect?: readonly Record<string, unknown>[];
  /** A partial classification. */
  readonly classification?: Record<string, unknown>;
}

const off: ClassPolicy = {
  retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
  wait_for_reset: { enabled: false, max_wait_seconds: 0 },
  on_exhausted: 'stop',
};
const retries = (n: number, initial: number, outcome: 'skip' | 'stop'): ClassPolicy => ({
  retry: { enabled: true, max_retries: n, initial_interval_seconds: initial },
  wait_for_reset: { enabled: false, max_wait_seconds: 0 },
  on_exhausted: outcome,
});
const waitsUpTo = (seconds: number, base: ClassPolicy): ClassPolicy => ({
  ...base,
  wait_for_reset: { enabled: true, max_wait_seconds: seconds },
});
const doc = (transient: ClassPolicy, hard: ClassPolicy): PolicyDocument => ({ version: 1, transient, hard });

/** Named policy documents the fixtures use. */
export const policies: Readonly<Record<string, PolicyDocument>> = {
  /** Transient: 3 retries from 5 s, then skip. Hard: wait for a reset up to 5 min, then stop. */
  standard: doc(retries(3, 5, 'skip'), waitsUpTo(300, off)),
  /** Both classes: nothing configured, stop. */
  stop: doc(off, off),
  /** Both classes: nothing configured, skip (the default document). */
  skip: doc({ ...off, on_exhausted: 'skip' }, { ...off, on_exhausted: 'skip' }),
  /** Transient: nothing configured, stop; hard: off, stop. */
  transient_stop: doc({ ...off, on_exhausted: 'stop' }, off),
  /** Hard: wait up to 5 min, then one retry after 30 s, then stop. */
  hard_wait_then_retry: doc(off, waitsUpTo(300, retries(1, 30, 'stop'))),
  /** Transient: 3 retries from 5 s then skip, and reset waiting up to 10 min. */
  transient_waits_600: doc(waitsUpTo(600, retries(3, 5, 'skip')), off),
};

/** Named profiles: a list of candidates. */
const profiles: Readonly<Record<string, readonly FixtureCandidate[]>> = {
  standard: ['a', 'b', 'c'].map((id) => ({ profile_id: id, policy: 'standard' })),
  stop: ['a', 'b', 'c'].map((id) => ({ profile_id: id, policy: 'stop' })),
  skip: ['a', 'b', 'c'].map((id) => ({ profile_id: id, policy: 'skip' })),
  transient_stop: ['a', 'b', 'c'].map((id) => ({ profile_id: id, policy: 'transient_stop' })),
  hard_wait_then_retry: ['a', 'b', 'c'].map((id) => ({ profile_id: id, policy: 'hard_wait_then_retry' })),
  /** a and b on anthropic, c on openai: a circuit of provider:anthropic holds a and b. */
  providers: [
    { profile_id: 'a', policy: 'standard', provider: 'anthropic' },
    { profile_id: 'b', policy: 'standard', provider: 'anthropic' },
    { profile_id: 'c', policy: 'standard', provider: 'openai' },
  ],
  /** a on anthropic waits for resets up to 10 min; b on openai. */
  providers_waiting: [
    { profile_id: 'a', policy: 'transient_waits_600', provider: 'anthropic' },
    { profile_id: 'b', policy: 'standard', provider: 'openai' },
  ],
  /** Only a, on anthropic. */
  single_anthropic: [{ profile_id: 'a', policy: 'standard', provider: 'anthropic' }],
};

const epoch = (seconds: number) => String(Math.floor(ms(seconds) / 1000));
const overloadedBody = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';

/** Named evidence envelopes (real catalogue rules decide them); `name:N` passes a number of seconds. */
export function evidenceOf(name: string, at: number): Record<string, unknown> {
  const [key, arg] = name.split(':');
  const n = Number(arg ?? 0);
  switch (key) {
    case 'overloaded':
      return { kind: 'http', status: 529, provider: 'anthropic', observed_at: iso(at), body: overloadedBody };
    case 'unavailable_retry_after':
      return {
        kind: 'http',
        status: 503,
        provider: 'anthropic',
        observed_at: iso(at),
        headers: { 'retry-after': String(n) },
        body: '{"type":"error","error":{"type":"api_error","message":"Service Unavailable"}}',
      };
    case 'quota_reset_in':
      return {
        kind: 'http',
        status: 429,
        provider: 'anthropic',
        observed_at: iso(at),
        headers: { 'anthropic-ratelimit-unified-reset': epoch(at + n) },
        body: '{"type":"error","error":{"type":"rate_limit_error","message":"5-hour usage limit reached"}}',
      };
    case 'credits':
      return {
        kind: 'stderr',
        agent: 'claude-code',
        observed_at: iso(at),
        text: 'Credit balance is too low',
      };
    case 'unknown':
      return { kind: 'stderr', observed_at: iso(at), text: 'weird gibberish' };
    case 'context_length':
      return {
        kind: 'http',
        status: 400,
        provider: 'anthropic',
        observed_at: iso(at),
        body: '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 250000 tokens > 200000 maximum"}}',
      };
    case 'short_hint':
      return {
        kind: 'http',
        status: 429,
        provider: 'openai',
        observed_at: iso(at),
        headers: { 'retry-after': String(n || 7) },
        body: '{"error":{"type":"rate_limit_exceeded","code":"rate_limit_exceeded","message":"Rate limit reached for requests"}}',
      };
    case 'overloaded_observed_ahead':
      // Observed n seconds ahead of the engine's clock, with a relative Retry-After of 20 s.
      return {
        kind: 'http',
        status: 429,
        provider: 'openai',
        observed_at: iso(at + n),
        headers: { 'retry-after': '20' },
        body: '{"error":{"type":"rate_limit_exceeded","code":"rate_limit_exceeded","message":"Rate limit reached for requests"}}',
      };
    default:
      throw new Error(`no evidence named ${name}`);
  }
}

export function iso(seconds: number): string {
  return new Date(ms(seconds)).toISOString().replace('.000Z', 'Z');
}

function candidatesOf(list: readonly FixtureCandidate[]): ProfileCandidate[] {
  return list.map((c) => ({
    profile_id: c.profile_id,
    enabled: c.enabled ?? true,
    policy: typeof c.policy === 'string' ? policies[c.policy]! : (c.policy ?? policies.standard!),
    ...(c.provider === undefined ? {} : { provider: c.provider }),
    ...(c.model === undefined ? {} : { model: c.model }),
  }));
}

function profileView(spec: FixtureWorld['profile'], route: Route): ProfileView {
  if (spec === undefined) {
    return route.mode === 'interactive'
      ? { kind: 'concrete' }
      : { kind: 'dynamic', candidates: candidatesOf(profiles.standard!) };
  }
  if (spec === 'concrete') return { kind: 'concrete' };
  if (spec === 'missing') return { kind: 'missing' };
  if (typeof spec === 'string') {
    const named = profiles[spec];
    if (named === undefined) throw new Error(`no profile named ${spec}`);
    return { kind: 'dynamic', candidates: candidatesOf(named) };
  }
  if ('invalid' in spec) return { kind: 'invalid', message: spec.invalid };
  return { kind: 'dynamic', candidates: candidatesOf(spec.candidates) };
}

function circuitOf(c: FixtureCircuit): Circuit {
  return {
    key: c.key,
    scope: c.scope ?? (c.key.split(':')[0] as Circuit['scope']),
    state: c.state,
    openUntilMs: ms(c.openUntil),
    openedBy: c.openedBy ?? null,
    probeOwner: c.probeOwner ?? null,
    probeLeaseUntilMs: c.probeLeaseUntil === undefined ? 0 : ms(c.probeLeaseUntil),
    version: c.version ?? 1,
  };
}

export function worldAt(at: number, spec: FixtureWorld | undefined, route: Route): RouteWorld {
  let n = 0;
  return {
    nowMs: ms(at),
    profile: profileView(spec?.profile, route),
    circuits: new Map((spec?.circuits ?? []).map((c) => [c.key, circuitOf(c)])),
    newIntentId: () => `intent-${at}-${++n}`,
  };
}

export function eventOf(e: FixtureEvent, route: Route, at: number): RouteEvent {
  switch (e.type) {
    case 'failure': {
      const envelope = typeof e.evidence === 'string' ? evidenceOf(e.evidence, at) : e.evidence;
      const parsed = parseEnvelope(envelope);
      if (!parsed.ok) throw new Error(`fixture evidence is invalid: ${JSON.stringify(parsed.issues)}`);
      const key = replayKeyOf(route);
      const replayKey = e.replay_of_other_attempt === true ? { ...key, executionId: 'another-attempt' } : key;
      return {
        type: 'failure',
        evidence: parsed.evidence,
        replay: e.progress === null ? null : replayEvidenceOf(replayKey, e.progress ?? {}),
        generation: e.generation ?? route.generation,
        invocationId: invocationOf(e.invocation, route),
        promptOpen: e.prompt_open === true,
      };
    }
    case 'success':
      return {
        type: 'success',
        generation: e.generation ?? route.generation,
        invocationId: invocationOf(e.invocation, route),
      };
    case 'deadline':
      return { type: 'deadline', generation: e.generation ?? route.generation };
    case 'dispatch_result':
      return {
        type: 'dispatch_result',
        intentId: e.intent ?? route.dispatch?.intentId ?? 'none',
        result: e.result,
      };
    case 'action':
      return {
        type: 'action',
        action: e.action,
        expectedGeneration: e.expectedGeneration ?? route.generation,
        ...(e.expectedState === undefined ? {} : { expectedState: e.expectedState }),
      };
    case 'prompt':
      return {
        type: 'prompt',
        ...(e.expectedGeneration === undefined ? {} : { expectedGeneration: e.expectedGeneration }),
      };
    case 'restart':
      return { type: 'restart' };
    case 'circuit_closed':
      return { type: 'circuit_closed', circuitKey: e.circuit, heldUntilMs: e.heldUntil.map(ms) };
  }
}

function invocationOf(spec: string | undefined, route: Route): string | null {
  if (spec === undefined || spec === 'current') return route.dispatch?.intentId ?? null;
  return spec === 'none' ? null : spec;
}

/** Fixture keys that hold seconds after t0, and the route's own keys (epoch ms) they stand for. */
const secondsKeys: Readonly<Record<string, string>> = {
  deadlineAt: 'deadlineMs',
  dueAt: 'dueAtMs',
  atAt: 'atMs',
  openUntilAt: 'openUntilMs',
  probeLeaseUntilAt: 'probeLeaseUntilMs',
};

/** Seconds-based fixture values to the route's own units (`deadlineAt: 6` -> `deadlineMs: t0 + 6000`). */
export function inMs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(inMs);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const target = secondsKeys[k];
    if (target !== undefined && typeof v === 'number') out[target] = ms(v);
    else out[k] = inMs(v);
  }
  return out;
}

/** Asserts a decision against a fixture's expectation. */
export function check(d: Decision, expected: Expected, given: Route): void {
  expect(d.outcome).toBe(expected.outcome);
  if (expected.decision !== undefined)
    expect(d.outcome === 'changed' ? d.decision : null).toBe(expected.decision);
  if (expected.reason !== undefined) expect(d.outcome === 'refused' ? d.reason : null).toBe(expected.reason);
  if (expected.detail !== undefined)
    expect(d.outcome === 'refused' ? d.detail : null).toContain(expected.detail);
  if (expected.route !== undefined) expect(d.route).toMatchObject(inMs(expected.route) as object);
  if (expected.route_unchanged === true) expect(d.route).toEqual(given);
  // A refusal does nothing the event asked for; it may only record what the report proved about the attempt.
  if (d.outcome === 'refused') expect(withoutAttempt(d.route)).toEqual(withoutAttempt(given));
  if (expected.effects !== undefined) expect(d.effects.map((e) => e.kind)).toEqual(expected.effects);
  for (const partial of expected.effect ?? []) {
    const want = inMs(partial) as object;
    const matches = (e: unknown) => {
      try {
        expect(e).toMatchObject(want);
        return true;
      } catch {
        return false;
      }
    };
    // No effect matches: fail with every effect shown next to the one wanted.
    if (!d.effects.some(matches)) expect(d.effects).toContainEqual(want);
  }
  if (expected.classification !== undefined) expect(d.classification).toMatchObject(expected.classification);
}

function withoutAttempt(route: Route) {
  const { dispatch: _d, revision: _r, updatedAtMs: _u, ...rest } = route;
  return rest;
}

/** Applies a decision that must change the route (building a given route). */
function step(route: Route, event: FixtureEvent, at: number, world?: FixtureWorld): Route {
  const d = decide(route, eventOf(event, route, at), worldAt(at, world, route));
  if (d.outcome !== 'changed')
    throw new Error(`building a given route: expected a change, got ${JSON.stringify(d)}`);
  return d.route;
}

const ack = { type: 'dispatch_result', result: 'acknowledged' } as const;

/** The starting routes of the fixtures, each reached through real decisions from a new route. */
export function givenRoutes(): Record<string, Route> {
  const fresh = (mode: 'dynamic' | 'interactive') =>
    newRoute({
      id: 'r1',
      mode,
      profileId: mode === 'dynamic' ? 'p' : 'a',
      caller: 'task',
      candidate: 'a',
      intentId: 'intent-start',
      nowMs: t0,
    });
  const active_unacked = fresh('dynamic');
  const active = step(active_unacked, ack, 0);
  const retry_wait = step(active, { type: 'failure', evidence: 'overloaded' }, 1);
  const waiting_for_reset = step(active, { type: 'failure', evidence: 'quota_reset_in:60' }, 1);
  const retrying = step(retry_wait, { type: 'deadline' }, 6);
  const retrying_acked = step(retrying, ack, 6);
  const switching = step(retry_wait, { type: 'action', action: 'skip_now' }, 2);
  const action_required = step(active, { type: 'failure', evidence: 'unknown' }, 1);
  const succeeded = step(retrying_acked, { type: 'success' }, 7);
  const cancelled_in_flight = step(retrying_acked, { type: 'action', action: 'cancel' }, 6);
  const ambiguous_successor = step(switching, { type: 'dispatch_result', result: 'ambiguous' }, 3);
  const orphaned = step(retrying_acked, { type: 'restart' }, 6);
  const interactive_active = step(fresh('interactive'), ack, 0);
  const interactive_retry_wait = step(interactive_active, { type: 'failure', evidence: 'overloaded' }, 1);
  const interactive_retrying = step(step(interactive_retry_wait, { type: 'deadline' }, 6), ack, 6);
  return {
    active,
    active_unacked,
    retry_wait,
    waiting_for_reset,
    retrying,
    retrying_acked,
    switching,
    action_required,
    succeeded,
    cancelled_in_flight,
    ambiguous_successor,
    orphaned,
    interactive_active,
    interactive_retry_wait,
    interactive_retrying,
  };
}

/** Every fixture file of the folder, parsed. */
export function fixtureFiles(folder: URL): { file: string; cases: FixtureCase[] }[] {
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({
      file,
      cases: JSON.parse(readFileSync(new URL(file, folder), 'utf8')) as FixtureCase[],
    }));
}

/** Runs one case (a single event or a sequence) against the given routes. */
export function runCase(c: FixtureCase, given: Record<string, Route>): void {
  const start = given[c.given];
  if (start === undefined) throw new Error(`no given route named ${c.given}`);
  let route: Route = c.route === undefined ? start : { ...start, ...(inMs(c.route) as object) };
  const steps = c.steps ?? [{ at: c.at ?? 0, event: c.event!, expected: c.expected!, world: c.world }];
  for (const s of steps) {
    const before = structuredClone(route);
    const d = decide(route, eventOf(s.event, route, s.at), worldAt(s.at, s.world ?? c.world, route));
    // A decision never changes its input (the engine relies on it to fence its write).
    expect(route).toEqual(before);
    if (s.expected !== undefined) check(d, s.expected, route);
    route = d.route;
  }
}
