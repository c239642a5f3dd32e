import type { CancelTimer, Clock } from '../clock.js';
import type { SessionLifecycle, SessionLocks } from '../../core/index.js';

/** The lifecycle of one session's notices (REQUIREMENTS NOT-18 to NOT-23), as its guard's holder sees it. */
export interface GuardEntry {
  /** Callers inside or waiting for the guard. */
  refs: number;
  /** An accepted prompt or a retry exists. */
  owned: boolean;
  /** A retry entry (and so, possibly, a notice) exists: a successful turn must look for notices. */
  retry: boolean;
  /** Until then, a provider event without a complete execution identity is late and ignored. */
  fenceUntilMs: number;
  /**
   * Shared nodes, while held: the database's clock when the lock was granted (the fence's clock), and whether the
   * session had no row then (another node deleted it, or an open is creating it). Null and false otherwise.
   */
  databaseNowMs: number | null;
  rowMissing: boolean;
  tail: Promise<void>;
  reclaim: CancelTimer | null;
}

/** Late provider events of a retired retry are ignored this long (NOT-20). */
export const noticeFenceMs = 5 * 60_000;

/**
 * One reference-counted guard per session. A caller counts itself in before it waits, so the entry it waits on
 * can never be reclaimed and replaced under it; work runs one at a time, in arrival order. A timer reclaims an
 * entry only when nobody holds or waits for it, it is not owned, and its fence has passed.
 *
 * With `locks` (several nodes on one PostgreSQL schema) the guard also holds the session's lock across nodes while
 * the work runs, and the lifecycle (owned, retry, fence) is read from the database when the lock is granted and
 * stored before it is released: the fence runs on the database's clock, and an entry lives only while used.
 */
export class SessionGuards {
  private readonly entries = new Map<string, GuardEntry>();

  constructor(
    private readonly clock: Clock,
    private readonly fenceMs = noticeFenceMs,
    private readonly locks?: SessionLocks,
  ) {}

  async with<T>(sessionId: string, work: (entry: GuardEntry) => Promise<T>): Promise<T> {
    let entry = this.entries.get(sessionId);
    if (entry === undefined) {
      entry = {
        refs: 0,
        owned: false,
        retry: false,
        fenceUntilMs: 0,
        databaseNowMs: null,
        rowMissing: false,
        tail: Promise.resolve(),
        reclaim: null,
      };
      this.entries.set(sessionId, entry);
    }
    entry.refs += 1;
    const previous = entry.tail;
    let release!: () => void;
    entry.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return this.locks === undefined
        ? await work(entry)
        : await this.withLock(this.locks, sessionId, entry, work);
    } finally {
      entry.refs -= 1;
      release();
      this.armReclaim(sessionId, entry);
    }
  }

  /** A new prompt with a complete execution identity, or a retry: the entry is owned and any fence lifted. */
  own(entry: GuardEntry, retry: boolean): void {
    entry.owned = true;
    entry.retry = entry.retry || retry;
    entry.fenceUntilMs = 0;
    entry.reclaim?.();
    entry.reclaim = null;
  }

  /** A turn finished without a retry: nothing is owned any more, and nothing is fenced. */
  release(entry: GuardEntry): void {
    entry.owned = false;
  }

  /** Retry ownership ended: clear it and fence late provider events for five minutes. */
  retire(entry: GuardEntry): void {
    entry.owned = false;
    entry.retry = false;
    entry.fenceUntilMs = this.now(entry) + this.fenceMs;
  }

  fenced(entry: GuardEntry): boolean {
    return !entry.owned && this.now(entry) < entry.fenceUntilMs;
  }

  /** Entries alive (a leak test reads this). */
  size(): number {
    return this.entries.size;
  }

  close(): void {
    for (const entry of this.entries.values()) entry.reclaim?.();
    this.entries.clear();
  }

  /** The session's lock across nodes around `work`, with the stored lifecycle loaded into the entry and saved back. */
  private withLock<T>(
    locks: SessionLocks,
    sessionId: string,
    entry: GuardEntry,
    work: (entry: GuardEntry) => Promise<T>,
  ): Promise<T> {
    return locks.withSession(sessionId, async (locked) => {
      const before: SessionLifecycle = locked.lifecycle ?? { owned: false, retry: false, fenceUntilMs: 0 };
      entry.owned = before.owned;
      entry.retry = before.retry;
      entry.fenceUntilMs = before.fenceUntilMs;
      entry.databaseNowMs = locked.nowMs;
      entry.rowMissing = locked.lifecycle === null;
      try {
        const result = await work(entry);
        const after: SessionLifecycle = {
          owned: entry.owned,
          retry: entry.retry,
          fenceUntilMs: entry.fenceUntilMs,
        };
        const changed =
          after.owned !== before.owned ||
          after.retry !== before.retry ||
          after.fenceUntilMs !== before.fenceUntilMs;
        return { result, lifecycle: changed ? after : null };
      } finally {
        entry.databaseNowMs = null;
        entry.rowMissing = false;
      }
    });
  }

  private now(entry: GuardEntry): number {
    return entry.databaseNowMs ?? this.clock.now();
  }

  private armReclaim(sessionId: string, entry: GuardEntry): void {
    if (entry.refs > 0 || entry.reclaim !== null) return;
    if (this.locks !== undefined) {
      // The lifecycle lives in the database: the entry only orders this process's callers.
      if (this.entries.get(sessionId) === entry) this.entries.delete(sessionId);
      return;
    }
    if (entry.owned) return;
    entry.reclaim = this.clock.schedule(Math.max(this.clock.now(), entry.fenceUntilMs), () => {
      entry.reclaim = null;
      const stillIdle = entry.refs === 0 && !entry.owned && this.clock.now() >= entry.fenceUntilMs;
      if (stillIdle && this.entries.get(sessionId) === entry) this.entries.delete(sessionId);
      else this.armReclaim(sessionId, entry);
    });
  }
}
