import type { Selectable } from 'kysely';
import {
  ConfigurationError,
  validateDynamicProfile,
  type Circuit,
  type DelaySource,
  type DispatchIntent,
  type DynamicProfile,
  type StoredAttempt,
} from '../core/index.js';
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

/** The circuit as its row, for an insert or a version-fenced update (the inverse of `circuitOfRow`). */
export function circuitToRow(c: Circuit): CircuitRow {
  return {
    key: c.key,
    scope: c.scope,
    state: c.state,
    open_until_ms: c.openUntilMs,
    opened_by: c.openedBy,
    probe_owner: c.probeOwner,
    probe_lease_until_ms: c.probeLeaseUntilMs,
    version: c.version,
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

/** A new intent as its row: pending, with no outcome yet (the inverse of `intentOfRow`). */
export function intentToRow(i: DispatchIntent): IntentRow {
  return {
    id: i.id,
    route_id: i.routeId,
    generation: i.generation,
    candidate: i.candidate,
    kind: i.kind,
    created_at_ms: i.createdAtMs,
    outcome: null,
    resolved_at_ms: null,
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
    note: r.note,
    atMs: r.at_ms,
    delaySource: delaySourceOf(r.delay_source),
  };
}

/**
 * Parsed profile documents by their stored text: every decision reads the route's profile, and the document
 * rarely changes, so the parse is reused while the text is the same. A stored document is validated on the way in
 * like any input (POL-20): one that no longer validates throws `ConfigurationError` naming the profile, its
 * version and every invalid field, and authorizes nothing.
 */
export class ProfileDocuments {
  private readonly byText = new Map<string, DynamicProfile>();

  parse(id: string, version: number, text: string): DynamicProfile {
    const cached = this.byText.get(text);
    if (cached !== undefined) return cached;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ConfigurationError(
        id,
        [{ path: '', message: 'the stored document is not valid JSON' }],
        version,
      );
    }
    const checked = validateDynamicProfile(value);
    if (!checked.ok) throw new ConfigurationError(id, checked.issues, version);
    if (this.byText.size >= 64) this.byText.clear();
    this.byText.set(text, checked.value);
    return checked.value;
  }
}

/** A stored delay source; anything else (a row written before migration 0007) is unknown. */
function delaySourceOf(value: string | null): DelaySource | null {
  return value === 'policy' || value === 'retry_after' || value === 'reset_at' ? value : null;
}
