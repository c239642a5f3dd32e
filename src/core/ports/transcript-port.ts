import type { TranscriptMessage } from '../notice/retry-notice.js';

/** A task session: the pair every transcript operation and every authorization is about. */
export interface SessionRef {
  readonly taskId: string;
  readonly sessionId: string;
}

export interface NewMessage {
  readonly kind: string;
  readonly content: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly turnId: string | null;
}

/** What viewers receive: they update their stores by message id and remove deleted messages. */
export type TranscriptEvent =
  | { readonly type: 'session.message.created'; readonly message: TranscriptMessage }
  | { readonly type: 'session.message.updated'; readonly message: TranscriptMessage }
  | {
      readonly type: 'session.message.deleted';
      readonly taskId: string;
      readonly sessionId: string;
      readonly messageId: string;
    };

/**
 * The Transcript port: the messages of task sessions. Deletion is the single mutation path for retiring a
 * notice, and every successful mutation is published to subscribers.
 */
export interface Transcript {
  /** The session's messages, oldest first. */
  list(session: SessionRef): Promise<readonly TranscriptMessage[]>;
  create(session: SessionRef, message: NewMessage): Promise<TranscriptMessage>;
  /** Replaces content and metadata in place: id, creation time and turn stay. Null when it no longer exists. */
  update(
    id: string,
    change: { readonly content: string; readonly metadata: Readonly<Record<string, unknown>> },
  ): Promise<TranscriptMessage | null>;
  /** False when it no longer exists. */
  delete(id: string): Promise<boolean>;
  subscribe(listener: (event: TranscriptEvent) => void): () => void;
}

/** A task session as the orchestrator knows it: who owns it and which route carries its interactive retry. */
export interface TaskSession extends SessionRef {
  readonly owner: string;
  readonly routeId: string;
  readonly createdAtMs: number;
}

/** The registry of task sessions (the rows deletion removes). */
export interface TaskSessions {
  /**
   * Stores a new session; false (nothing written) when a session with this id exists already: two opens of one id
   * at once (two nodes, or two requests) both find it free, and the second learns it here, not by a duplicate key.
   */
  create(session: TaskSession): Promise<boolean>;
  /** The session with this id, whatever its task (callers check the pair). */
  read(sessionId: string): Promise<TaskSession | null>;
  /** Every session, oldest first (unbounded: the orchestrator's own sweeps; lists for people use `page`). */
  list(): Promise<readonly TaskSession[]>;
  /** One page of sessions, newest first (by creation time, then session id descending), at most `limit`. */
  page(query: TaskSessionPageQuery): Promise<readonly TaskSession[]>;
  delete(sessionId: string): Promise<boolean>;
}

/** A page of task sessions: the ones strictly after `before` in newest-first order (the previous page's last). */
export interface TaskSessionPageQuery {
  readonly before?: { readonly createdAtMs: number; readonly sessionId: string };
  readonly limit: number;
}
