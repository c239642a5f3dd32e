import type { ClassPolicy, DynamicProfile, ExhaustedOutcome } from '../../../../src/core/policy/index.js';
import { policyLimits } from '../../../../src/core/policy/index.js';
import { formatDurationInput, parseDurationInput } from '../../../../src/core/time/duration-input.js';

/**
 * The policy editor's form: what the user typed, as typed (an emptied field stays empty and never snaps back to a
 * number), beside the profile version it was loaded from. `inputOf` turns it into the version 1 document the
 * shared validator checks and the server stores; it never writes a legacy shape (UI-08).
 */
export const classNames = ['transient', 'hard'] as const;
export type ClassName = (typeof classNames)[number];

export interface ClassForm {
  readonly retryEnabled: boolean;
  readonly maxRetries: string;
  readonly initialInterval: string;
  readonly waitEnabled: boolean;
  readonly maxWait: string;
  readonly onExhausted: ExhaustedOutcome;
}

export interface CandidateForm {
  readonly profile_id: string;
  readonly enabled: boolean;
  readonly provider?: string;
  readonly model?: string;
  readonly transient: ClassForm;
  readonly hard: ClassForm;
}

export interface ProfileForm {
  readonly id: string;
  readonly name: string;
  readonly candidates: readonly CandidateForm[];
}

// What a disabled section shows when turned on: a common starting point, not sent while the section is off.
const suggested = { maxRetries: '3', initialInterval: '5s', maxWait: '2h' } as const;

function classFormOf(policy: ClassPolicy): ClassForm {
  return {
    retryEnabled: policy.retry.enabled,
    maxRetries: policy.retry.enabled ? String(policy.retry.max_retries) : suggested.maxRetries,
    initialInterval: policy.retry.enabled
      ? formatDurationInput(policy.retry.initial_interval_seconds)
      : suggested.initialInterval,
    waitEnabled: policy.wait_for_reset.enabled,
    maxWait: policy.wait_for_reset.enabled
      ? formatDurationInput(policy.wait_for_reset.max_wait_seconds)
      : suggested.maxWait,
    onExhausted: policy.on_exhausted,
  };
}

export function formOf(profile: DynamicProfile): ProfileForm {
  return {
    id: profile.id,
    name: profile.name,
    candidates: profile.candidates.map((c) => ({
      profile_id: c.profile_id,
      enabled: c.enabled,
      ...(c.provider === undefined ? {} : { provider: c.provider }),
      ...(c.model === undefined ? {} : { model: c.model }),
      transient: classFormOf(c.policy.transient),
      hard: classFormOf(c.policy.hard),
    })),
  };
}

/** The JSON pointer of a class field, as the validator and the server's 422 name it. */
export function fieldPath(candidate: number, cls: ClassName, field: ClassField): string {
  return `/candidates/${candidate}/policy/${cls}/${fieldPointers[field]}`;
}

export type ClassField =
  'retryEnabled' | 'maxRetries' | 'initialInterval' | 'waitEnabled' | 'maxWait' | 'onExhausted';
const fieldPointers: Readonly<Record<ClassField, string>> = {
  retryEnabled: 'retry/enabled',
  maxRetries: 'retry/max_retries',
  initialInterval: 'retry/initial_interval_seconds',
  waitEnabled: 'wait_for_reset/enabled',
  maxWait: 'wait_for_reset/max_wait_seconds',
  onExhausted: 'on_exhausted',
};

/** A count as typed: a number for the validator to judge, `undefined` when empty, or the reason it is not one. */
function countOf(text: string): number | undefined | { readonly problem: string } {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (!/^-?\d{1,9}(\.\d+)?$/.test(trimmed)) return { problem: 'Enter a whole number, such as 3.' };
  return Number(trimmed);
}

function secondsOf(text: string): number | undefined | { readonly problem: string } {
  const parsed = parseDurationInput(text);
  if (parsed.ok) return parsed.seconds;
  if (parsed.reason === 'empty') return undefined;
  return parsed.reason === 'fractional'
    ? { problem: 'Use whole seconds: 1.5 s cannot be stored.' }
    : { problem: 'Enter a duration such as 90s, 5m, 2h or 7d (a plain number is seconds).' };
}

export interface FormInput {
  /** The document to validate and send: version 1 policies only. */
  readonly document: Record<string, unknown>;
  /** Problems found before validation (a field that is not a number or duration), by JSON pointer. */
  readonly typingIssues: ReadonlyMap<string, string>;
}

/** The profile document the form states; numbers of a section that is off are 0, as the validator requires. */
export function inputOf(form: ProfileForm): FormInput {
  const typingIssues = new Map<string, string>();
  const number = (value: ReturnType<typeof countOf>, path: string): number | undefined => {
    if (typeof value === 'object') {
      typingIssues.set(path, value.problem);
      return Number.NaN; // the validator reports it too; the typing message is the one shown
    }
    return value;
  };
  const classInput = (c: ClassForm, index: number, cls: ClassName) => ({
    retry: c.retryEnabled
      ? {
          enabled: true,
          max_retries: number(countOf(c.maxRetries), fieldPath(index, cls, 'maxRetries')),
          initial_interval_seconds: number(
            secondsOf(c.initialInterval),
            fieldPath(index, cls, 'initialInterval'),
          ),
        }
      : { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
    wait_for_reset: c.waitEnabled
      ? { enabled: true, max_wait_seconds: number(secondsOf(c.maxWait), fieldPath(index, cls, 'maxWait')) }
      : { enabled: false, max_wait_seconds: 0 },
    on_exhausted: c.onExhausted,
  });
  return {
    typingIssues,
    document: {
      id: form.id,
      name: form.name,
      candidates: form.candidates.map((c, index) => ({
        profile_id: c.profile_id,
        enabled: c.enabled,
        ...(c.provider === undefined ? {} : { provider: c.provider }),
        ...(c.model === undefined ? {} : { model: c.model }),
        policy: {
          version: 1,
          transient: classInput(c.transient, index, 'transient'),
          hard: classInput(c.hard, index, 'hard'),
        },
      })),
    },
  };
}

/**
 * The part of one class's form that is valid, as a class policy for the preview: an invalid retry or wait part
 * is left out (and named in `missing`) so the preview shows what it can while the user types.
 */
export function previewPolicyOf(c: ClassForm): { policy: ClassPolicy; missing: Array<'retry' | 'wait'> } {
  const missing: Array<'retry' | 'wait'> = [];
  const within = (n: unknown, limit: { min: number; max: number }): n is number =>
    typeof n === 'number' && Number.isInteger(n) && n >= limit.min && n <= limit.max;
  let retry: ClassPolicy['retry'] = { enabled: false, max_retries: 0, initial_interval_seconds: 0 };
  if (c.retryEnabled) {
    const count = countOf(c.maxRetries);
    const interval = secondsOf(c.initialInterval);
    if (within(count, policyLimits.maxRetries) && within(interval, policyLimits.initialIntervalSeconds))
      retry = { enabled: true, max_retries: count, initial_interval_seconds: interval };
    else missing.push('retry');
  }
  let wait: ClassPolicy['wait_for_reset'] = { enabled: false, max_wait_seconds: 0 };
  if (c.waitEnabled) {
    const seconds = secondsOf(c.maxWait);
    if (within(seconds, policyLimits.maxWaitSeconds)) wait = { enabled: true, max_wait_seconds: seconds };
    else missing.push('wait');
  }
  return { policy: { retry, wait_for_reset: wait, on_exhausted: c.onExhausted }, missing };
}
