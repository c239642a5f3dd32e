import type { Classification } from '../classify/classification.js';
import type { RouteState } from './route.js';
import type { SafetyVerdict } from '../safety/safety-gate.js';

export const manualActions = ['retry_now', 'skip_now', 'cancel', 'stop'] as const;
export type ManualAction = (typeof manualActions)[number];

/** Everything that can move a route. */
export type RouteEvent =
  | {
      readonly type: 'failure';
      readonly classification: Classification;
      readonly safety: SafetyVerdict;
      /** The agent's own prompt call is still open: it owns its retry, Recourse schedules nothing. */
      readonly promptOpen?: boolean;
    }
  | { readonly type: 'success' }
  | {
      readonly type: 'deadline';
      /** The generation that armed the timer. */
      readonly generation: number;
      /** A shared circuit holds the dispatch until then (another route owns the probe). */
      readonly heldUntilMs?: number;
    }
  | { readonly type: 'dispatch_acknowledged'; readonly intentId: string }
  | { readonly type: 'dispatch_ambiguous'; readonly intentId: string }
  | {
      readonly type: 'action';
      readonly action: ManualAction;
      readonly expectedGeneration: number;
      /** The state the user saw, when known: two actions racing within one generation then commit one outcome. */
      readonly expectedState?: RouteState;
    };

export const refusalReasons = [
  'stale_generation',
  'stale_state',
  'stale_invocation',
  'not_allowed',
  'stale_evidence',
  'prompt_open',
  'stale_timer',
  'stale_dispatch',
] as const;
export type RefusalReason = (typeof refusalReasons)[number];
