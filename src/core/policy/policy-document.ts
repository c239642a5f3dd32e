/**
 * The versioned per-candidate policy document (wire format, snake_case, as stored and returned). Only the
 * normalized form ever exists past validation: legacy maps are converted on write and never written back.
 */
export const exhaustedOutcomes = ['skip', 'stop'] as const;
export type ExhaustedOutcome = (typeof exhaustedOutcomes)[number];

export interface RetryPolicy {
  readonly enabled: boolean;
  /** Additional attempts after the failed one: 1-10 when enabled, 0 when disabled. */
  readonly max_retries: number;
  /** Delay before the first retry, in seconds: 1-3600 when enabled, 0 when disabled. Later delays double. */
  readonly initial_interval_seconds: number;
}

export interface WaitForResetPolicy {
  readonly enabled: boolean;
  /** Longest future reset this policy waits for, in seconds: 1-604800 when enabled, 0 when disabled. */
  readonly max_wait_seconds: number;
}

export interface ClassPolicy {
  readonly retry: RetryPolicy;
  readonly wait_for_reset: WaitForResetPolicy;
  /** After retries and waiting: `skip` to the next candidate, or `stop` for manual recovery. */
  readonly on_exhausted: ExhaustedOutcome;
}

export interface PolicyDocument {
  readonly version: 1;
  readonly transient: ClassPolicy;
  readonly hard: ClassPolicy;
}

export interface ProfileCandidate {
  /** The concrete profile (agent + provider + model) this candidate runs. */
  readonly profile_id: string;
  readonly enabled: boolean;
  readonly policy: PolicyDocument;
  /** Optional non-secret descriptors (the provider and model ids it runs on): they key shared circuits. */
  readonly provider?: string;
  readonly model?: string;
}

/** An ordered list of candidates, each with its own policy document. */
export interface DynamicProfile {
  readonly id: string;
  readonly name: string;
  readonly version: number;
  readonly candidates: readonly ProfileCandidate[];
}
