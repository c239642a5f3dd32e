import type { Classification, DispatchIntent, RefusalReason, Route, RouteState } from '../core/index.js';
import type { ReconciliationReport } from './reconcile.js';

/** What the engine tells its observers (the simulator, and later the event stream), after each commit. */
export type EngineEvent =
  | {
      readonly type: 'transition';
      readonly atMs: number;
      readonly from: RouteState | null;
      readonly route: Route;
      /** What moved the route: `start`, `retry`, `wait_for_reset`, `deadline`, `skip_now`, ... */
      readonly decision: string;
      readonly classification: Classification | null;
    }
  | { readonly type: 'dispatch'; readonly atMs: number; readonly intent: DispatchIntent }
  | {
      readonly type: 'refused';
      readonly atMs: number;
      readonly routeId: string;
      readonly trigger: string;
      readonly reason: RefusalReason;
    }
  | { readonly type: 'reconciled'; readonly atMs: number; readonly report: ReconciliationReport }
  | { readonly type: 'error'; readonly atMs: number; readonly message: string };

export type EngineListener = (event: EngineEvent) => void;
