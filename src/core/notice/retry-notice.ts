import type { ProviderCode } from '../catalogue/codes.js';
import { safeIdentifier } from '../sanitize/index.js';
import { formatIsoUtc } from '../time/iso-time.js';

/**
 * The interactive transient retry notice (REQUIREMENTS NOT-01 to NOT-05): one ordinary status message of the
 * session transcript, marked by the boolean metadata `retrying: true`, that mirrors the engine's retry ownership.
 * It is a projection, never read as retry state: the route in the store is the authority.
 */

/** One message of a task session's transcript, as the Transcript port stores it. */
export interface TranscriptMessage {
  readonly id: string;
  readonly taskId: string;
  readonly sessionId: string;
  /** The turn the message belongs to; kept when the message is updated in place. */
  readonly turnId: string | null;
  readonly kind: string;
  readonly content: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

/** Human words for the reason: the notice shows these, never raw codes or provider text. */
const reasons: Readonly<Record<ProviderCode, string>> = {
  network_unavailable: 'Network unavailable',
  provider_unavailable: 'Provider unavailable',
  provider_overloaded: 'Provider overloaded',
  model_capacity: 'Model at capacity',
  rate_limited: 'Rate limited',
  agent_transport_lost: 'Connection to the agent lost',
  quota_limited: 'Usage limit reached',
  subscription_required: 'Subscription required',
  auth_required: 'Sign-in required',
  missing_credentials: 'Credentials missing',
  provider_not_configured: 'Provider not configured',
  model_unavailable: 'Model unavailable',
};

export function safeReason(code: string | null): string {
  return code !== null && code in reasons ? reasons[code as ProviderCode] : 'Temporary provider failure';
}

export interface RetryNoticeInput {
  readonly routeId: string;
  readonly code: string | null;
  /** The provider the failure named, else the concrete profile; only safe identifiers are shown. */
  readonly provider: string | null;
  readonly profileId: string;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly deadlineMs: number;
}

export interface NoticeBody {
  readonly content: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** The notice of one attempt: "Provider overloaded (anthropic). Retrying at 14:02:10 UTC, attempt 2 of 5." */
export function retryNotice(input: RetryNoticeInput): NoticeBody {
  const provider = safeIdentifier(input.provider ?? '') ?? safeIdentifier(input.profileId) ?? 'the provider';
  const reason = safeReason(input.code);
  const deadline = formatIsoUtc(input.deadlineMs);
  const clock = deadline.slice(11, 19);
  return {
    content: `${reason} (${provider}). Retrying at ${clock} UTC, attempt ${input.attempt} of ${input.maxAttempts}.`,
    metadata: {
      retrying: true,
      notice: 'transient_retry',
      route_id: input.routeId,
      reason,
      reason_code: input.code,
      provider,
      attempt: input.attempt,
      max_attempts: input.maxAttempts,
      deadline_at: deadline,
      actions: ['cancel'],
    },
  };
}

/** Only the boolean `true` marks a notice: a string "true" or a settled `false` is an ordinary message. */
export function isRetryNotice(message: TranscriptMessage): boolean {
  return message.metadata.retrying === true;
}

export type NoticeWritePlan =
  | { readonly op: 'create' }
  | {
      readonly op: 'update';
      readonly keep: TranscriptMessage;
      readonly duplicates: readonly TranscriptMessage[];
    };

/**
 * How an attempt is written (NOT-06 to NOT-11): no notice yet, create one; otherwise keep the newest by creation
 * time, then id, update it in place, and delete the others (which repairs duplicates of older versions).
 */
export function planNoticeWrite(messages: readonly TranscriptMessage[]): NoticeWritePlan {
  const notices = messages.filter(isRetryNotice);
  if (notices.length === 0) return { op: 'create' };
  const newestFirst = [...notices].sort(
    (a, b) => b.createdAtMs - a.createdAtMs || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0),
  );
  return { op: 'update', keep: newestFirst[0]!, duplicates: newestFirst.slice(1) };
}

/** The existing manual recovery message (Resume, Start fresh): never a notice, so cleanup leaves it alone. */
export function manualRecoveryMessage(reason: string): NoticeBody {
  return {
    content: `${reason}. Resume the session, or start fresh.`,
    metadata: { recovery: 'manual', actions: ['resume', 'start_fresh'] },
  };
}
