import { isRetryNotice, planNoticeWrite, safeReason } from '../../../../src/core/notice/retry-notice.js';
import type { TranscriptMessage } from '../../../../src/core/notice/retry-notice.js';
import { safeIdentifier } from '../../../../src/core/sanitize/safe-excerpt.js';
import type { MessageDoc } from './session-types.js';

/** What the inline retry card shows (NOT-03): words and numbers only, never the provider's text. */
export interface RetryCardModel {
  readonly messageId: string;
  /** Safe words for the reason, from the core's table (never the metadata's free text). */
  readonly reason: string;
  readonly reasonCode: string | null;
  readonly provider: string;
  readonly attempt: number | null;
  readonly maxAttempts: number | null;
  readonly deadlineMs: number | null;
  readonly routeId: string | null;
}

const asCore = (m: MessageDoc): TranscriptMessage => ({
  id: m.id,
  taskId: m.task_id,
  sessionId: m.session_id,
  turnId: m.turn_id,
  kind: m.kind,
  content: m.content,
  metadata: m.metadata,
  createdAtMs: Date.parse(m.created_at),
  updatedAtMs: Date.parse(m.updated_at),
});

/** Whether a message is a retry notice: only the boolean `retrying: true` (NOT-02), as the core decides. */
export function isNotice(message: MessageDoc): boolean {
  return isRetryNotice(asCore(message));
}

/**
 * The one notice a session's card shows (NOT-01): the newest by creation time, then id, the same one the service
 * keeps when it repairs duplicates (`planNoticeWrite`); null with none.
 */
export function currentNoticeId(messages: readonly MessageDoc[]): string | null {
  const plan = planNoticeWrite(messages.map(asCore));
  return plan.op === 'update' ? plan.keep.id : null;
}

const wholeNumber = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;

export function retryCardModel(message: MessageDoc): RetryCardModel {
  const m = message.metadata;
  const code = typeof m.reason_code === 'string' ? m.reason_code : null;
  const deadline = typeof m.deadline_at === 'string' ? Date.parse(m.deadline_at) : NaN;
  return {
    messageId: message.id,
    reason: safeReason(code),
    reasonCode: code === null ? null : safeIdentifier(code),
    provider: safeIdentifier(typeof m.provider === 'string' ? m.provider : null) ?? 'the provider',
    attempt: wholeNumber(m.attempt),
    maxAttempts: wholeNumber(m.max_attempts),
    deadlineMs: Number.isFinite(deadline) ? deadline : null,
    routeId: typeof m.route_id === 'string' ? safeIdentifier(m.route_id) : null,
  };
}

/** Whether a message is the manual recovery message (Resume, Start fresh) that a person answers (CUR-33). */
export function isRecoveryMessage(message: MessageDoc): boolean {
  return message.metadata.recovery === 'manual';
}
