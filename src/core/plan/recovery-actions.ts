import type { PlanErrorCategory } from './categories.js';

export const recoveryActions = [
  'retry',
  'correct',
  'revert_strategize',
  'prompt',
  'cancel',
  'manual',
] as const;
export type RecoveryAction = (typeof recoveryActions)[number];

/** A recovery suggestion: what to do, in words, and the command that does it (none for `manual`). */
export interface RecoveryHint {
  readonly action: RecoveryAction;
  readonly message: string;
  readonly cli_command: string | null;
}

/**
 * Command templates per action; `{plan_id}` is replaced by the plan's id. Recourse's own commands are the
 * default; an embedding framework passes its own (`agentsCommandTemplates` is the seed's `agents plan ...`).
 */
export type CommandTemplates = Readonly<Record<RecoveryAction, string | null>>;

export const recourseCommandTemplates: CommandTemplates = {
  retry: 'recourse plan retry {plan_id}',
  correct: 'recourse plan correct {plan_id}',
  revert_strategize: 'recourse plan revert {plan_id} --to-phase strategize',
  prompt: 'recourse plan prompt {plan_id}',
  cancel: 'recourse plan cancel {plan_id}',
  manual: null,
};

export const agentsCommandTemplates: CommandTemplates = {
  retry: 'agents plan prompt {plan_id}',
  correct: 'agents plan correct {plan_id}',
  revert_strategize: 'agents plan revert {plan_id} --to-phase strategize',
  prompt: 'agents plan prompt {plan_id}',
  cancel: 'agents plan cancel {plan_id}',
  manual: null,
};

/** Which actions each category suggests, in order (REQUIREMENTS PLN-13 decision). */
export const categoryActions: Readonly<Record<PlanErrorCategory, readonly RecoveryAction[]>> = {
  transient: ['retry'],
  provider: ['retry'],
  validation: ['correct'],
  resource: ['revert_strategize'],
  merge_conflict: ['revert_strategize'],
  configuration: ['prompt', 'cancel'],
  authentication: ['cancel'],
  internal: ['manual'],
  unknown: ['prompt', 'cancel'],
};

const actionMessages: Readonly<Record<RecoveryAction, string>> = {
  retry: 'Retry the operation — the failure was transient.',
  correct: 'Correct the invalid input or output, then run the phase again.',
  revert_strategize: 'Revert to the strategize phase and plan around the missing or conflicting resource.',
  prompt: 'Resume the plan with guidance on how to proceed.',
  cancel: 'Cancel the plan — this failure cannot be recovered automatically.',
  manual: 'Check the logs — this looks like an internal error.',
};

/** A provider failure is retried too, but the words say why. */
const providerRetryMessage =
  'Retry the operation — the provider error may clear (check the model and quota if it persists).';

/** The hints of a category for one plan, with `{plan_id}` filled in. */
export function getRecoveryHints(
  category: PlanErrorCategory,
  planId: string,
  templates: CommandTemplates = recourseCommandTemplates,
): RecoveryHint[] {
  return categoryActions[category].map((action) => {
    const template = templates[action];
    return {
      action,
      message: action === 'retry' && category === 'provider' ? providerRetryMessage : actionMessages[action],
      cli_command: template === null ? null : template.replace(/\{plan_id\}/g, planId),
    };
  });
}
