import type { DispatchKind } from './route.js';
import type { Circuit } from '../circuit/circuit.js';
import type { NoticeBody } from '../notice/retry-notice.js';
import type { DelaySource } from '../policy/evaluate.js';
import type { ClassPolicy } from '../policy/policy-document.js';
import type { ReplayEvidence } from '../safety/replay-evidence.js';

/** One append-only attempt row: why a decision was taken, kept even if the catalogue or the profile changes. */
export interface AttemptRecord {
  readonly routeId: string;
  readonly candidate: string;
  readonly generation: number;
  readonly code: string | null;
  readonly failureClass: string;
  readonly catalogueVersion: string;
  readonly rule: string | null;
  /** The class policy the decision applied (null for rejections and interactive routes' built-in entry). */
  readonly policySnapshot: ClassPolicy | null;
  readonly decision: string;
  readonly retryOrdinal: number | null;
  readonly deadlineMs: number | null;
  /** What set the deadline's distance (a retry or a reset wait); null when the decision sets no deadline. */
  readonly delaySource: DelaySource | null;
  readonly pendingOutcome: string | null;
  readonly safeExcerpt: string;
  /** What the engine corrected or noticed about the evidence (an `observed_at` far in the future), in words. */
  readonly note: string | null;
  readonly atMs: number;
}

export interface DispatchIntent {
  readonly id: string;
  readonly routeId: string;
  readonly generation: number;
  readonly candidate: string;
  readonly kind: DispatchKind;
  readonly createdAtMs: number;
}

/** How a dispatch intent ended: delivered, stopped as ambiguous, or overtaken by a later transition. */
export const intentOutcomes = ['acknowledged', 'ambiguous', 'superseded'] as const;
export type IntentOutcome = (typeof intentOutcomes)[number];

/**
 * What the transcript of an interactive route's task session must show (the notice lifecycle, NOT-01 to NOT-43):
 * the orchestrator of task sessions carries these out, after the commit, under the session's guard.
 */
export type NoticeOperation =
  /** Create the retry notice, or update the newest in place (and delete duplicates). */
  | {
      readonly op: 'write';
      readonly routeId: string;
      readonly generation: number;
      readonly retryOrdinal: number;
      readonly body: NoticeBody;
      /** The turn the notice belongs to (the attempt that failed). */
      readonly turnId: string | null;
    }
  /**
   * Retry ownership ended: delete every notice of the session. `always` for terminal outcomes, Cancel and Stop
   * (NOT-35); `if_retry_owned` for a normal successful turn, which looks only when a retry entry is owned (NOT-34).
   */
  | { readonly op: 'retire'; readonly routeId: string; readonly lookup: 'always' | 'if_retry_owned' }
  /** The manual recovery message with Resume and Start fresh (CUR-33, NOT-41). */
  | { readonly op: 'recovery_message'; readonly routeId: string; readonly body: NoticeBody };

/** Effects are data: the engine commits the writes in one transaction, then executes the rest. */
export type RouteEffect =
  | { readonly kind: 'record_attempt'; readonly attempt: AttemptRecord }
  /** A circuit write fenced by the version the decision read (0: a new circuit). */
  | { readonly kind: 'write_circuit'; readonly circuit: Circuit; readonly expectedVersion: number }
  /**
   * A circuit closed: the routes it held (waiting until its probe lease's end or its `open_until`, the instants
   * given) need not wait for that any more. After the commit the engine tells each (`circuit_closed`).
   */
  | { readonly kind: 'wake_held'; readonly circuitKey: string; readonly heldUntilMs: readonly number[] }
  | {
      readonly kind: 'arm_timer';
      readonly routeId: string;
      readonly generation: number;
      readonly dueAtMs: number;
    }
  /** The route left a wait before its deadline (or moved it): the timer armed for it no longer stands. */
  | { readonly kind: 'wait_ended'; readonly routeId: string; readonly generation: number }
  /** Write the intent with the transition, send it after the commit. */
  | { readonly kind: 'dispatch'; readonly intent: DispatchIntent }
  /** A prompt the caller sent itself: written as delivered, never sent by Recourse. */
  | { readonly kind: 'record_prompt'; readonly intent: DispatchIntent }
  | { readonly kind: 'resolve_intent'; readonly intentId: string; readonly outcome: IntentOutcome }
  /** Keep the replay snapshot the decision used (counts and a redacted excerpt only). */
  | {
      readonly kind: 'keep_replay';
      readonly routeId: string;
      readonly generation: number;
      readonly snapshot: ReplayEvidence;
    }
  | { readonly kind: 'notice'; readonly operation: NoticeOperation };
