export { planErrorCategories, retriableCategories, type PlanErrorCategory } from './categories.js';
export { classifyPlanError } from './classify-plan-error.js';
export {
  appendPlanError,
  emptyHistory,
  exhaustedMessage,
  latestError,
  retriesAttempted,
  shouldEscalatePlan,
  shouldRetryPlan,
  summarizeHistory,
  type PlanErrorHistory,
  type PlanErrorSummary,
} from './error-history.js';
export {
  errorDetailKeys,
  errorDetailsOf,
  recordPlanError,
  stackSummary,
  type ErrorDetailKey,
  type PlanErrorInput,
  type PlanErrorRecord,
} from './error-record.js';
export { planRules, type PlanRule } from './plan-rules.js';
export {
  agentsCommandTemplates,
  categoryActions,
  getRecoveryHints,
  recourseCommandTemplates,
  recoveryActions,
  type CommandTemplates,
  type RecoveryAction,
  type RecoveryHint,
} from './recovery-actions.js';
export {
  createErrorRecoveryPolicy,
  planRetryLimits,
  planRetryVerdict,
  shouldRetryPlanError,
  type ErrorRecoveryPolicy,
  type PlanRetryVerdict,
} from './recovery-policy.js';
export {
  mergeErrorDetails,
  newPlan,
  planPhases,
  planStates,
  revise,
  type Plan,
  type PlanPhase,
  type PlanRecoveryConfig,
  type PlanState,
} from './plan.js';
export { planDecisionOf, verdictReason, type PlanDecision } from './plan-decision.js';
export {
  applyPlanAction,
  completePhase,
  reconfigurePlan,
  failPhase,
  planActions,
  planRefusalReasons,
  type PlanAction,
  type PlanRefusalReason,
  type PlanTransition,
} from './plan-transitions.js';
