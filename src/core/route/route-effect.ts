import type { DispatchKind } from './route.js';
import type { ClassPolicy } from '../policy/policy-document.js';

/** One append-only attempt row: why a decision was taken, kept even if the catalogue or the profile changes. */
export interface AttemptRecord {
  readonly routeId: string;
  readonly candidate: string;
  readonly generation: number;
  readonly code: string | null;
  readonly failureClass: string;
  readonly catalogueVersion: string;
  readonly rule: string | null;
  /** The class policy the decision applied (null for rejections and interactive routes' built-in policy). */
  readonly policySnapshot: ClassPolicy | null;
  readonly decision: string;
  readonly retryOrdinal: number | null;
  readonly deadlineMs: number | null;
  readonly pendingOutcome: string | null;
  readonly safeExcerpt: string;
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

/** Effects are data: the engine commits the write, then executes these. */
export type RouteEffect =
  | { readonly kind: 'record_attempt'; readonly attempt: AttemptRecord }
  | {
      readonly kind: 'arm_timer';
      readonly routeId: string;
      readonly generation: number;
      readonly dueAtMs: number;
    }
  | { readonly kind: 'dispatch'; readonly intent: DispatchIntent };
