export {
  type DueClaim,
  type DueLock,
  type LockedDueRoutes,
  type PlanPageQuery,
  type PlanSummary,
  type ProfileSummary,
  type RouteFence,
  type RouteQuery,
  type ScheduledRoute,
  type ConnectionLoss,
  type Store,
  type StoredAttempt,
  type StoredIntent,
  type StoreTransaction,
  type TransactionPlan,
} from './store-port.js';
export type {
  NewMessage,
  SessionRef,
  TaskSession,
  TaskSessionPageQuery,
  TaskSessions,
  Transcript,
  TranscriptEvent,
} from './transcript-port.js';
export type { EventLog, LoggedEvent } from './event-log-port.js';
export type { ClusterClaim, ClusterTimers } from './cluster-port.js';
export type { LockedSession, LockedWork, SessionLifecycle, SessionLocks } from './session-locks-port.js';
