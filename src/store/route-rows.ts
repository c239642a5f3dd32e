import {
  redactSecrets,
  safeExcerpt,
  type AttemptRecord,
  type CandidateUsage,
  type FailureSummary,
  type JsonValue,
  type PendingDispatch,
  type ReplayEvidence,
  type Route,
} from '../core/index.js';
import type { AttemptRow, ReplaySnapshotRow, RouteRow } from './schema.js';

/** A route as one row: shared fields as columns, state-specific fields in their own nullable columns. */
export function routeToRow(route: Route, createdAtMs: number): RouteRow {
  const row: RouteRow = {
    id: route.id,
    mode: route.mode,
    profile_id: route.profileId,
    caller: route.caller,
    candidate: route.candidate,
    state: route.state,
    generation: route.generation,
    revision: route.revision,
    cycle: route.cycle,
    excluded: JSON.stringify(route.excluded),
    usage: JSON.stringify(route.usage),
    last_failure: route.lastFailure === null ? null : JSON.stringify(route.lastFailure),
    dispatch: route.dispatch === null ? null : JSON.stringify(route.dispatch),
    deadline_ms: null,
    failure_class: null,
    retry_ordinal: null,
    max_retries: null,
    pending_outcome: null,
    next_candidate: null,
    reason: null,
    detail: null,
    recovery_actions: null,
    payload: route.payload === null ? null : JSON.stringify(route.payload),
    created_at_ms: createdAtMs,
    updated_at_ms: route.updatedAtMs,
    // Every write of a route frees its timer lease: a new deadline must not wait for an old claim to expire.
    lease_owner: null,
    lease_until_ms: null,
  };
  switch (route.state) {
    case 'waiting_for_reset':
      return {
        ...row,
        deadline_ms: route.deadlineMs,
        failure_class: route.failureClass,
        pending_outcome: route.pendingOutcome,
        reason: heldReason(route),
      };
    case 'retry_wait':
      return {
        ...row,
        deadline_ms: route.deadlineMs,
        failure_class: route.failureClass,
        retry_ordinal: route.retryOrdinal,
        max_retries: route.maxRetries,
        pending_outcome: route.pendingOutcome,
        reason: heldReason(route),
      };
    case 'switching':
      return { ...row, next_candidate: route.nextCandidate };
    case 'action_required':
      return {
        ...row,
        reason: route.reason,
        detail: route.detail,
        recovery_actions: JSON.stringify(route.recoveryActions),
      };
    case 'retrying':
      return { ...row, retry_ordinal: route.retryOrdinal };
    case 'active':
      return row;
  }
}

/**
 * A waiting route's `reason` column says why it waits when that is not its own policy: `circuit_hold` for a
 * deadline that is a circuit's hold (no migration: the column is the action-required reason's, null while waiting).
 */
const circuitHold = 'circuit_hold';

function heldReason(route: { readonly heldByCircuit?: true }): string | null {
  return route.heldByCircuit === true ? circuitHold : null;
}

function heldOfRow(row: RouteRow): { heldByCircuit?: true } {
  return row.reason === circuitHold ? { heldByCircuit: true } : {};
}

export function rowToRoute(row: RouteRow): Route {
  const common = {
    id: row.id,
    mode: row.mode as Route['mode'],
    profileId: row.profile_id,
    caller: row.caller as Route['caller'],
    candidate: row.candidate,
    generation: row.generation,
    revision: row.revision,
    cycle: row.cycle,
    excluded: JSON.parse(row.excluded) as string[],
    usage: JSON.parse(row.usage) as CandidateUsage,
    lastFailure: row.last_failure === null ? null : (JSON.parse(row.last_failure) as FailureSummary),
    dispatch: row.dispatch === null ? null : dispatchOfJson(row.dispatch),
    payload:
      row.payload === null || row.payload === undefined ? null : (JSON.parse(row.payload) as JsonValue),
    updatedAtMs: row.updated_at_ms,
  };
  switch (row.state) {
    case 'waiting_for_reset':
      return {
        ...common,
        state: 'waiting_for_reset',
        deadlineMs: row.deadline_ms!,
        failureClass: row.failure_class as 'transient' | 'hard',
        pendingOutcome: row.pending_outcome as 'skip' | 'stop' | null,
        ...heldOfRow(row),
      };
    case 'retry_wait':
      return {
        ...common,
        state: 'retry_wait',
        deadlineMs: row.deadline_ms!,
        failureClass: row.failure_class as 'transient' | 'hard',
        retryOrdinal: row.retry_ordinal!,
        maxRetries: row.max_retries!,
        pendingOutcome: row.pending_outcome as 'skip' | 'stop' | null,
        ...heldOfRow(row),
      };
    case 'switching':
      return { ...common, state: 'switching', nextCandidate: row.next_candidate! };
    case 'action_required':
      return {
        ...common,
        state: 'action_required',
        reason: row.reason as Extract<Route, { state: 'action_required' }>['reason'],
        detail: row.detail,
        recoveryActions: row.recovery_actions === null ? [] : (JSON.parse(row.recovery_actions) as string[]),
      };
    case 'retrying':
      return { ...common, state: 'retrying', retryOrdinal: row.retry_ordinal };
    default:
      return { ...common, state: 'active' };
  }
}

/** Rows written before attempts knew whether they finished or were orphaned read as neither. */
function dispatchOfJson(text: string): PendingDispatch {
  const d = JSON.parse(text) as Partial<PendingDispatch> & Omit<PendingDispatch, 'finished' | 'orphaned'>;
  return { ...d, finished: d.finished ?? false, orphaned: d.orphaned ?? false };
}

/** An attempt as its row (without the sequence number the database assigns), the same on SQLite and PostgreSQL. */
export function attemptToRow(a: AttemptRecord): Omit<AttemptRow, 'seq'> {
  return {
    route_id: a.routeId,
    candidate: a.candidate,
    generation: a.generation,
    code: a.code,
    failure_class: a.failureClass,
    catalogue_version: a.catalogueVersion,
    rule: a.rule,
    policy_snapshot: a.policySnapshot === null ? null : JSON.stringify(a.policySnapshot),
    decision: a.decision,
    retry_ordinal: a.retryOrdinal,
    deadline_ms: a.deadlineMs,
    pending_outcome: a.pendingOutcome,
    safe_excerpt: a.safeExcerpt,
    note: a.note,
    at_ms: a.atMs,
    delay_source: a.delaySource,
  };
}

/**
 * A replay snapshot as its row, the same on SQLite and PostgreSQL: the assistant's text is kept only as a redacted,
 * bounded excerpt.
 */
export function replayToRow(
  routeId: string,
  generation: number,
  s: ReplayEvidence,
  atMs: number,
): ReplaySnapshotRow {
  return {
    route_id: routeId,
    generation,
    session_id: s.key.sessionId,
    execution_id: s.key.executionId,
    prompt_generation: s.key.promptGeneration,
    counts: JSON.stringify(s.counts),
    assistant_excerpt: safeExcerpt(redactSecrets(s.assistantText)),
    at_ms: atMs,
  };
}
