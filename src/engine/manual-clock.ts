import type { CancelTimer, Clock } from './clock.js';

interface Scheduled {
  readonly atMs: number;
  readonly fire: () => void;
  readonly seq: number;
}

/**
 * A clock that moves only when told: `recourse simulate`, the tests and the benchmarks drive the real engine
 * with it. `set` may move time backwards (a stepped wall clock); nothing fires until `fireDue`.
 */
export class ManualClock implements Clock {
  private current: number;
  private scheduled: Scheduled[] = [];
  private seq = 0;

  constructor(startMs: number) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  schedule(atMs: number, fire: () => void): CancelTimer {
    const entry = { atMs, fire, seq: this.seq++ };
    this.scheduled.push(entry);
    return () => {
      this.scheduled = this.scheduled.filter((s) => s !== entry);
    };
  }

  /** Sets the time without firing anything. */
  set(ms: number): void {
    this.current = ms;
  }

  /** The earliest scheduled instant, or null. */
  nextDue(): number | null {
    return this.scheduled.reduce<number | null>(
      (min, s) => (min === null || s.atMs < min ? s.atMs : min),
      null,
    );
  }

  /** How many callbacks are scheduled. */
  pending(): number {
    return this.scheduled.length;
  }

  /** Fires every callback due at or before now, earliest first. Returns how many fired. */
  fireDue(): number {
    const due = this.scheduled
      .filter((s) => s.atMs <= this.current)
      .sort((a, b) => a.atMs - b.atMs || a.seq - b.seq);
    this.scheduled = this.scheduled.filter((s) => s.atMs > this.current);
    for (const s of due) s.fire();
    return due.length;
  }

  /** Fires every scheduled callback now, due or not: what a timer that wakes early looks like. */
  fireAllEarly(): number {
    const all = [...this.scheduled].sort((a, b) => a.atMs - b.atMs || a.seq - b.seq);
    this.scheduled = [];
    for (const s of all) s.fire();
    return all.length;
  }
}
