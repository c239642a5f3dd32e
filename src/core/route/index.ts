export {
  interactiveRetryDefaults,
  manualRecoveryActions,
  transientRetryDelayFor,
} from './interactive-retry.js';
export {
  actionReasons,
  callerKinds,
  deadlineOf,
  dispatchKinds,
  freshUsage,
  newRoute,
  routeModes,
  routeStates,
  type ActionReason,
  type CallerKind,
  type CandidateUsage,
  type DispatchKind,
  type FailureSummary,
  type PendingDispatch,
  type Route,
  type RouteCommon,
  type RouteMode,
  type RouteState,
} from './route.js';
export type { AttemptRecord, DispatchIntent, RouteEffect } from './route-effect.js';
export {
  manualActions,
  refusalReasons,
  type ManualAction,
  type RefusalReason,
  type RouteEvent,
} from './route-event.js';
export { transition, type Transition, type TransitionContext } from './transition.js';
