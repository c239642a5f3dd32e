import type { ClassPolicyInput, DynamicProfileInput, PolicyDocumentInput } from '../core/index.js';

/**
 * The demo's three dynamic profiles. Intervals are seconds, not minutes, so that a newcomer sees every state within
 * half a minute; the shapes are the ones a real deployment would use (retry transient failures with backoff, wait
 * for a trusted reset that is close, move on to the next candidate, stop on the last one).
 */

const retrying = (maxRetries: number, initialSeconds: number) => ({
  enabled: true,
  max_retries: maxRetries,
  initial_interval_seconds: initialSeconds,
});
const noRetry = { enabled: false, max_retries: 0, initial_interval_seconds: 0 };
const resetWithin = (seconds: number) => ({ enabled: true, max_wait_seconds: seconds });
const noResetWait = { enabled: false, max_wait_seconds: 0 };

/** Demo policies cap reset waits at this: a reset further away is not waited for. */
const demoResetCapSeconds = 10;

function policy(transient: ClassPolicyInput, hard: ClassPolicyInput): PolicyDocumentInput {
  return { version: 1, transient, hard };
}

/** A first choice: two quick retries, a short reset wait, then the next candidate. */
const firstChoice = policy(
  { retry: retrying(2, 2), wait_for_reset: resetWithin(demoResetCapSeconds), on_exhausted: 'skip' },
  { retry: noRetry, wait_for_reset: resetWithin(demoResetCapSeconds), on_exhausted: 'skip' },
);

/** A middle candidate: one more retry before moving on. */
const steady = policy(
  { retry: retrying(3, 2), wait_for_reset: resetWithin(demoResetCapSeconds), on_exhausted: 'skip' },
  { retry: noRetry, wait_for_reset: resetWithin(demoResetCapSeconds), on_exhausted: 'skip' },
);

/** The last candidate: nothing left to skip to, so exhaustion stops for a person. */
const lastResort = policy(
  { retry: retrying(2, 3), wait_for_reset: resetWithin(demoResetCapSeconds), on_exhausted: 'stop' },
  { retry: noRetry, wait_for_reset: noResetWait, on_exhausted: 'stop' },
);

export const demoProfiles: readonly DynamicProfileInput[] = [
  {
    id: 'demo-review',
    name: 'Demo: code review',
    candidates: [
      { profile_id: 'review-main', policy: firstChoice },
      { profile_id: 'review-spare', policy: lastResort },
    ],
  },
  {
    id: 'demo-build',
    name: 'Demo: build fixing',
    candidates: [
      { profile_id: 'build-fast', policy: firstChoice },
      { profile_id: 'build-steady', policy: steady },
      { profile_id: 'build-fallback', policy: lastResort },
    ],
  },
  {
    id: 'demo-docs',
    name: 'Demo: docs writing',
    candidates: [
      { profile_id: 'docs-main', policy: firstChoice },
      { profile_id: 'docs-spare', policy: lastResort },
    ],
  },
];

/** Whether `candidate` has a later candidate in its profile: Skip now has somewhere to go. */
export function hasLaterCandidate(profileId: string, candidate: string): boolean {
  const candidates = demoProfiles.find((p) => p.id === profileId)?.candidates ?? [];
  const at = candidates.findIndex((c) => c.profile_id === candidate);
  return at >= 0 && at < candidates.length - 1;
}
