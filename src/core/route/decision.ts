import type { Route } from './route.js';
import type { RouteEffect } from './route-effect.js';
import type { RefusalReason } from './route-event.js';
import type { Circuit } from '../circuit/circuit.js';
import type { Classification } from '../classify/classification.js';
import type { ProfileCandidate } from '../policy/policy-document.js';

/** What moved a route: the `decision` of a changed outcome (closed; the simulator prints it as `reason`). */
export const routeDecisions = [
  'start',
  'prompt',
  'retry',
  'wait_for_reset',
  'skip',
  'stop',
  'reject_unsafe',
  'reject_unclassified',
  'invalid_configuration',
  'deadline',
  'circuit_hold',
  'circuit_closed',
  'circuit_skip',
  'retry_now',
  'skip_now',
  'cancel',
  'success',
  'successor_active',
  'dispatch_acknowledged',
  'ambiguous_dispatch',
  'orphaned',
] as const;
export type RouteDecision = (typeof routeDecisions)[number];

/**
 * The route's profile as a decision sees it: a dynamic profile's candidates; the concrete profile of an
 * interactive route (the built-in entry); a dynamic profile that is gone, or stored but no longer valid.
 */
export type ProfileView =
  | { readonly kind: 'dynamic'; readonly candidates: readonly ProfileCandidate[] }
  | { readonly kind: 'concrete' }
  | { readonly kind: 'missing' }
  /** A stored profile that no longer parses (POL-20): it never authorizes work. */
  | { readonly kind: 'invalid'; readonly message: string }
  /** Not read: the event's decision consults no profile (a dispatcher's answer, a restart's look at an attempt). */
  | { readonly kind: 'not_loaded' };

/** Everything a decision may consult besides the route and the event: no I/O, no clock, no randomness of its own. */
export interface RouteWorld {
  readonly nowMs: number;
  /** The current profile version (policy edits apply from the next decision). */
  readonly profile: ProfileView;
  /** Every circuit the route's candidates may touch, as stored (keys absent: closed, never opened). */
  readonly circuits: ReadonlyMap<string, Circuit>;
  /** A fresh id for a dispatch intent. */
  readonly newIntentId: () => string;
}

/**
 * The whole outcome of one event on one route: the next route and every write and action as data. `refused`
 * does nothing the event asked for: the state, generation, candidate and schedule stay. Its effects are history
 * only (the attempt row of a stale failure, what a provider answer proved about an intent), and its route differs
 * from the one decided on only in what the refused report proved about the running attempt (`dispatch`: it was
 * delivered, or it answered), which the engine then writes fenced like any route.
 */
export type Decision =
  | {
      readonly outcome: 'changed';
      readonly route: Route;
      readonly decision: RouteDecision;
      readonly effects: readonly RouteEffect[];
      readonly classification: Classification | null;
    }
  | {
      readonly outcome: 'unchanged';
      readonly route: Route;
      readonly effects: readonly RouteEffect[];
      readonly classification: Classification | null;
    }
  | {
      readonly outcome: 'refused';
      readonly route: Route;
      readonly reason: RefusalReason;
      /** In words, for the caller and the log. */
      readonly detail: string;
      readonly effects: readonly RouteEffect[];
      readonly classification: Classification | null;
    };

export function changed(
  route: Route,
  decision: RouteDecision,
  effects: readonly RouteEffect[],
  classification: Classification | null = null,
): Decision {
  return { outcome: 'changed', route, decision, effects, classification };
}

export function unchanged(route: Route, effects: readonly RouteEffect[] = []): Decision {
  return { outcome: 'unchanged', route, effects, classification: null };
}

export function refused(
  route: Route,
  reason: RefusalReason,
  detail: string,
  effects: readonly RouteEffect[] = [],
  classification: Classification | null = null,
): Decision {
  return { outcome: 'refused', route, reason, detail, effects, classification };
}

/** The candidates a decision may choose among: none for an interactive, missing or invalid profile. */
export function candidatesOf(world: RouteWorld): readonly ProfileCandidate[] {
  return world.profile.kind === 'dynamic' ? world.profile.candidates : [];
}
