import {
  admitsCandidate,
  circuitKeysOf,
  gateDispatch,
  type Circuit,
  type CircuitDescriptors,
  type DynamicProfile,
  type StoreTransaction,
} from '../core/index.js';

/** The non-secret descriptors of a candidate: its profile id, and the provider and model it declares. */
export function descriptorsOf(profile: DynamicProfile | null, candidateId: string): CircuitDescriptors {
  const candidate = profile?.candidates.find((c) => c.profile_id === candidateId);
  return { profileId: candidateId, provider: candidate?.provider ?? null, model: candidate?.model ?? null };
}

/** Every circuit any candidate of the route may touch, read in one query. */
export function readRouteCircuits(
  tx: StoreTransaction,
  profile: DynamicProfile | null,
  candidateId: string,
): Promise<ReadonlyMap<string, Circuit>> {
  const ids = new Set([candidateId, ...(profile?.candidates.map((c) => c.profile_id) ?? [])]);
  const keys = [...ids].flatMap((id) => circuitKeysOf(descriptorsOf(profile, id)));
  return tx.readCircuits([...new Set(keys)]);
}

/** Whether another route may choose this candidate now: no circuit it sits behind refuses it. */
export function admittedBy(
  circuits: ReadonlyMap<string, Circuit>,
  profile: DynamicProfile | null,
  nowMs: number,
): (candidateId: string) => boolean {
  return (candidateId) =>
    circuitKeysOf(descriptorsOf(profile, candidateId)).every((k) =>
      admitsCandidate(circuits.get(k) ?? null, nowMs),
    );
}

export type Gate = { readonly held: number } | { readonly leases: readonly Circuit[] };

/** Asks every circuit of a candidate: held until the latest hold, or free with the probe leases to take. */
export function gateCandidate(
  circuits: ReadonlyMap<string, Circuit>,
  descriptors: CircuitDescriptors,
  routeId: string,
  nowMs: number,
): Gate {
  let held = 0;
  const leases: Circuit[] = [];
  for (const key of circuitKeysOf(descriptors)) {
    const gate = gateDispatch(circuits.get(key) ?? null, routeId, nowMs);
    if (gate.verdict === 'hold') held = Math.max(held, gate.untilMs);
    else if (gate.verdict === 'probe') leases.push(gate.circuit);
  }
  return held > 0 ? { held } : { leases };
}

/**
 * Writes circuits fenced by the version read. A lost race (another node moved the circuit) aborts the
 * transaction: the work is retried alone and reads the winner's circuit.
 */
export async function writeCircuits(
  tx: StoreTransaction,
  changed: readonly Circuit[],
  read: ReadonlyMap<string, Circuit>,
): Promise<void> {
  for (const circuit of changed) {
    const expected = read.get(circuit.key)?.version ?? 0;
    if (!(await tx.writeCircuit(circuit, expected))) {
      throw new Error(`circuit ${circuit.key} changed concurrently (expected version ${expected})`);
    }
  }
}
