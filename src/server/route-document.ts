import {
  failureInWords,
  type DynamicProfile,
  type FailureSummary,
  type RouteSnapshot,
} from '../core/index.js';

/**
 * A route as the API, the event stream and the operator CLI show it (API-03): snake_case, absolute times as
 * ISO-8601 UTC, the stable code and class, the retry ordinal of its maximum, the deadline, the pending outcome,
 * the next candidate when a skip is pending and the uncertain candidate after an ambiguous dispatch. The caller's
 * payload is not shown: it may hold the prompt, and viewers read routes.
 */
export interface RouteDocument {
  readonly id: string;
  readonly mode: string;
  readonly profile_id: string;
  readonly caller: string;
  readonly state: string;
  readonly outcome: string;
  readonly candidate: string;
  readonly generation: number;
  readonly revision: number;
  readonly cycle: number;
  readonly code: string | null;
  readonly class: string | null;
  readonly retry_ordinal: number | null;
  readonly max_retries: number | null;
  readonly deadline_at: string | null;
  readonly pending_outcome: string | null;
  readonly next_candidate: string | null;
  readonly uncertain_candidate: string | null;
  readonly reason: string | null;
  readonly detail: string | null;
  readonly recovery_actions: readonly string[];
  readonly last_failure: FailureSummary | null;
  /** The last failure's cause in safe human words (the retry notice's), null when nothing failed. */
  readonly cause: string | null;
  /** The provider and model: the last failure's, else the current candidate's descriptors in the profile. */
  readonly provider: string | null;
  readonly model: string | null;
  readonly dispatch: {
    readonly id: string;
    readonly kind: string;
    readonly candidate: string;
    readonly acknowledged: boolean;
    readonly finished: boolean;
    readonly orphaned: boolean;
  } | null;
  readonly excluded: readonly string[];
  readonly updated_at: string;
}

/** `profile` (the route's dynamic profile as stored now, when known) names the candidate a pending skip goes to. */
export function routeDocument(route: RouteSnapshot, profile: DynamicProfile | null): RouteDocument {
  const waiting = route.state === 'retry_wait' || route.state === 'waiting_for_reset' ? route : null;
  const d = route.dispatch;
  const failure = route.lastFailure;
  const current = profile?.candidates.find((c) => c.profile_id === route.candidate);
  return {
    id: route.id,
    mode: route.mode,
    profile_id: route.profileId,
    caller: route.caller,
    state: route.state,
    outcome: route.outcome,
    candidate: route.candidate,
    generation: route.generation,
    revision: route.revision,
    cycle: route.cycle,
    code: route.lastFailure?.code ?? null,
    class: route.lastFailure?.class ?? null,
    retry_ordinal:
      route.state === 'retry_wait' || route.state === 'retrying' ? (route.retryOrdinal ?? null) : null,
    max_retries: route.state === 'retry_wait' ? route.maxRetries : null,
    deadline_at: waiting === null ? null : new Date(waiting.deadlineMs).toISOString(),
    pending_outcome: waiting?.pendingOutcome ?? null,
    next_candidate:
      route.state === 'switching'
        ? route.nextCandidate
        : waiting?.pendingOutcome === 'skip'
          ? plannedSuccessor(route, profile)
          : null,
    uncertain_candidate:
      route.state === 'action_required' && route.reason === 'ambiguous_dispatch'
        ? (d?.candidate ?? null)
        : null,
    reason: route.state === 'action_required' ? route.reason : null,
    detail: route.state === 'action_required' ? route.detail : null,
    recovery_actions: route.state === 'action_required' ? route.recoveryActions : [],
    last_failure: route.lastFailure,
    cause: failure === null ? null : failureInWords(failure),
    provider: failure?.provider_id ?? current?.provider ?? null,
    model: failure?.model_id ?? current?.model ?? null,
    dispatch:
      d === null
        ? null
        : {
            id: d.intentId,
            kind: d.kind,
            candidate: d.candidate,
            acknowledged: d.acknowledged,
            finished: d.finished,
            orphaned: d.orphaned,
          },
    excluded: route.excluded,
    updated_at: new Date(route.updatedAtMs).toISOString(),
  };
}

/**
 * The candidate a skip would move to as the profile stands now: the next enabled one after the current, not
 * excluded this cycle. A circuit that opens meanwhile may still change it; the switch itself says where it went.
 */
function plannedSuccessor(route: RouteSnapshot, profile: DynamicProfile | null): string | null {
  if (profile === null) return null;
  const order = profile.candidates.filter((c) => c.enabled).map((c) => c.profile_id);
  const at = order.indexOf(route.candidate);
  for (const id of order.slice(at + 1)) {
    if (!route.excluded.includes(id)) return id;
  }
  return null;
}
