export { defaultPolicyDocument, immediateSkip } from './defaults.js';
export {
  backoffSeconds,
  evaluate,
  evaluateRules,
  freshCycle,
  latestHint,
  type CandidateCycle,
  type DelaySource,
  type PolicyDecision,
  type PolicyFailure,
  type RejectReason,
} from './evaluate.js';
export { classPolicyOfLegacy, legacyActions, legacyDefaultKey, type LegacyAction } from './legacy-rules.js';
export { legacyRetrySameIntervalSeconds, policyLimits } from './limits.js';
export {
  exhaustedOutcomes,
  type ClassPolicy,
  type DynamicProfile,
  type ExhaustedOutcome,
  type PolicyDocument,
  type ProfileCandidate,
  type RetryPolicy,
  type WaitForResetPolicy,
} from './policy-document.js';
export { dynamicProfileSchema, policyDocumentSchema } from './policy-schemas.js';
export { classSchedule, previewSchedule, retryDelaySeconds, type ClassSchedule } from './schedule.js';
export { validateDynamicProfile, validatePolicyDocument, type Validated } from './validate-policy.js';
export {
  holdLimitSeconds,
  nothingConfigured,
  rulesOfClassPolicy,
  rulesOfPolicy,
  type Backoff,
  type ClassRules,
  type RecoveryRules,
} from './recovery-rules.js';
export type {
  CandidateInput,
  ClassPolicyInput,
  DynamicProfileInput,
  PolicyDocumentInput,
} from './policy-input.js';
export { policyWarnings, profileWarnings } from './policy-warnings.js';
