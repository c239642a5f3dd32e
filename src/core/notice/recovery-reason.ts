import { safeReason } from './retry-notice.js';
import type { NonProviderCode } from '../catalogue/codes.js';

/** Human words for recognized errors that are not provider failures (they keep their owner). */
const nonProviderWords: Readonly<Record<NonProviderCode, string>> = {
  context_length_exceeded: "The request is longer than the model's context window",
  request_too_large: 'The request is too large for the provider',
  bad_request: 'The provider rejected the request as malformed',
  cancelled: 'The turn was cancelled',
  local_permission: 'A local permission problem stopped the agent',
  local_runtime: 'The agent failed locally',
  task_error: 'The task itself failed',
  repository_error: 'A repository operation failed',
  resume_state: 'The agent could not resume its session',
  side_channel: 'A tool around the agent failed',
};

/** What an unsafe verdict means, in words. */
const unsafeWords: Readonly<Record<string, string>> = {
  missing: 'nothing is known of what the attempt did',
  stale: 'the evidence belongs to another attempt',
  tool_activity: 'the agent had already used tools',
  thought: 'the agent had already started thinking',
  assistant_output: 'the agent had already answered',
  ambiguous_delivery: 'the prompt may or may not have been delivered',
  partial_result: 'a partial result was already produced',
  candidate_removed: 'the candidate is no longer in the profile',
};

/** The failure a reason is about: the route's last failure summary (only classifier output). */
export interface FailureWords {
  readonly code: string | null;
  readonly class: string;
  readonly reason?: string | null;
}

/** The cause of a failure in words: provider codes, non-provider codes, and unclassified evidence alike. */
export function failureInWords(failure: FailureWords | null): string {
  if (failure === null) return 'No failure was reported';
  if (failure.class === 'transient' || failure.class === 'hard') return safeReason(failure.code);
  if (failure.code !== null && failure.code in nonProviderWords)
    return nonProviderWords[failure.code as NonProviderCode];
  switch (failure.reason) {
    case 'conflict':
      return 'The error evidence is contradictory';
    case 'low_confidence':
      return 'The error could not be recognized with confidence';
    case 'stale':
      return 'The error belongs to another attempt';
    default:
      return 'The error was not recognized';
  }
}

/**
 * Why an interactive route stopped for a person, in words for the recovery message (never a raw code): the
 * action reason together with the classification of the failure that led there.
 */
export function recoveryReason(reason: string, detail: string | null, failure: FailureWords | null): string {
  const cause = failureInWords(failure);
  switch (reason) {
    case 'exhausted':
      return `${cause}: retries are exhausted`;
    case 'not_retriable':
      return `${cause}: this is not retried automatically`;
    case 'unclassified':
      return cause;
    case 'unsafe':
      return `${cause}, and it is not safe to repeat the turn: ${unsafeWords[detail ?? ''] ?? 'the attempt may have had effects'}`;
    case 'ambiguous_dispatch':
      return 'The retry may or may not have reached the agent';
    case 'cancelled':
      return 'Retrying was cancelled';
    case 'invalid_configuration':
      return "The profile's stored configuration is invalid";
    case 'circuit_open':
      return `${cause}: the provider stays unavailable for longer than this session waits`;
    default:
      return cause;
  }
}
