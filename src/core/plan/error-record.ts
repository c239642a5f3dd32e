import type { PlanErrorCategory } from './categories.js';
import { classifyPlanError } from './classify-plan-error.js';
import {
  getRecoveryHints,
  recourseCommandTemplates,
  type CommandTemplates,
  type RecoveryHint,
} from './recovery-actions.js';
import { planRetryVerdict, type ErrorRecoveryPolicy, type PlanRetryVerdict } from './recovery-policy.js';
import { redactSecrets } from '../sanitize/redact-secrets.js';
import { safeExcerpt } from '../sanitize/safe-excerpt.js';
import { formatIsoUtc } from '../time/iso-time.js';

/** One recorded plan error, as history keeps it. Text is sanitized and bounded; nothing raw is kept. */
export interface PlanErrorRecord {
  readonly plan_id: string;
  readonly phase: string;
  readonly category: PlanErrorCategory;
  /** Sanitized message, at most 512 bytes. */
  readonly message: string;
  readonly exception_type: string | null;
  /** Retries already attempted in this phase before this error (0 for the first failure). */
  readonly retry_count: number;
  readonly max_retries: number;
  readonly verdict: PlanRetryVerdict;
  readonly actor: string | null;
  readonly tool_call: string | null;
  /** The last three frames of the stack, sanitized, or null. */
  readonly stack_summary: string | null;
  readonly hints: readonly RecoveryHint[];
  readonly occurred_at: string;
}

export interface PlanErrorInput {
  readonly planId: string;
  readonly phase: string;
  readonly message: string;
  readonly exceptionType?: string | null;
  readonly stack?: string | null;
  readonly actor?: string | null;
  readonly toolCall?: string | null;
  /** Retries attempted in this phase before this error. */
  readonly retryCount: number;
}

/** Records an error: classifies it, decides retry or escalation, and attaches the recovery hints. */
export function recordPlanError(
  input: PlanErrorInput,
  policy: ErrorRecoveryPolicy,
  nowMs: number,
  templates: CommandTemplates = recourseCommandTemplates,
): PlanErrorRecord {
  const category = classifyPlanError(input.message, input.exceptionType ?? null);
  return Object.freeze({
    plan_id: input.planId,
    phase: input.phase,
    category,
    message: safeExcerpt(input.message),
    exception_type: input.exceptionType ? safeExcerpt(input.exceptionType) : null,
    retry_count: input.retryCount,
    max_retries: policy.maxRetries,
    verdict: phaseVerdict(input.phase, planRetryVerdict(policy, category, input.retryCount)),
    actor: input.actor ? safeExcerpt(input.actor) : null,
    tool_call: input.toolCall ? safeExcerpt(input.toolCall) : null,
    stack_summary: input.stack ? stackSummary(input.stack) : null,
    hints: Object.freeze(getRecoveryHints(category, input.planId, templates)),
    occurred_at: formatIsoUtc(nowMs),
  });
}

/** Strategize is read-only and its failures deterministic: never retried (PLN-36), whatever the policy says. */
function phaseVerdict(phase: string, verdict: PlanRetryVerdict): PlanRetryVerdict {
  return phase === 'strategize' && verdict === 'retry' ? 'read_only_phase' : verdict;
}

/** The metadata keys a plan's `error_details` holds (seed 004), every value a string. */
export const errorDetailKeys = [
  'error_category',
  'error_phase',
  'retry_count',
  'max_retries',
  'is_retriable',
  'error_actor',
  'error_tool_call',
  'stack_summary',
  'recovery_action',
  'recovery_hint',
  'recovery_command',
] as const;
export type ErrorDetailKey = (typeof errorDetailKeys)[number];

/**
 * The structured metadata of a record. `is_retriable` is the live decision (category, budget and threshold);
 * keys that do not apply (no actor, no tool call, no stack, no command) are omitted.
 */
export function errorDetailsOf(record: PlanErrorRecord): Partial<Record<ErrorDetailKey, string>> {
  const first = record.hints[0];
  const details: Partial<Record<ErrorDetailKey, string>> = {
    error_category: record.category,
    error_phase: record.phase,
    retry_count: String(record.retry_count),
    max_retries: String(record.max_retries),
    is_retriable: record.verdict === 'retry' ? 'true' : 'false',
  };
  if (record.actor !== null) details.error_actor = record.actor;
  if (record.tool_call !== null) details.error_tool_call = record.tool_call;
  if (record.stack_summary !== null) details.stack_summary = record.stack_summary;
  if (first !== undefined) {
    details.recovery_action = first.action;
    details.recovery_hint = first.message;
    if (first.cli_command !== null) details.recovery_command = first.cli_command;
  }
  return details;
}

/** The last three frames of a JavaScript or Python stack, sanitized, joined by " | ". */
export function stackSummary(stack: string): string | null {
  const frames = stack
    .slice(-16_384)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^at\s/.test(line) || /^File\s"/.test(line));
  if (frames.length === 0) return null;
  return redactSecrets(frames.slice(-3).join(' | ')).slice(0, 1024);
}
