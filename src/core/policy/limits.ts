/**
 * The backend-owned limits of a policy document (REQUIREMENTS POL-03 to POL-06, EVL-17). The UI shows the same
 * numbers; the backend stays authoritative.
 */
export const policyLimits = {
  /** Enabled retry: additional attempts after the failed one. */
  maxRetries: { min: 1, max: 10 },
  /** Enabled retry: the first delay, in seconds (1 s to 1 h). */
  initialIntervalSeconds: { min: 1, max: 3600 },
  /** Enabled reset waiting: the longest reset waited for, in seconds (1 s to 7 days). */
  maxWaitSeconds: { min: 1, max: 604_800 },
  /** Every computed retry delay is clamped to this, in seconds (24 h). */
  delayCapSeconds: 86_400,
} as const;

/** Legacy `retry_same`: one same-candidate retry after this many seconds, then stop. */
export const legacyRetrySameIntervalSeconds = 5;
