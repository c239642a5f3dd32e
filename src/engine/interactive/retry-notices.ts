import {
  isRetryNotice,
  planNoticeWrite,
  type NoticeBody,
  type SessionRef,
  type Transcript,
  type TranscriptMessage,
} from '../../core/index.js';

export type NoticeOp = { readonly op: 'create' | 'update' | 'delete'; readonly message: TranscriptMessage };

/** Where swallowed failures go: the caller's log (never an exception). */
export type NoticeLog = (entry: {
  readonly level: 'warn';
  readonly message: string;
  readonly sessionId: string;
}) => void;

/**
 * Writes and retires notices through the Transcript port. Listing, updating or deleting may fail: each failure
 * is logged and swallowed (NOT-12, NOT-36), never answered with a fallback insert, and never stops the other
 * deletions (NOT-37); a notice left behind stays eligible for the next write or cleanup (NOT-13).
 */
export class RetryNotices {
  constructor(
    private readonly transcript: Transcript,
    private readonly log: NoticeLog,
  ) {}

  /** One attempt: create the notice once, or update the newest in place and delete the duplicates. */
  async writeAttempt(session: SessionRef, body: NoticeBody, turnId: string | null): Promise<NoticeOp[]> {
    const messages = await this.listed(session);
    if (messages === null) return [];
    const plan = planNoticeWrite(messages);
    if (plan.op === 'create') {
      try {
        const created = await this.transcript.create(session, { kind: 'status', turnId, ...body });
        return [{ op: 'create', message: created }];
      } catch (error) {
        this.warn(session, `creating the retry notice failed: ${describeError(error)}`);
        return [];
      }
    }
    let updated: TranscriptMessage | null;
    try {
      updated = await this.transcript.update(plan.keep.id, body);
    } catch (error) {
      this.warn(session, `updating retry notice ${plan.keep.id} failed: ${describeError(error)}`);
      return [];
    }
    if (updated === null) {
      this.warn(session, `retry notice ${plan.keep.id} vanished before its update`);
      return [];
    }
    return [{ op: 'update', message: updated }, ...(await this.deleteEach(session, plan.duplicates))];
  }

  /** Every `retrying: true` message of the session, deleted one by one through the transcript. */
  async retireAll(session: SessionRef): Promise<NoticeOp[]> {
    const messages = await this.listed(session);
    return messages === null ? [] : this.deleteEach(session, messages.filter(isRetryNotice));
  }

  private async deleteEach(session: SessionRef, messages: readonly TranscriptMessage[]): Promise<NoticeOp[]> {
    const deleted: NoticeOp[] = [];
    for (const message of messages) {
      try {
        if (await this.transcript.delete(message.id)) deleted.push({ op: 'delete', message });
      } catch (error) {
        this.warn(session, `deleting retry notice ${message.id} failed: ${describeError(error)}`);
      }
    }
    return deleted;
  }

  private async listed(session: SessionRef): Promise<readonly TranscriptMessage[] | null> {
    try {
      return await this.transcript.list(session);
    } catch (error) {
      this.warn(session, `listing the transcript failed: ${describeError(error)}`);
      return null;
    }
  }

  private warn(session: SessionRef, message: string): void {
    this.log({ level: 'warn', message, sessionId: session.sessionId });
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
