/**
 * The route documents the page reads (docs/server.md, API-03), as the service sends them. Fields the service added
 * for the web UI (`cause`, `provider`, `model`; an attempt's `delay_seconds`, `delay_source`) are optional: an
 * older service leaves them out and the page derives words from the classifier output instead.
 */
export interface FailureSummaryDoc {
  readonly code: string | null;
  readonly provider_id: string | null;
  readonly model_id: string | null;
  readonly class: string;
  readonly reason?: string | null;
  readonly catalogue_version: string;
  readonly classifier_rule: string | null;
  readonly retry_after: string | null;
  readonly reset_at: string | null;
}

export interface RouteDoc {
  readonly id: string;
  readonly mode: string;
  readonly profile_id: string;
  readonly caller: string;
  readonly state: string;
  readonly outcome: string;
  readonly candidate: string;
  readonly generation: number;
  readonly revision: number;
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
  readonly last_failure: FailureSummaryDoc | null;
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
  readonly cause?: string | null;
  readonly provider?: string | null;
  readonly model?: string | null;
}

export interface AttemptDoc {
  readonly seq: number;
  readonly candidate: string;
  readonly generation: number;
  readonly code: string | null;
  readonly class: string | null;
  readonly catalogue_version: string | null;
  readonly classifier_rule: string | null;
  /** The class policy the decision applied (null for rejections and interactive routes' built-in entry). */
  readonly policy?: {
    readonly retry?: { readonly initial_interval_seconds?: number };
  } | null;
  readonly decision: string;
  readonly retry_ordinal: number | null;
  readonly deadline_at: string | null;
  readonly pending_outcome: string | null;
  readonly at: string;
  readonly delay_seconds?: number | null;
  readonly delay_source?: 'policy' | 'retry_after' | 'reset_at' | null;
}

/** A `route.transition` event's data. */
export interface TransitionEvent {
  readonly route: RouteDoc;
  readonly from: string;
  readonly decision: string;
}

export type RouteAction = 'retry_now' | 'skip_now' | 'cancel' | 'stop';
