import type {
  Circuit,
  Classification,
  DispatchIntent,
  NoticeOperation,
  RefusalReason,
  Route,
  RouteDecision,
  RouteState,
} from '../core/index.js';
import type { ReconciliationReport } from './reconciliation-report.js';

/**
 * What the engine tells its observers after each commit (the simulator, the task-session orchestrator, later the
 * event stream): one event type per kind of change.
 */
export type EngineEvent =
  /** The route moved: a new state, candidate, generation or deadline. */
  | {
      readonly type: 'transition';
      readonly atMs: number;
      readonly from: RouteState | null;
      readonly route: Route;
      readonly decision: RouteDecision;
      readonly classification: Classification | null;
      /**
       * For a transition made by a deadline firing: the deadline (epoch ms) the timer fired for, so an observer can
       * tell how late the firing ran; null for every other trigger.
       */
      readonly dueAtMs: number | null;
    }
  /** An attempt was sent to the dispatcher (after its intent committed). */
  | { readonly type: 'dispatch'; readonly atMs: number; readonly intent: DispatchIntent }
  /** The dispatcher accepted an attempt; the route's state did not change. */
  | {
      readonly type: 'dispatch_acknowledged';
      readonly atMs: number;
      readonly route: Route;
      readonly intentId: string;
    }
  /** A new user prompt began on an active route (the caller sent it). */
  | { readonly type: 'prompt'; readonly atMs: number; readonly route: Route; readonly intent: DispatchIntent }
  /** A shared circuit was written, by the event of `routeId`. */
  | { readonly type: 'circuit'; readonly atMs: number; readonly routeId: string; readonly circuit: Circuit }
  /** What an interactive route's transcript must show (executed by the task-session orchestrator). */
  | { readonly type: 'notice'; readonly atMs: number; readonly operation: NoticeOperation }
  /** A report or action the route did not accept; nothing changed. */
  | {
      readonly type: 'refused';
      readonly atMs: number;
      readonly routeId: string;
      readonly trigger: string;
      readonly reason: RefusalReason;
      readonly detail: string;
    }
  | { readonly type: 'reconciled'; readonly atMs: number; readonly report: ReconciliationReport }
  /** Routes deleted with their history (`purgeRoutes`, `purgeRoute`): a view that lists them drops them. */
  | { readonly type: 'purged'; readonly atMs: number; readonly routeIds: readonly string[] }
  | { readonly type: 'error'; readonly atMs: number; readonly message: string };

export type EngineListener = (event: EngineEvent) => void;
