export { openRecourse, type Recourse, type RecourseOptions } from './open-recourse.js';
export { evidenceOfResponse, type ResponseEvidenceOptions, type ResponseLike } from './response-evidence.js';
export { runDispatcher, type RunAttempt, type RunAttemptFunction, type RunResult } from './run-dispatcher.js';
