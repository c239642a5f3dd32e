import type { Scope } from '../catalogue/codes.js';
import type { Classification } from '../classify/classification.js';
import { latestHint } from '../policy/evaluate.js';

/**
 * A shared resource circuit (REQUIREMENTS CIR-01 decision): keyed by a failure's scope over non-secret
 * descriptors. A classified failure opens it until max(now + 60 s, the trusted reset). The route whose failure
 * opened it keeps its own policy's cadence (CIR-02: the policy decides the current route's response); every other
 * route is held until it expires. After that exactly one route takes a 30 s probe lease (half-open); the probe's
 * success closes the circuit, its failure reopens it.
 */
export const circuitStates = ['open', 'half_open', 'closed'] as const;
export type CircuitState = (typeof circuitStates)[number];

export interface Circuit {
  readonly key: string;
  readonly scope: Scope;
  readonly state: CircuitState;
  readonly openUntilMs: number;
  /** The route whose failure opened (or last reopened) it: its own retries are not held. */
  readonly openedBy: string | null;
  readonly probeOwner: string | null;
  readonly probeLeaseUntilMs: number;
  /** Increases on every write: circuit writes are fenced by it. */
  readonly version: number;
}

export const circuitDefaults = { minimumOpenMs: 60_000, probeLeaseMs: 30_000 } as const;

/** Non-secret identifiers of what a candidate runs on. */
export interface CircuitDescriptors {
  readonly profileId: string;
  readonly provider: string | null;
  readonly model: string | null;
}

/** The circuit a failure of `scope` belongs to, or null (request-scoped and unscoped failures share nothing). */
export function circuitKey(scope: Scope | null, d: CircuitDescriptors): string | null {
  switch (scope) {
    case 'provider':
      return d.provider === null ? null : `provider:${d.provider}`;
    case 'model':
      return d.provider === null || d.model === null ? null : `model:${d.provider}/${d.model}`;
    case 'account':
      return `account:${d.provider ?? '-'}/${d.profileId}`;
    case 'profile':
      return `profile:${d.profileId}`;
    case 'request':
    case null:
      return null;
  }
}

/** Every circuit a dispatch on these descriptors must respect. */
export function circuitKeysOf(d: CircuitDescriptors): string[] {
  return (['provider', 'model', 'account', 'profile'] as const)
    .map((s) => circuitKey(s, d))
    .filter((k): k is string => k !== null);
}

/**
 * Opens, extends or reopens a circuit after a classified failure of `routeId`. An open circuit keeps its opener
 * and any live probe lease; the failure of the probe owner itself reopens it, with that route as the opener.
 */
export function openCircuit(
  existing: Circuit | null,
  key: string,
  scope: Scope,
  routeId: string,
  nowMs: number,
  resetHintMs: number | null,
): Circuit {
  const live = existing !== null && existing.state !== 'closed';
  const until = Math.max(
    nowMs + circuitDefaults.minimumOpenMs,
    resetHintMs ?? 0,
    live ? existing.openUntilMs : 0,
  );
  const version = (existing?.version ?? 0) + 1;
  if (live && existing.probeOwner !== routeId) return { ...existing, openUntilMs: until, version };
  return {
    key,
    scope,
    state: 'open',
    openUntilMs: until,
    openedBy: routeId,
    probeOwner: null,
    probeLeaseUntilMs: 0,
    version,
  };
}

/** The circuits a classified failure of `routeId` on these descriptors opens (none for unclassified ones). */
export function circuitsAfterFailure(
  current: ReadonlyMap<string, Circuit>,
  classification: Classification,
  descriptors: CircuitDescriptors,
  routeId: string,
  nowMs: number,
): Circuit[] {
  if (classification.class === 'unclassified') return [];
  const opened: Circuit[] = [];
  const failingKey = circuitKey(classification.scope, descriptors);
  const hint = latestHint(classification);
  if (failingKey !== null && classification.scope !== null) {
    opened.push(
      openCircuit(current.get(failingKey) ?? null, failingKey, classification.scope, routeId, nowMs, hint),
    );
  }
  // A probe that failed for another scope still failed: its circuits reopen rather than wait out the lease.
  for (const circuit of current.values()) {
    if (circuit.key !== failingKey && circuit.state === 'half_open' && circuit.probeOwner === routeId) {
      opened.push(openCircuit(circuit, circuit.key, circuit.scope, routeId, nowMs, null));
    }
  }
  return opened;
}

/** The circuits a success of `routeId` closes: those it probes or opened itself. */
export function circuitsAfterSuccess(current: ReadonlyMap<string, Circuit>, routeId: string): Circuit[] {
  return [...current.values()]
    .filter((c) => c.state !== 'closed' && (c.probeOwner === routeId || c.openedBy === routeId))
    .map((c) => ({
      ...c,
      state: 'closed',
      openedBy: null,
      probeOwner: null,
      probeLeaseUntilMs: 0,
      version: c.version + 1,
    }));
}

export type DispatchGate =
  | { readonly verdict: 'free' }
  | { readonly verdict: 'probe'; readonly circuit: Circuit }
  | {
      readonly verdict: 'hold';
      /** When to look again: the end of another route's probe lease, or the circuit's `open_until`. */
      readonly untilMs: number;
      /** How long the circuit itself stays open (its `open_until`), or null when only a probe lease holds. */
      readonly openUntilMs: number | null;
    };

/**
 * May `routeId` dispatch now on this circuit? Free when closed. Held while another route's probe lease is live,
 * and while the circuit is open (before its `open_until`) for every route but its opener: the opener keeps its
 * own policy's cadence (CIR-02) and takes the probe lease without shortening `open_until`. A lease that lapsed
 * without an outcome admits no new probe before `open_until` (CIR-01 decision). Otherwise the asker takes the
 * 30 s probe lease (half-open).
 */
export function gateDispatch(circuit: Circuit | null, routeId: string, nowMs: number): DispatchGate {
  if (circuit === null || circuit.state === 'closed') return { verdict: 'free' };
  const open = nowMs < circuit.openUntilMs;
  if (circuit.probeOwner !== null && circuit.probeOwner !== routeId && nowMs < circuit.probeLeaseUntilMs) {
    return {
      verdict: 'hold',
      untilMs: circuit.probeLeaseUntilMs,
      openUntilMs: open ? circuit.openUntilMs : null,
    };
  }
  if (open && circuit.openedBy !== routeId) {
    return { verdict: 'hold', untilMs: circuit.openUntilMs, openUntilMs: circuit.openUntilMs };
  }
  return {
    verdict: 'probe',
    circuit: {
      ...circuit,
      state: 'half_open',
      probeOwner: routeId,
      probeLeaseUntilMs: nowMs + circuitDefaults.probeLeaseMs,
      version: circuit.version + 1,
    },
  };
}

/**
 * A probe lease that lapsed without an outcome returns the circuit to `open` until its `open_until` (CIR-01
 * decision); returns the circuit unchanged otherwise. Writing the settled circuit is what makes the lapse visible.
 */
export function settleLapsedLease(circuit: Circuit, nowMs: number): Circuit {
  if (circuit.state !== 'half_open' || circuit.probeOwner === null || nowMs < circuit.probeLeaseUntilMs)
    return circuit;
  return { ...circuit, state: 'open', probeOwner: null, probeLeaseUntilMs: 0, version: circuit.version + 1 };
}

/** Whether another route may choose a candidate behind this circuit now (closed, or expired with no live probe). */
export function admitsCandidate(circuit: Circuit | null, nowMs: number): boolean {
  if (circuit === null || circuit.state === 'closed') return true;
  if (circuit.probeOwner !== null && nowMs < circuit.probeLeaseUntilMs) return false;
  return nowMs >= circuit.openUntilMs;
}
