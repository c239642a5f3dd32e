/** A transcript message as `GET /v1/sessions/ID/messages` and the `session.message.*` events carry it. */
export interface MessageDoc {
  readonly id: string;
  readonly task_id: string;
  readonly session_id: string;
  readonly turn_id: string | null;
  readonly kind: string;
  readonly content: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly created_at: string;
  readonly updated_at: string;
}

/** One row of `GET /v1/sessions`: a task session with its route's state. */
export interface SessionRow {
  readonly task_id: string;
  readonly session_id: string;
  readonly profile_id: string;
  readonly owner: string;
  readonly route_id: string | null;
  readonly state: string | null;
  readonly outcome: string | null;
  readonly updated_at: string;
}

/** The task-session pair a page is about. */
export interface SessionKey {
  readonly taskId: string;
  readonly sessionId: string;
}
