import type { CancelTimer, Clock } from '../clock.js';

/** The process-local lifecycle of one session's notices (REQUIREMENTS NOT-18 to NOT-23). */
export interface GuardEntry {
  /** Callers inside or waiting for the guard. */
  refs: number;
  /** An accepted prompt or a retry exists. */
  owned: boolean;
  /** A retry entry (and so, possibly, a notice) exists: a successful turn must look for notices. */
  retry: boolean;
  /** Until then, a provider event without a complete execution identity is late and ignored. */
  fenceUntilMs: number;
  tail: Promise<void>;
  reclaim: CancelTimer | null;
}

/** Late provider events of a retired retry are ignored this long (NOT-20). */
export const noticeFenceMs = 5 * 60_000;

/**
 * One reference-counted guard per session. A caller counts itself in before it waits, so the entry it waits on
 * can never be reclaimed and replaced under it; work runs one at a time, in arrival order. A timer reclaims an
 * entry only when nobody holds or waits for it, it is not owned, and its fence has passed.
 */
export class SessionGuards {
  private readonly entries = new Map<string, GuardEntry>();

  constructor(
    private readonly clock: Clock,
    private readonly fenceMs = noticeFenceMs,
  ) {}

  async with<T>(sessionId: string, work: (entry: GuardEntry) => Promise<T>): Promise<T> {
    let entry = this.entries.get(sessionId);
    if (entry === undefined) {
      entry = {
        refs: 0,
        owned: false,
        retry: false,
        fenceUntilMs: 0,
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
      return await work(entry);
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
    entry.fenceUntilMs = this.clock.now() + this.fenceMs;
  }

  fenced(entry: GuardEntry): boolean {
    return !entry.owned && this.clock.now() < entry.fenceUntilMs;
  }

  /** Entries alive (a leak test reads this). */
  size(): number {
    return this.entries.size;
  }

  close(): void {
    for (const entry of this.entries.values()) entry.reclaim?.();
    this.entries.clear();
  }

  private armReclaim(sessionId: string, entry: GuardEntry): void {
    if (entry.refs > 0 || entry.owned || entry.reclaim !== null) return;
    entry.reclaim = this.clock.schedule(Math.max(this.clock.now(), entry.fenceUntilMs), () => {
      entry.reclaim = null;
      const stillIdle = entry.refs === 0 && !entry.owned && this.clock.now() >= entry.fenceUntilMs;
      if (stillIdle && this.entries.get(sessionId) === entry) this.entries.delete(sessionId);
      else this.armReclaim(sessionId, entry);
    });
  }
}
