import { policyLimits } from './limits.js';
import { exhaustedOutcomes, type ClassPolicy, type ExhaustedOutcome } from './policy-document.js';
import { describe, isPlainObject, pointer, type FieldIssue } from '../validation/field-issue.js';

/**
 * Validates one class policy at `path`, pushing every problem into `issues`. Numbers must be finite integers;
 * an enabled section must be within its limits, a disabled one holds zeros (they may be omitted).
 */
export function validateClassPolicy(value: unknown, path: string, issues: FieldIssue[]): ClassPolicy | null {
  if (!isPlainObject(value)) {
    issues.push({
      path,
      message: `a class policy must be an object with retry, wait_for_reset and on_exhausted (got ${describe(value)})`,
    });
    return null;
  }
  const before = issues.length;
  rejectUnknown(value, ['retry', 'wait_for_reset', 'on_exhausted'], path, 'a class policy', issues);
  const retry = section(value.retry, pointer(path, 'retry'), 'retry', issues, [
    { key: 'max_retries', limit: policyLimits.maxRetries, unit: 'additional attempts' },
    {
      key: 'initial_interval_seconds',
      limit: policyLimits.initialIntervalSeconds,
      unit: 'seconds (1 s to 1 h)',
    },
  ]);
  const wait = section(value.wait_for_reset, pointer(path, 'wait_for_reset'), 'reset waiting', issues, [
    { key: 'max_wait_seconds', limit: policyLimits.maxWaitSeconds, unit: 'seconds (1 s to 7 days)' },
  ]);
  const onExhausted = value.on_exhausted;
  if (!exhaustedOutcomes.includes(onExhausted as ExhaustedOutcome)) {
    issues.push({
      path: pointer(path, 'on_exhausted'),
      message:
        onExhausted === undefined
          ? 'on_exhausted is required: "skip" or "stop"'
          : `on_exhausted must be "skip" or "stop" (got ${describe(onExhausted)})`,
    });
  }
  if (issues.length > before || retry === null || wait === null) return null;
  return {
    retry: {
      enabled: retry.enabled,
      max_retries: retry.numbers.max_retries!,
      initial_interval_seconds: retry.numbers.initial_interval_seconds!,
    },
    wait_for_reset: { enabled: wait.enabled, max_wait_seconds: wait.numbers.max_wait_seconds! },
    on_exhausted: onExhausted as ExhaustedOutcome,
  };
}

interface NumberField {
  readonly key: string;
  readonly limit: { readonly min: number; readonly max: number };
  readonly unit: string;
}

function section(
  value: unknown,
  path: string,
  what: string,
  issues: FieldIssue[],
  fields: readonly NumberField[],
): { enabled: boolean; numbers: Record<string, number> } | null {
  if (!isPlainObject(value)) {
    const keys = ['enabled', ...fields.map((f) => f.key)].join(', ');
    issues.push({
      path,
      message:
        value === undefined
          ? `${path.split('/').pop()} is required: {${keys}}`
          : `must be an object {${keys}} (got ${describe(value)})`,
    });
    return null;
  }
  rejectUnknown(value, ['enabled', ...fields.map((f) => f.key)], path, what, issues);
  const enabled = value.enabled;
  if (typeof enabled !== 'boolean') {
    issues.push({
      path: pointer(path, 'enabled'),
      message: `enabled must be true or false (got ${describe(enabled)})`,
    });
    return null;
  }
  const numbers: Record<string, number> = {};
  let ok = true;
  for (const field of fields) {
    const raw = value[field.key];
    const at = pointer(path, field.key);
    if (!enabled) {
      if (raw === undefined || raw === 0) numbers[field.key] = 0;
      else {
        issues.push({
          path: at,
          message: `${field.key} must be 0 when ${what} is disabled (got ${describe(raw)})`,
        });
        ok = false;
      }
      continue;
    }
    const { min, max } = field.limit;
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < min || raw > max) {
      issues.push({
        path: at,
        message: `${field.key} must be an integer from ${min} to ${max} ${field.unit} when ${what} is enabled (got ${describe(raw)})`,
      });
      ok = false;
    } else {
      numbers[field.key] = raw;
    }
  }
  return ok ? { enabled, numbers } : null;
}

/** Reports every key of `value` outside `allowed`. */
export function rejectUnknown(
  value: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
  what: string,
  issues: FieldIssue[],
): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      issues.push({
        path: pointer(path, key),
        message: `unknown field ${describe(key)} in ${what} (allowed: ${allowed.join(', ')})`,
      });
    }
  }
}
