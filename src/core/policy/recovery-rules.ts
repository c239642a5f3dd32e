import type { ClassPolicy, ExhaustedOutcome, PolicyDocument } from './policy-document.js';

/** How the delay before retry n (1-based) is computed. */
export type Backoff =
  /** n-th delay = initial x 2^(n-1), clamped to 24 h (a dynamic candidate's policy, EVL-16, EVL-17). */
  | { readonly kind: 'doubling'; readonly initialSeconds: number }
  /** n-th delay = seconds[n-1], the last one repeating (the concrete-profile entry, CUR-36). */
  | { readonly kind: 'table'; readonly seconds: readonly number[] };

/**
 * What the evaluator applies to one class of failure. A dynamic candidate's policy document and the built-in
 * concrete-profile retry entry are both expressed this way, so every route goes through the same evaluator.
 */
export interface ClassRules {
  /** Additional same-candidate attempts after the failed one; 0 when retry is off. */
  readonly maxRetries: number;
  readonly backoff: Backoff;
  /** Wait once per cycle for a trusted reset no further than this (seconds); null when reset waiting is off. */
  readonly resetWaitMaxSeconds: number | null;
  /** A trusted hint within this many seconds replaces a retry's delay (the concrete-profile entry); else null. */
  readonly hintReplacesDelayWithinSeconds: number | null;
  readonly onExhausted: ExhaustedOutcome;
  /** Why the route stops with `stop`: `exhausted`, or `not_retriable` for a class that is never retried. */
  readonly stopReason: 'exhausted' | 'not_retriable';
}

export interface RecoveryRules {
  readonly transient: ClassRules;
  readonly hard: ClassRules;
}

/** A class policy of a dynamic candidate, as rules. Disabled sections are exactly "not configured". */
export function rulesOfClassPolicy(policy: ClassPolicy): ClassRules {
  return {
    maxRetries: policy.retry.enabled ? policy.retry.max_retries : 0,
    backoff: { kind: 'doubling', initialSeconds: policy.retry.initial_interval_seconds },
    resetWaitMaxSeconds: policy.wait_for_reset.enabled ? policy.wait_for_reset.max_wait_seconds : null,
    hintReplacesDelayWithinSeconds: null,
    onExhausted: policy.on_exhausted,
    stopReason: 'exhausted',
  };
}

export function rulesOfPolicy(document: PolicyDocument): RecoveryRules {
  return { transient: rulesOfClassPolicy(document.transient), hard: rulesOfClassPolicy(document.hard) };
}

/**
 * The longest a route may be held behind a shared circuit (REQUIREMENTS CIR-05 decision): no longer than its own
 * rules would wait for a trusted reset that far away. Zero when the rules never wait for one.
 */
export function holdLimitSeconds(rules: ClassRules): number {
  return Math.max(rules.resetWaitMaxSeconds ?? 0, rules.hintReplacesDelayWithinSeconds ?? 0);
}

/** Whether a class has nothing configured besides its outcome: no retry and no reset waiting. */
export function nothingConfigured(rules: ClassRules): boolean {
  return rules.maxRetries === 0 && rules.resetWaitMaxSeconds === null;
}
