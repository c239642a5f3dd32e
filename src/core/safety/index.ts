export {
  appendReplayEvent,
  assistantTextLimit,
  openReplayEvidence,
  replayEventKinds,
  sameReplayKey,
  snapshotReplayEvidence,
  type ReplayEvent,
  type ReplayEventKind,
  type ReplayEvidence,
  type ReplayKey,
} from './replay-evidence.js';
export {
  assessReplaySafety,
  unsafeReasons,
  type SafetyContext,
  type SafetyVerdict,
  type UnsafeReason,
} from './safety-gate.js';
export { replayEvidenceOf, type ReplayProgress } from './replay-progress.js';
