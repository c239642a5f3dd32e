/** One stored event: its id orders the log and is the Server-Sent Events id a client resumes from. */
export interface LoggedEvent {
  readonly id: number;
  readonly type: string;
  readonly atMs: number;
  /** The event's document (JSON text), exactly as clients receive it. */
  readonly data: string;
}

/**
 * The EventLog port: the durable, bounded log of what viewers are told (route transitions, circuit changes,
 * transcript messages, plan errors), so a client that reconnects resumes without a gap. Ids only grow; a
 * pruned id is never reused. Ids become visible in order: once `after` returned an id, no smaller id appears later
 * (an adapter with several writers gives ids in commit order), so a reader that follows `after(last)` skips nothing.
 */
export interface EventLog {
  /** Appends in order, in one transaction; returns the stored events with their ids. */
  append(
    events: readonly { readonly type: string; readonly atMs: number; readonly data: string }[],
  ): Promise<readonly LoggedEvent[]>;
  /** Events after `afterId`, oldest first, at most `limit`. */
  after(afterId: number, limit: number): Promise<readonly LoggedEvent[]>;
  /** The first and last ids still stored (null when the log is empty). */
  bounds(): Promise<{ readonly first: number; readonly last: number } | null>;
  /** The highest id ever given (0 before the first event), pruned or not. */
  lastId(): Promise<number>;
  /**
   * Deletes all but the newest `keep` events and those older than `beforeMs`, always a prefix of the log: an old
   * event after one young enough to stay (its writer's clock ran behind) stays with it. Returns how many went.
   */
  prune(keep: number, beforeMs: number): Promise<number>;
  /**
   * Present when other processes append to the same log (shared nodes on PostgreSQL): calls `wake` whenever they
   * may have appended (a notification, a reconnection, and at least once per poll interval, so a lost notification
   * costs at most one interval); a reader then reads `after` its last id. Returns how to stop.
   */
  watch?(wake: () => void): () => Promise<void>;
}
