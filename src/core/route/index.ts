export { decide } from './decide.js';
export { decideStart, type StartDecision, type StartInput } from './decide-start.js';
export {
  candidatesOf,
  routeDecisions,
  type Decision,
  type ProfileView,
  type RouteDecision,
  type RouteWorld,
} from './decision.js';
export {
  interactiveRecoveryRules,
  interactiveRetryDefaults,
  manualRecoveryActions,
} from './interactive-retry.js';
export { replayKeyOf } from './route-moves.js';
export {
  actionReasons,
  callerKinds,
  deadlineOf,
  dispatchKinds,
  freshUsage,
  newRoute,
  orphanedAttempt,
  routeModes,
  routeStates,
  runningAttempt,
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
export {
  intentOutcomes,
  type AttemptRecord,
  type DispatchIntent,
  type IntentOutcome,
  type NoticeOperation,
  type RouteEffect,
} from './route-effect.js';
export {
  manualActions,
  refusalReasons,
  type FailureFacts,
  type ManualAction,
  type RefusalReason,
  type RouteEvent,
} from './route-event.js';
export { routeTurn, routeTurns, snapshotOf, type RouteSnapshot, type RouteTurn } from './route-turn.js';
