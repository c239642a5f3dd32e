export * from './evidence/index.js';
export * from './sanitize/index.js';
export {
  classOfCode,
  hardCodes,
  isNonProviderCode,
  isProviderCode,
  longWindowSeconds,
  nonProviderCodes,
  policyClasses,
  providerCodeInfo,
  scopes,
  transientCodes,
  type CatalogueCode,
  type HardCode,
  type NonProviderCode,
  type PolicyClass,
  type ProviderCode,
  type Scope,
  type TransientCode,
} from './catalogue/codes.js';
export { catalogueRules } from './catalogue/registry.js';
export { catalogueFingerprint, catalogueVersion } from './catalogue/version.js';
export { fingerprintRules } from './catalogue/fingerprint.js';
export type { Confidence, Rule, RuleCondition, RuleTier, TimingExtractor } from './catalogue/rule.js';
export {
  classificationClasses,
  unclassifiedReasons,
  type Classification,
  type ClassificationClass,
  type UnclassifiedReason,
} from './classify/classification.js';
export {
  classify,
  classifyEvidence,
  classifyEvidenceDetailed,
  explainEvidence,
  futureObservationToleranceMs,
  type ClassifyOptions,
  type DetailedClassification,
  type Explanation,
  type TimingOrigin,
} from './classify/classify.js';
export { classificationSchema } from './classify/classification-schema.js';
export { compileCatalogue, type CompiledCatalogue } from './classify/compiled-catalogue.js';
export { defaultCatalogue } from './classify/default-catalogue.js';
export { formatIsoUtc, parseIsoDateTime } from './time/iso-time.js';
export * from './projection/index.js';
export * from './policy/index.js';
export * from './safety/index.js';
export { payloadMaxBytes, payloadText, type JsonValue } from './validation/json-payload.js';
export {
  describe as describeValue,
  isPlainObject as isPlainObjectValue,
  pointer as jsonPointer,
  type FieldIssue,
} from './validation/field-issue.js';
export { credentialIdMessage, hasIdShape, idProblem } from './validation/id-shape.js';
export * from './plan/index.js';
export * from './route/index.js';
export * from './notice/index.js';
export * from './circuit/index.js';
export * from './ports/index.js';
export { ConfigurationError, errorCodes, RecourseError, type ErrorCode } from './errors.js';
