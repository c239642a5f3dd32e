import type { DynamicProfileInput } from '../../src/core/index.js';

/**
 * The policy most engine and embedding tests give their candidates: transient failures retried (and, when
 * `maxWaitSeconds` is given, waited out), hard failures stopped at once.
 */
export function transientRetryPolicy(options: {
  maxRetries: number;
  intervalSeconds: number;
  onExhausted: 'skip' | 'stop';
  maxWaitSeconds?: number;
}) {
  const wait = options.maxWaitSeconds;
  return {
    version: 1 as const,
    transient: {
      retry: {
        enabled: true,
        max_retries: options.maxRetries,
        initial_interval_seconds: options.intervalSeconds,
      },
      wait_for_reset: { enabled: wait !== undefined, max_wait_seconds: wait ?? 0 },
      on_exhausted: options.onExhausted,
    },
    hard: {
      retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
      wait_for_reset: { enabled: false, max_wait_seconds: 0 },
      on_exhausted: 'stop' as const,
    },
  };
}

/** The profile `fleet` with one candidate, `claude` on Anthropic, under `policy`. */
export function claudeFleet(policy: ReturnType<typeof transientRetryPolicy>): DynamicProfileInput {
  return {
    id: 'fleet',
    name: 'Fleet',
    candidates: [{ profile_id: 'claude', provider: 'anthropic', policy }],
  };
}
