export { systemClock, type CancelTimer, type Clock, type SystemClockOptions } from './clock.js';
export { advanceManualClock, ManualClock } from './manual-clock.js';
export type { Dispatcher, DispatchOptions } from './dispatcher.js';
export { Engine, type EngineOptions, type ListRoutesQuery, type SaveProfileOptions } from './engine.js';
export {
  EngineClosedError,
  EngineInputError,
  ProfileNotFoundError,
  RouteExistsError,
  RouteNotFoundError,
  SessionExistsError,
  VersionConflictError,
} from './engine-errors.js';
export type { EngineEvent, EngineListener } from './engine-events.js';
export type {
  AcknowledgementReport,
  FailureReport,
  ManualActionRequest,
  PromptRequest,
  StartRequest,
  SuccessReport,
} from './engine-input.js';
export { uuidv7 } from '../support/ids.js';
export type { ReconciledAttempt, ReconciliationReport } from './reconciliation-report.js';
export type { RouteOutcome } from './route-work.js';
export {
  InteractiveSessions,
  type CancelResult,
  type InteractiveSessionsOptions,
  type ProviderEventResult,
  type ProviderFailure,
  type SessionEvent,
} from './interactive/interactive-sessions.js';
export type { NoticeLog, NoticeOp } from './interactive/retry-notices.js';
export { noticeFenceMs } from './interactive/session-guards.js';
export { ReplayRecorder, type ReplayRecorderOptions } from './replay-recorder.js';
