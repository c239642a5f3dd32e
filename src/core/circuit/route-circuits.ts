import {
  admitsCandidate,
  circuitKeysOf,
  gateDispatch,
  settleLapsedLease,
  type Circuit,
  type CircuitDescriptors,
} from './circuit.js';
import type { ProfileCandidate } from '../policy/policy-document.js';

/** The non-secret descriptors of a candidate: its profile id, and the provider and model it declares. */
export function descriptorsOf(
  candidates: readonly ProfileCandidate[],
  candidateId: string,
): CircuitDescriptors {
  const candidate = candidates.find((c) => c.profile_id === candidateId);
  return { profileId: candidateId, provider: candidate?.provider ?? null, model: candidate?.model ?? null };
}

/** Every circuit a route on these candidates may touch (its current candidate included): the world to load. */
export function routeCircuitKeys(candidates: readonly ProfileCandidate[], candidateId: string): string[] {
  const ids = new Set([candidateId, ...candidates.map((c) => c.profile_id)]);
  return [...new Set([...ids].flatMap((id) => circuitKeysOf(descriptorsOf(candidates, id))))];
}

/** Whether another route may choose this candidate now: no circuit it sits behind refuses it. */
export function admittedBy(
  circuits: ReadonlyMap<string, Circuit>,
  candidates: readonly ProfileCandidate[],
  nowMs: number,
): (candidateId: string) => boolean {
  return (candidateId) =>
    circuitKeysOf(descriptorsOf(candidates, candidateId)).every((k) =>
      admitsCandidate(circuits.get(k) ?? null, nowMs),
    );
}

export type CandidateGate =
  | {
      readonly verdict: 'held';
      /** When to look again (the latest hold of the candidate's circuits). */
      readonly untilMs: number;
      /** The latest `open_until` of the circuits that hold it, or null when only probe leases hold it. */
      readonly openUntilMs: number | null;
      /** The circuit that holds longest, for the record. */
      readonly key: string;
      /** Circuits whose lapsed lease was settled back to open: written even though nothing is dispatched. */
      readonly writes: readonly Circuit[];
    }
  | { readonly verdict: 'free'; readonly writes: readonly Circuit[] };

/**
 * Asks every circuit of a candidate whether `routeId` may dispatch on it now. Held until the latest hold; or free,
 * with the writes to make: lapsed leases settled, and the probe leases the dispatch takes.
 */
export function gateCandidate(
  circuits: ReadonlyMap<string, Circuit>,
  descriptors: CircuitDescriptors,
  routeId: string,
  nowMs: number,
): CandidateGate {
  let held: { untilMs: number; key: string } | null = null;
  let openUntilMs: number | null = null;
  const settled: Circuit[] = [];
  const leases: Circuit[] = [];
  for (const key of circuitKeysOf(descriptors)) {
    const stored = circuits.get(key) ?? null;
    const circuit = stored === null ? null : settleLapsedLease(stored, nowMs);
    if (circuit !== null && circuit !== stored) settled.push(circuit);
    const gate = gateDispatch(circuit, routeId, nowMs);
    if (gate.verdict === 'hold') {
      if (held === null || gate.untilMs > held.untilMs) held = { untilMs: gate.untilMs, key };
      if (gate.openUntilMs !== null) openUntilMs = Math.max(openUntilMs ?? 0, gate.openUntilMs);
    } else if (gate.verdict === 'probe') leases.push(gate.circuit);
  }
  if (held !== null) return { verdict: 'held', ...held, openUntilMs, writes: settled };
  // A lease taken on a settled circuit supersedes the settled write of the same key.
  const leased = new Set(leases.map((c) => c.key));
  return { verdict: 'free', writes: [...settled.filter((c) => !leased.has(c.key)), ...leases] };
}
