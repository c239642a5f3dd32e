export { openRecourse, type Recourse, type RecourseOptions } from './open-recourse.js';
export { evidenceOfResponse, type ResponseEvidenceOptions, type ResponseLike } from './response-evidence.js';
export { runDispatcher, type RunAttempt, type RunAttemptFunction, type RunResult } from './run-dispatcher.js';
export { PlanExecutor, type PhaseRun, type PlanActor, type PlanExecutorOptions } from './plan-executor.js';
export type { PlanErrorReport } from './plan-input.js';
export { planJson, type PlanErrorsDocument, type PlanJson } from './plan-json.js';
export {
  PlanLifecycle,
  PlanNotFoundError,
  type PlanChange,
  type PlanChangeCause,
  type PlanConfigureOutcome,
  type PlanOutcome,
} from './plan-lifecycle.js';
export {
  PlanService,
  type PlanActionAnswer,
  type PlanConfigureAnswer,
  type PlanEvent,
  type PlanRefusal,
  type PlanServiceOptions,
  type RecordErrorAnswer,
} from './plan-service.js';
