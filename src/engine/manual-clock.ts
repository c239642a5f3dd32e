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

/** What `advanceManualClock` needs of an engine: a way to wait until the work a firing started is done. */
interface Settles {
  idle(): Promise<void>;
}

/**
 * Moves a manual clock to `targetMs` (or, with null, until nothing is scheduled), firing each timer at its own
 * instant and letting the engine settle after each: a timer due at or before the target fires before it.
 * Returns how many firings it took; throws past `maxFirings`, which only a scenario that never settles reaches.
 */
export async function advanceManualClock(
  clock: ManualClock,
  engine: Settles,
  targetMs: number | null,
  maxFirings = 100_000,
): Promise<number> {
  let firings = 0;
  for (
    let next = clock.nextDue();
    next !== null && (targetMs === null || next <= targetMs);
    next = clock.nextDue()
  ) {
    if (++firings > maxFirings)
      throw new Error(`more than ${maxFirings} timer firings: the scenario does not settle`);
    clock.set(Math.max(clock.now(), next));
    clock.fireDue();
    await engine.idle();
  }
  if (targetMs !== null) clock.set(Math.max(clock.now(), targetMs));
  return firings;
}
