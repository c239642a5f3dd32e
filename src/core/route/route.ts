import type { PolicyClass } from '../catalogue/codes.js';
import type { ExhaustedOutcome } from '../policy/policy-document.js';
import type { JsonValue } from '../validation/json-payload.js';

/** The durable state of one logical session on a dynamic profile (or of one interactive concrete-profile session). */
export const routeStates = [
  'active',
  'waiting_for_reset',
  'retry_wait',
  'retrying',
  'switching',
  'action_required',
] as const;
export type RouteState = (typeof routeStates)[number];

/** Every caller goes through the same evaluator with the same policy snapshot; the kind is presentation only. */
export const callerKinds = ['task', 'workflow', 'utility', 'office', 'plan'] as const;
export type CallerKind = (typeof callerKinds)[number];

/** `dynamic`: a dynamic profile's candidates and policies. `interactive`: one concrete profile's built-in retry. */
export const routeModes = ['dynamic', 'interactive'] as const;
export type RouteMode = (typeof routeModes)[number];

/**
 * What an attempt is: the engine dispatches `initial`, `retry`, `reset_retry`, `successor` and `manual`
 * attempts; a `prompt` is a new user prompt the caller sent itself and announced (never dispatched by Recourse).
 */
export const dispatchKinds = ['initial', 'retry', 'reset_retry', 'successor', 'manual', 'prompt'] as const;
export type DispatchKind = (typeof dispatchKinds)[number];

/** Why a route needs a person. */
export const actionReasons = [
  'exhausted',
  'unclassified',
  'unsafe',
  'candidates_exhausted',
  'ambiguous_dispatch',
  'cancelled',
  'stopped',
  'not_retriable',
  'invalid_configuration',
  /** A shared circuit stays open longer than the policy waits, no other candidate is left, and it ends in stop. */
  'circuit_open',
] as const;
export type ActionReason = (typeof actionReasons)[number];

/** What the current candidate has used of its class policies in this route cycle. */
export interface CandidateUsage {
  readonly retriesUsed: Readonly<Record<PolicyClass, number>>;
  readonly resetWaitUsed: Readonly<Record<PolicyClass, boolean>>;
}

/** The last failure that drove a decision: only classifier output (sanitized, bounded). */
export interface FailureSummary {
  readonly code: string | null;
  readonly provider_id: string | null;
  readonly model_id: string | null;
  readonly scope: string | null;
  readonly class: string;
  /** Why an unclassified failure is unclassified (`unknown`, `not_provider`, ...); null otherwise. */
  readonly reason?: string | null;
  readonly catalogue_version: string;
  readonly classifier_rule: string | null;
  readonly safe_excerpt: string;
  readonly retry_after: string | null;
  readonly reset_at: string | null;
}

/**
 * The route's current attempt: its dispatch intent (written in the same transaction as the transition that asked
 * for it) and what is known of it since.
 */
export interface PendingDispatch {
  readonly intentId: string;
  readonly kind: DispatchKind;
  readonly candidate: string;
  /** Delivery is proven: the dispatcher acknowledged it, or the provider answered for the attempt. */
  readonly acknowledged: boolean;
  /** The attempt reported its outcome (a failure or a success): any later report for it is stale. */
  readonly finished: boolean;
  /**
   * A restart found the attempt accepted and unfinished: the process that ran it may be gone. Nothing is inferred
   * from that (OUT-01), but Stop and Retry now may take the route over; a late report still counts.
   */
  readonly orphaned: boolean;
}

/** The fields every route state shares. */
export interface RouteCommon {
  readonly id: string;
  readonly mode: RouteMode;
  readonly profileId: string;
  readonly caller: CallerKind;
  /** The current candidate (a concrete profile id). */
  readonly candidate: string;
  /** Increases when a new candidate attempt begins: start, switch, and leaving `action_required`. */
  readonly generation: number;
  /** Increases on every write; together with generation and state it fences concurrent writers. */
  readonly revision: number;
  /** Route cycle: skip exclusions and reset-wait use last one cycle. */
  readonly cycle: number;
  readonly excluded: readonly string[];
  readonly usage: CandidateUsage;
  readonly lastFailure: FailureSummary | null;
  /** The current attempt, if any (the initial, a retry, a successor, a manual one or a new prompt). */
  readonly dispatch: PendingDispatch | null;
  /** The caller's opaque data (at most 64 KiB of JSON): never interpreted, handed back with every dispatch. */
  readonly payload: JsonValue | null;
  readonly updatedAtMs: number;
}

export type Route =
  | (RouteCommon & { readonly state: 'active' })
  | (RouteCommon & {
      readonly state: 'waiting_for_reset';
      readonly deadlineMs: number;
      readonly failureClass: PolicyClass;
      readonly pendingOutcome: ExhaustedOutcome | null;
      readonly heldByCircuit?: true;
    })
  | (RouteCommon & {
      readonly state: 'retry_wait';
      readonly deadlineMs: number;
      readonly failureClass: PolicyClass;
      readonly retryOrdinal: number;
      readonly maxRetries: number;
      readonly pendingOutcome: ExhaustedOutcome | null;
      /**
       * The deadline is the end of a shared circuit's hold (`circuit_hold`: its probe lease's end or its
       * `open_until`), not the policy's own wait: a circuit that closes wakes the route (`circuit_closed`). Absent
       * when the route waits for its own policy, even should its deadline fall on the same instant.
       */
      readonly heldByCircuit?: true;
    })
  | (RouteCommon & {
      readonly state: 'retrying';
      /** The retry ordinal being attempted (a retry after `retry_wait`), else null. */
      readonly retryOrdinal: number | null;
    })
  | (RouteCommon & { readonly state: 'switching'; readonly nextCandidate: string })
  | (RouteCommon & {
      readonly state: 'action_required';
      readonly reason: ActionReason;
      readonly detail: string | null;
      /** Interactive routes offer the manual choices (`resume`, `start_fresh`). */
      readonly recoveryActions: readonly string[];
    });

export const freshUsage: CandidateUsage = Object.freeze({
  retriesUsed: Object.freeze({ transient: 0, hard: 0 }),
  resetWaitUsed: Object.freeze({ transient: false, hard: false }),
});

/** A new route: active on the first candidate, generation 1 (or `firstGeneration`), its initial dispatch pending. */
export function newRoute(input: {
  readonly id: string;
  readonly firstGeneration?: number;
  readonly mode: RouteMode;
  readonly profileId: string;
  readonly caller: CallerKind;
  readonly candidate: string;
  readonly intentId: string;
  readonly nowMs: number;
  readonly payload?: JsonValue | null;
}): Route {
  return {
    id: input.id,
    mode: input.mode,
    profileId: input.profileId,
    caller: input.caller,
    candidate: input.candidate,
    generation: input.firstGeneration ?? 1,
    revision: 1,
    cycle: 1,
    excluded: [],
    usage: freshUsage,
    lastFailure: null,
    dispatch: {
      intentId: input.intentId,
      kind: 'initial',
      candidate: input.candidate,
      acknowledged: false,
      finished: false,
      orphaned: false,
    },
    payload: input.payload ?? null,
    updatedAtMs: input.nowMs,
    state: 'active',
  };
}

/** The deadline a route waits for, or null. */
export function deadlineOf(route: Route): number | null {
  return route.state === 'waiting_for_reset' || route.state === 'retry_wait' ? route.deadlineMs : null;
}

/** The route's attempt while it runs: dispatched (or announced) and not yet answered by a failure or success. */
export function runningAttempt(route: RouteCommon): PendingDispatch | null {
  const d = route.dispatch;
  return d !== null && !d.finished ? d : null;
}

/**
 * An attempt a restart found accepted and never answered (see `PendingDispatch.orphaned`), while the route still
 * waits for it (`active`, `retrying` or `switching`).
 */
export function orphanedAttempt(route: Route): PendingDispatch | null {
  const attempt = runningAttempt(route);
  const waitsForIt = route.state === 'active' || route.state === 'retrying' || route.state === 'switching';
  return waitsForIt && attempt !== null && attempt.orphaned ? attempt : null;
}
