import type { MessageDoc, SessionKey } from './session-types.js';

/**
 * The page's copy of one session's transcript, kept by message id (NOT-10, NOT-29). Deleted ids are remembered,
 * so a list answer that was read before a deletion event cannot bring a retired notice back; an event copy newer
 * than the listed one wins the same way.
 */
export interface Transcript {
  readonly byId: ReadonlyMap<string, MessageDoc>;
  readonly deleted: ReadonlySet<string>;
  readonly loaded: boolean;
}

export const emptyTranscript: Transcript = { byId: new Map(), deleted: new Set(), loaded: false };

const newer = (a: MessageDoc, b: MessageDoc | undefined): boolean =>
  b === undefined || Date.parse(a.updated_at) >= Date.parse(b.updated_at);

/** A fresh list answer: it replaces what was loaded, except for later events' deletions and newer copies. */
export function withLoaded(state: Transcript, messages: readonly MessageDoc[]): Transcript {
  const byId = new Map<string, MessageDoc>();
  for (const message of messages) {
    if (state.deleted.has(message.id)) continue;
    const seen = state.byId.get(message.id);
    byId.set(message.id, seen !== undefined && newer(seen, message) ? seen : message);
  }
  return { byId, deleted: state.deleted, loaded: true };
}

/** Whether an event's message belongs to this page's task-session pair (other sessions' are ignored). */
const ours = (key: SessionKey, taskId: unknown, sessionId: unknown): boolean =>
  taskId === key.taskId && sessionId === key.sessionId;

/** Applies one `session.message.*` event: upsert by id (created, updated) or remove (deleted). */
export function withEvent(
  state: Transcript,
  key: SessionKey,
  type: string,
  data: Readonly<Record<string, unknown>>,
): Transcript {
  if (type === 'session.message.deleted') {
    const id = data.message_id;
    if (typeof id !== 'string' || !ours(key, data.task_id, data.session_id)) return state;
    const byId = new Map(state.byId);
    byId.delete(id);
    return { byId, deleted: new Set(state.deleted).add(id), loaded: state.loaded };
  }
  if (type !== 'session.message.created' && type !== 'session.message.updated') return state;
  const message = data.message as MessageDoc | undefined;
  if (message === undefined || typeof message.id !== 'string') return state;
  if (!ours(key, message.task_id, message.session_id) || state.deleted.has(message.id)) return state;
  if (!newer(message, state.byId.get(message.id))) return state;
  return { byId: new Map(state.byId).set(message.id, message), deleted: state.deleted, loaded: state.loaded };
}

/** The messages oldest first (creation time, then id), as the service lists them. */
export function inOrder(state: Transcript): MessageDoc[] {
  return [...state.byId.values()].sort(
    (a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
