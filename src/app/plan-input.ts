import { planActions, planPhases, type PlanAction, type PlanPhase } from '../core/index.js';
import { safeExcerpt } from '../core/sanitize/safe-excerpt.js';
import { utf8ByteLength } from '../core/text/utf8.js';
import { describe, isPlainObject, pointer, type FieldIssue } from '../core/validation/field-issue.js';
import { EngineInputError } from '../engine/engine-errors.js';

/** An error report as the plan service takes it (`POST /v1/plans/{id}/errors`), checked. */
export interface PlanErrorReport {
  readonly phase: PlanPhase;
  readonly message: string;
  readonly exception_type: string | null;
  readonly stack: string | null;
  readonly actor: string | null;
  readonly tool_call: string | null;
}

/** Input limits: bounded before anything is classified or stored (records keep shorter, sanitized excerpts). */
const limits = { planIdBytes: 256, textBytes: 64 * 1024, nameBytes: 1024 } as const;

/** A plan id: a non-empty string of at most 256 bytes without control characters. Throws `invalid_input`. */
export function checkPlanId(planId: unknown): string {
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (typeof planId === 'string' && planId !== '' && !/[\u0000-\u001f\u007f]/.test(planId)) {
    if (utf8ByteLength(planId) <= limits.planIdBytes) return planId;
  }
  throw new EngineInputError([
    {
      path: '/plan_id',
      message: `plan id must be a non-empty string of at most ${limits.planIdBytes} bytes without control characters (got ${describe(planId)})`,
    },
  ]);
}

/** The fields of `body`, or every problem: not an object, unknown keys. */
function fieldsOf(body: unknown, known: readonly string[], issues: FieldIssue[]): Record<string, unknown> {
  if (!isPlainObject(body)) {
    issues.push({ path: '', message: `expected a JSON object (got ${describe(body)})` });
    return {};
  }
  for (const key of Object.keys(body)) {
    if (!known.includes(key))
      issues.push({ path: pointer('', key), message: `unknown field (expected one of ${known.join(', ')})` });
  }
  return body;
}

function optionalText(
  fields: Record<string, unknown>,
  key: string,
  maxBytes: number,
  issues: FieldIssue[],
): string | null {
  const value = fields[key];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' && utf8ByteLength(value) <= maxBytes) return value === '' ? null : value;
  issues.push({
    path: `/${key}`,
    message: `${key} must be a string of at most ${maxBytes} bytes, or null (got ${describe(value)})`,
  });
  return null;
}

/**
 * Whether a message says anything once stored: records keep a sanitized excerpt, which drops control characters
 * and terminal escapes, so a message made only of those would be stored empty (and shown as `Error: `).
 */
function hasVisibleText(text: string): boolean {
  return safeExcerpt(text) !== '';
}

/** Checks an error report; every problem at once, by field. Throws `EngineInputError` (`invalid_input`). */
export function checkErrorReport(body: unknown): PlanErrorReport {
  const issues: FieldIssue[] = [];
  const fields = fieldsOf(
    body,
    ['phase', 'message', 'exception_type', 'stack', 'actor', 'tool_call'],
    issues,
  );
  const phase = fields.phase;
  if (!planPhases.includes(phase as PlanPhase) && isPlainObject(body)) {
    issues.push({
      path: '/phase',
      message: `phase must be one of ${planPhases.join(', ')} (got ${describe(phase)})`,
    });
  }
  const message = fields.message;
  if (
    isPlainObject(body) &&
    (typeof message !== 'string' || !hasVisibleText(message) || utf8ByteLength(message) > limits.textBytes)
  ) {
    issues.push({
      path: '/message',
      message: `message must be a string of at most ${limits.textBytes} bytes with something printable in it, not only spaces or control characters (got ${describe(message)})`,
    });
  }
  const report: PlanErrorReport = {
    phase: phase as PlanPhase,
    message: message as string,
    exception_type: optionalText(fields, 'exception_type', limits.nameBytes, issues),
    stack: optionalText(fields, 'stack', limits.textBytes, issues),
    actor: optionalText(fields, 'actor', limits.nameBytes, issues),
    tool_call: optionalText(fields, 'tool_call', limits.nameBytes, issues),
  };
  if (issues.length > 0) throw new EngineInputError(issues);
  return report;
}

/**
 * Checks `{action, revision?}` (`POST /v1/plans/{id}/actions`). Throws `EngineInputError` (`invalid_input`).
 */
export function checkActionRequest(body: unknown): {
  readonly action: PlanAction;
  readonly revision?: number;
} {
  const issues: FieldIssue[] = [];
  const fields = fieldsOf(body, ['action', 'revision'], issues);
  if (isPlainObject(body) && !planActions.includes(fields.action as PlanAction)) {
    issues.push({
      path: '/action',
      message: `action must be one of ${planActions.join(', ')} (got ${describe(fields.action)})`,
    });
  }
  const revision = checkSeenRevision(fields.revision, issues);
  if (issues.length > 0) throw new EngineInputError(issues);
  return {
    action: fields.action as PlanAction,
    ...(revision === undefined ? {} : { revision }),
  };
}

/** An optional `revision` field: the plan revision the caller saw, a whole number from 1. */
function checkSeenRevision(revision: unknown, issues: FieldIssue[]): number | undefined {
  if (revision === undefined) return undefined;
  if (Number.isSafeInteger(revision) && (revision as number) >= 1) return revision as number;
  issues.push({
    path: '/revision',
    message: `revision must be a whole number from 1, the plan's revision you saw (got ${describe(revision)})`,
  });
  return undefined;
}

/** Checks `{phase, revision?}` (`POST /v1/plans/{id}/complete`). Throws `EngineInputError` (`invalid_input`). */
export function checkCompleteRequest(body: unknown): {
  readonly phase: PlanPhase;
  readonly revision?: number;
} {
  const issues: FieldIssue[] = [];
  const fields = fieldsOf(body, ['phase', 'revision'], issues);
  if (isPlainObject(body) && !planPhases.includes(fields.phase as PlanPhase)) {
    issues.push({
      path: '/phase',
      message: `phase must be one of ${planPhases.join(', ')} (got ${describe(fields.phase)})`,
    });
  }
  const revision = checkSeenRevision(fields.revision, issues);
  if (issues.length > 0) throw new EngineInputError(issues);
  return {
    phase: fields.phase as PlanPhase,
    ...(revision === undefined ? {} : { revision }),
  };
}

/**
 * The raw recovery config of `PUT /v1/plans/{id}` (known fields only; problems go to `issues`); the plan policy
 * checks the values once merged with the plan's own. An omitted field is absent here.
 */
export function configFields(
  body: unknown,
  issues: FieldIssue[],
): {
  readonly autoRetryThreshold?: unknown;
  readonly maxRetries?: unknown;
  readonly subplan?: boolean;
} {
  const fields = fieldsOf(body, ['auto_retry_threshold', 'max_retries', 'subplan'], issues);
  const subplan = fields.subplan;
  if (subplan !== undefined && typeof subplan !== 'boolean')
    issues.push({ path: '/subplan', message: `subplan must be true or false (got ${describe(subplan)})` });
  return {
    ...(fields.auto_retry_threshold === undefined ? {} : { autoRetryThreshold: fields.auto_retry_threshold }),
    ...(fields.max_retries === undefined ? {} : { maxRetries: fields.max_retries }),
    ...(typeof subplan === 'boolean' ? { subplan } : {}),
  };
}
