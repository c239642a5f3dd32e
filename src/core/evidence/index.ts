export { evidenceBounds, truncationMark } from './bounds.js';
export {
  evidenceKinds,
  type AcpErrorEnvelope,
  type AcpUpdateEnvelope,
  type EvidenceEnvelope,
  type EvidenceKind,
  type HeaderValue,
  type HttpEnvelope,
  type ProcessExitEnvelope,
  type SdkExceptionEnvelope,
  type StderrEnvelope,
} from './envelope.js';
export type { Evidence, HeaderList } from './evidence.js';
export { evidenceMessage } from './evidence-message.js';
export type { EnvelopeIssue } from './field-reader.js';
export { parseEnvelope, type ParseEnvelopeResult } from './parse-envelope.js';
export { lifecyclePhases, phaseFailsAttempt, type LifecyclePhase } from './phases.js';
export { evidenceOfError, headerRecord, type EvidenceHints } from './error-evidence.js';
