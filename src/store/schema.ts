import type { Generated } from 'kysely';

/** The relational schema shared by the SQLite and (later) PostgreSQL adapters. Times are epoch ms (UTC). */
export interface Database {
  profiles: ProfileRow;
  retired_profiles: RetiredProfileRow;
  retired_routes: RetiredRouteRow;
  routes: RouteRow;
  attempts: AttemptRow;
  dispatch_intents: IntentRow;
  circuits: CircuitRow;
  replay_snapshots: ReplaySnapshotRow;
  plan_errors: PlanErrorRow;
  plans: PlanRow;
  session_messages: SessionMessageRow;
  task_sessions: TaskSessionRow;
  events: EventRow;
}

export interface ProfileRow {
  id: string;
  version: number;
  name: string;
  /** The normalized dynamic profile as JSON. */
  document: string;
  created_at_ms: number;
}

/** A deleted profile's last version: a profile created again under its id goes on numbering from it. */
export interface RetiredProfileRow {
  id: string;
  last_version: number;
  retired_at_ms: number;
}

/** A purged route's last generation: a route started again under its id goes on from it. */
export interface RetiredRouteRow {
  id: string;
  last_generation: number;
  retired_at_ms: number;
}

export interface RouteRow {
  id: string;
  mode: string;
  profile_id: string;
  caller: string;
  candidate: string;
  state: string;
  generation: number;
  revision: number;
  cycle: number;
  excluded: string;
  usage: string;
  last_failure: string | null;
  dispatch: string | null;
  deadline_ms: number | null;
  failure_class: string | null;
  retry_ordinal: number | null;
  max_retries: number | null;
  pending_outcome: string | null;
  next_candidate: string | null;
  reason: string | null;
  detail: string | null;
  recovery_actions: string | null;
  /** The caller's payload as JSON text (migration 0004). */
  payload: string | null;
  created_at_ms: number;
  updated_at_ms: number;
  /** The node that claimed the due route, and until when (SQLite 0008, PostgreSQL 0002); any write clears both. */
  lease_owner: string | null;
  lease_until_ms: number | null;
}

export interface AttemptRow {
  seq: Generated<number>;
  route_id: string;
  candidate: string;
  generation: number;
  code: string | null;
  failure_class: string;
  catalogue_version: string;
  rule: string | null;
  policy_snapshot: string | null;
  decision: string;
  retry_ordinal: number | null;
  deadline_ms: number | null;
  pending_outcome: string | null;
  safe_excerpt: string;
  /** Added by migration 0003. */
  note: string | null;
  at_ms: number;
  /** Added by migration 0007: `policy`, `retry_after`, `reset_at`, or null (no deadline, or a row older than 0007). */
  delay_source: string | null;
}

export interface IntentRow {
  id: string;
  route_id: string;
  generation: number;
  candidate: string;
  kind: string;
  created_at_ms: number;
  outcome: string | null;
  resolved_at_ms: number | null;
}

export interface CircuitRow {
  key: string;
  scope: string;
  state: string;
  open_until_ms: number;
  opened_by: string | null;
  probe_owner: string | null;
  probe_lease_until_ms: number;
  version: number;
}

export interface ReplaySnapshotRow {
  route_id: string;
  generation: number;
  session_id: string;
  execution_id: string;
  prompt_generation: number;
  counts: string;
  assistant_excerpt: string;
  at_ms: number;
}

export interface PlanErrorRow {
  plan_id: string;
  seq: number;
  record: string;
  at_ms: number;
}

/** Migration 0006. */
export interface PlanRow {
  id: string;
  phase: string;
  state: string;
  auto_retry_threshold: number;
  max_retries: number;
  /** 0 or 1. */
  subplan: number;
  /** JSON object of string values. */
  error_details: string;
  retry_since: number;
  revision: number;
  created_at_ms: number;
  updated_at_ms: number;
}

export interface SessionMessageRow {
  id: string;
  task_id: string;
  session_id: string;
  turn_id: string | null;
  kind: string;
  content: string;
  /** JSON object. */
  metadata: string;
  created_at_ms: number;
  updated_at_ms: number;
}

export interface TaskSessionRow {
  session_id: string;
  task_id: string;
  owner: string;
  route_id: string;
  created_at_ms: number;
}

export interface EventRow {
  id: Generated<number>;
  type: string;
  at_ms: number;
  /** The event's document as JSON (what a client receives). */
  data: string;
}
