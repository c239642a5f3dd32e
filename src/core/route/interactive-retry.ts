import type { RecoveryRules } from '../policy/recovery-rules.js';

/**
 * The concrete-profile interactive retry entry (REQUIREMENTS CUR-36 decision): one orchestrator-owned budget,
 * `transientMaxAttempts` retries at `transientRetryDelayFor` delays, no nested counters. A trusted hint within
 * 60 s replaces the delay. Exhaustion goes to manual recovery with Resume and Start fresh.
 */
export const interactiveRetryDefaults = {
  transientMaxAttempts: 5,
  delaysSeconds: [5, 10, 20, 40, 60],
  hintWindowSeconds: 60,
} as const;

/**
 * The same entry as rules of the one evaluator (CAL-07: product-specific defaults, the same class and timing
 * metadata): transient failures retry on the table, a hint within the window replacing the delay, then stop;
 * hard failures are never retried (`not_retriable`). Neither class waits for resets or skips: a concrete
 * profile has no other candidate.
 */
export const interactiveRecoveryRules: RecoveryRules = Object.freeze({
  transient: Object.freeze({
    maxRetries: interactiveRetryDefaults.transientMaxAttempts,
    backoff: Object.freeze({ kind: 'table' as const, seconds: interactiveRetryDefaults.delaysSeconds }),
    resetWaitMaxSeconds: null,
    hintReplacesDelayWithinSeconds: interactiveRetryDefaults.hintWindowSeconds,
    onExhausted: 'stop' as const,
    stopReason: 'exhausted' as const,
  }),
  hard: Object.freeze({
    maxRetries: 0,
    backoff: Object.freeze({ kind: 'table' as const, seconds: [] }),
    resetWaitMaxSeconds: null,
    hintReplacesDelayWithinSeconds: null,
    onExhausted: 'stop' as const,
    stopReason: 'not_retriable' as const,
  }),
});

/** The manual choices an interactive route offers when it stops (CUR-33): the user, never the classifier, picks. */
export const manualRecoveryActions = ['resume', 'start_fresh'] as const;
