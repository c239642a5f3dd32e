import type { DispatchKind, ScheduledRoute } from '../core/index.js';

/** An attempt a restart found in an uncertain place (an ambiguous dispatch, or an orphaned attempt). */
export interface ReconciledAttempt {
  readonly routeId: string;
  readonly generation: number;
  readonly intentId: string;
  readonly kind: DispatchKind;
  readonly candidate: string;
}

/** What restart reconciliation found and did; a returned value, never a throw. */
export interface ReconciliationReport {
  /** Waiting routes whose schedule never reached an intent: their deadlines are armed again. */
  readonly rearmed: readonly ScheduledRoute[];
  /** Routes whose dispatch had no acknowledgement: now `action_required` (ambiguous dispatch), never repeated. */
  readonly stopped: readonly ReconciledAttempt[];
  /**
   * Routes whose attempt was accepted and never answered: the process that ran it may be gone. Nothing is
   * inferred (OUT-01); each is marked so that Stop and Retry now may take it over, and its late report still counts.
   */
  readonly orphaned: readonly ReconciledAttempt[];
  /** Unacknowledged intents a later transition had already replaced (only marked). */
  readonly superseded: number;
  readonly durationMs: number;
}
