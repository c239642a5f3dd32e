/**
 * The embedding surface of the `recourse` package: open Recourse on its embedded store, run attempts through it,
 * build evidence from what failed, read routes and their events. Everything else is one subpath away:
 * `recourse/core` (the pure core: classifier, policies, decisions), `recourse/engine` (the engine, clocks, task
 * sessions, the replay recorder), `recourse/store` (the SQLite and PostgreSQL adapters), `recourse/app` (the composition root).
 * The list is curated: a test fails when it grows without the list in the test being changed.
 */
export { evidenceOfResponse, openRecourse } from './app/index.js';
export type {
  Recourse,
  RecourseOptions,
  ResponseLike,
  RunAttempt,
  RunAttemptFunction,
  RunResult,
} from './app/index.js';
export { classify, errorCodes, evidenceOfError, RecourseError } from './core/index.js';
export type {
  Classification,
  DispatchIntent,
  DynamicProfile,
  DynamicProfileInput,
  ErrorCode,
  EvidenceEnvelope,
  EvidenceHints,
  JsonValue,
  ReplayEvent,
  ReplayProgress,
  RouteSnapshot,
  RouteTurn,
} from './core/index.js';
export { VersionConflictError } from './engine/index.js';
export type { Engine, EngineEvent, ReconciliationReport, RouteOutcome } from './engine/index.js';
