import type { LegacyAction } from './legacy-rules.js';
import type { ExhaustedOutcome, PolicyDocument } from './policy-document.js';
import type { ProviderCode } from '../catalogue/codes.js';

/**
 * What a caller may write (the wire format in): a version 1 document, or a legacy rules map that is normalized
 * once on the way in (`on_provider_error`, or a provider code, set to `retry_same`, `try_next` or `stop`).
 * Stored and returned documents are always `PolicyDocument` (version 1).
 */
export type PolicyDocumentInput =
  | PolicyDocument
  | {
      readonly version: 1;
      readonly transient: ClassPolicyInput;
      readonly hard: ClassPolicyInput;
    }
  | { readonly on_provider_error?: LegacyAction }
  | Partial<Readonly<Record<ProviderCode, LegacyAction>>>;

export interface ClassPolicyInput {
  readonly retry: {
    readonly enabled: boolean;
    readonly max_retries: number;
    readonly initial_interval_seconds: number;
  };
  readonly wait_for_reset: { readonly enabled: boolean; readonly max_wait_seconds: number };
  readonly on_exhausted: ExhaustedOutcome;
}

export interface CandidateInput {
  /** The concrete profile (agent + provider + model) the candidate runs. */
  readonly profile_id: string;
  /** Default true; at least one candidate must be enabled. */
  readonly enabled?: boolean;
  /** Default: immediate skip for both classes. */
  readonly policy?: PolicyDocumentInput;
  /** Non-secret descriptors that key shared circuits. */
  readonly provider?: string;
  readonly model?: string;
}

/** A dynamic profile as a caller writes it (`Engine.saveProfile`, `recourse policy validate`). */
export interface DynamicProfileInput {
  readonly id: string;
  readonly name: string;
  /** Optional and informational: the store numbers versions itself (1, then one more on each change). */
  readonly version?: number;
  readonly candidates: readonly CandidateInput[];
}
