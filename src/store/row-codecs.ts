import type { Selectable } from 'kysely';
import type { Circuit, DispatchIntent, DynamicProfile, StoredAttempt } from '../core/index.js';
import type { AttemptRow, CircuitRow, IntentRow } from './schema.js';

/** Rows to core records, shared by every adapter (the columns are the same on SQLite and PostgreSQL). */
export function circuitOfRow(row: CircuitRow): Circuit {
  return {
    key: row.key,
    scope: row.scope as Circuit['scope'],
    state: row.state as Circuit['state'],
    openUntilMs: row.open_until_ms,
    openedBy: row.opened_by,
    probeOwner: row.probe_owner,
    probeLeaseUntilMs: row.probe_lease_until_ms,
    version: row.version,
  };
}

export function intentOfRow(r: IntentRow): DispatchIntent {
  return {
    id: r.id,
    routeId: r.route_id,
    generation: r.generation,
    candidate: r.candidate,
    kind: r.kind as DispatchIntent['kind'],
    createdAtMs: r.created_at_ms,
  };
}

export function attemptOfRow(r: Selectable<AttemptRow>): StoredAttempt {
  return {
    seq: r.seq,
    routeId: r.route_id,
    candidate: r.candidate,
    generation: r.generation,
    code: r.code,
    failureClass: r.failure_class,
    catalogueVersion: r.catalogue_version,
    rule: r.rule,
    policySnapshot:
      r.policy_snapshot === null ? null : (JSON.parse(r.policy_snapshot) as StoredAttempt['policySnapshot']),
    decision: r.decision,
    retryOrdinal: r.retry_ordinal,
    deadlineMs: r.deadline_ms,
    pendingOutcome: r.pending_outcome,
    safeExcerpt: r.safe_excerpt,
    atMs: r.at_ms,
  };
}

/**
 * Parsed profile documents by their stored text: every decision reads the route's profile, and the document
 * rarely changes, so the parse is reused while the text is the same. Profiles are immutable values.
 */
export class ProfileDocuments {
  private readonly byText = new Map<string, DynamicProfile>();

  parse(text: string): DynamicProfile {
    const cached = this.byText.get(text);
    if (cached !== undefined) return cached;
    const profile = JSON.parse(text) as DynamicProfile;
    if (this.byText.size >= 64) this.byText.clear();
    this.byText.set(text, profile);
    return profile;
  }
}
