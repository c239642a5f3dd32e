import type { TaskSession } from './transcript-port.js';

/**
 * The notice lifecycle of one task session (REQUIREMENTS NOT-18 to NOT-22) as several nodes share it: whether an
 * accepted prompt or a retry exists, and until when late provider events are fenced.
 */
export interface SessionLifecycle {
  /** An accepted prompt or a retry exists (NOT-19). */
  readonly owned: boolean;
  /** A retry entry (and so, possibly, a notice) exists: a successful turn must look for notices (NOT-34). */
  readonly retry: boolean;
  /** Until then (the database's clock, epoch ms) a provider event without identity is late (NOT-20); 0: none. */
  readonly fenceUntilMs: number;
}

/** What a node holding a session's lock sees. */
export interface LockedSession {
  /** The stored lifecycle; null when the session has no row (not created yet, or deleted by another node). */
  readonly lifecycle: SessionLifecycle | null;
  /** The database's clock once the lock was granted (epoch ms): the authority for the fence. */
  readonly nowMs: number;
}

/** What the work under a session's lock hands back: its result, and the lifecycle to store (null: unchanged). */
export interface LockedWork<T> {
  readonly result: T;
  readonly lifecycle: SessionLifecycle | null;
}

/**
 * The SessionLocks port (several nodes on one PostgreSQL schema): one session's notice work runs on one node at a
 * time, and its lifecycle is stored, so a node that did not see a retry still knows it, and its fence.
 */
export interface SessionLocks {
  /**
   * Runs `work` holding the session's lock across every node (after the holder before it, on any node, released
   * it). The lifecycle `work` returns is stored before the lock is released; a `work` that throws stores nothing.
   */
  withSession<T>(sessionId: string, work: (locked: LockedSession) => Promise<LockedWork<T>>): Promise<T>;
  /** The task session whose retry rides on this route, or null (a route no session owns). */
  sessionOfRoute(routeId: string): Promise<TaskSession | null>;
  /**
   * A node's start: every session whose route is in one of `states` (a live retry loop) is owned with a retry, as a
   * restart re-owns it (lifecycles written by a single engine, which keeps them in its process, are repaired).
   */
  ownLoops(states: readonly string[]): Promise<void>;
}
