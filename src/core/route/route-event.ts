import type { RouteState } from './route.js';
import type { Evidence } from '../evidence/evidence.js';
import type { ReplayEvidence } from '../safety/replay-evidence.js';
import type { ReplayProgress } from '../safety/replay-progress.js';

export const manualActions = ['retry_now', 'skip_now', 'cancel', 'stop'] as const;
export type ManualAction = (typeof manualActions)[number];

/** A provider failure of an attempt, as its adapter reported it. */
export interface FailureFacts {
  /** The generation of the attempt that failed. */
  readonly generation: number;
  /** The dispatch intent (invocation) the failure answers, when the caller knows it. */
  readonly invocationId: string | null;
  /** The terminal evidence, validated and bounded (`parseEnvelope`). */
  readonly evidence: Evidence;
  /**
   * The attempt's replay evidence snapshot; or, when null, the plain facts of `progress` (keyed to the route's
   * attempt); with neither, the failure is unsafe (missing evidence fails closed).
   */
  readonly replay: ReplayEvidence | null;
  readonly progress?: ReplayProgress | null;
  /** The agent's own prompt call is still open: it owns its retry, Recourse schedules nothing. */
  readonly promptOpen: boolean;
}

/** Everything that can move a route; one decision function per type (`decide`). */
export type RouteEvent =
  | ({ readonly type: 'failure' } & FailureFacts)
  | { readonly type: 'success'; readonly generation: number; readonly invocationId: string | null }
  /** The durable timer fired for the generation that armed it. */
  | { readonly type: 'deadline'; readonly generation: number }
  /** The dispatcher accepted an intent, or could not confirm it (delivery uncertain). */
  | {
      readonly type: 'dispatch_result';
      readonly intentId: string;
      readonly result: 'acknowledged' | 'ambiguous';
    }
  | {
      readonly type: 'action';
      readonly action: ManualAction;
      readonly expectedGeneration: number;
      /** The state the user saw, when known: two actions racing within one generation then commit one outcome. */
      readonly expectedState?: RouteState;
    }
  /** A new user prompt begins on the route (the caller sent it); it becomes the route's current attempt. */
  | { readonly type: 'prompt'; readonly expectedGeneration?: number }
  /** Restart reconciliation looks at a route whose attempt was accepted and never answered. */
  | { readonly type: 'restart' }
  /** A circuit closed that held routes until one of `heldUntilMs` (its probe lease's end, its `open_until`). */
  | { readonly type: 'circuit_closed'; readonly circuitKey: string; readonly heldUntilMs: readonly number[] };

export const refusalReasons = [
  'stale_generation',
  'stale_state',
  'stale_invocation',
  'not_allowed',
  'stale_evidence',
  'prompt_open',
  'stale_timer',
  'stale_dispatch',
  /** The route was cancelled or stopped while this attempt ran: its failure is history and schedules nothing. */
  'route_stopped',
] as const;
export type RefusalReason = (typeof refusalReasons)[number];
