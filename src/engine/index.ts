export { systemClock, type CancelTimer, type Clock, type SystemClockOptions } from './clock.js';
export { advanceManualClock, ManualClock } from './manual-clock.js';
export type { Dispatcher } from './dispatcher.js';
export { Engine, type EngineOptions } from './engine.js';
export {
  EngineInputError,
  ProfileNotFoundError,
  RouteExistsError,
  RouteNotFoundError,
} from './engine-errors.js';
export type { EngineEvent, EngineListener } from './engine-events.js';
export type { FailureReport, ManualActionRequest, StartRequest, SuccessReport } from './engine-input.js';
export { uuidv7 } from './ids.js';
export type { ReconciliationReport, StoppedDispatch } from './reconcile.js';
export { currentReplayKey, type RouteOutcome } from './route-work.js';
