import type { Circuit, TranscriptMessage } from '../core/index.js';

/** A shared circuit as viewers see it (no route id of another caller: only whether a probe is leased). */
export function circuitDocument(circuit: Circuit) {
  return {
    key: circuit.key,
    scope: circuit.scope,
    state: circuit.state,
    open_until: new Date(circuit.openUntilMs).toISOString(),
    probe_leased: circuit.probeOwner !== null,
    probe_lease_until: circuit.probeOwner === null ? null : new Date(circuit.probeLeaseUntilMs).toISOString(),
    version: circuit.version,
  };
}

/** A whole transcript message (the seed's `session.message.*` events carry the message itself). */
export function messageDocument(message: TranscriptMessage) {
  return {
    id: message.id,
    task_id: message.taskId,
    session_id: message.sessionId,
    turn_id: message.turnId,
    kind: message.kind,
    content: message.content,
    metadata: message.metadata,
    created_at: new Date(message.createdAtMs).toISOString(),
    updated_at: new Date(message.updatedAtMs).toISOString(),
  };
}
