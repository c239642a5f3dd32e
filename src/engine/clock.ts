/** Stops a scheduled callback; calling it after the callback ran, or twice, does nothing. */
export type CancelTimer = () => void;

/**
 * The Clock port: the engine's only source of time. Deadlines are absolute epoch ms (UTC); `schedule` calls
 * `fire` once, at or after `atMs` by this clock. A firing may come early (the wall clock stepped back after
 * arming): the engine re-reads `now()` and arms again, so an early firing never acts and never loses a deadline.
 */
export interface Clock {
  now(): number;
  schedule(atMs: number, fire: () => void): CancelTimer;
}

export interface SystemClockOptions {
  /** The wall clock (tests substitute a stepping one). */
  readonly now?: () => number;
  /**
   * The longest single sleep. A wall clock that jumps forward while we sleep makes a firing late; waking at
   * least this often bounds that lateness. Early wake-ups re-arm themselves.
   */
  readonly maxSleepMs?: number;
}

/** The wall clock and `setTimeout`, re-checked on every wake-up so that clock steps neither fire early nor lose a deadline. */
export function systemClock(options: SystemClockOptions = {}): Clock {
  const now = options.now ?? Date.now;
  const maxSleepMs = options.maxSleepMs ?? 30_000;
  return {
    now,
    schedule(atMs, fire) {
      let handle: NodeJS.Timeout | null = null;
      const sleep = (): void => {
        const wait = atMs - now();
        if (wait <= 0) {
          handle = null;
          fire();
          return;
        }
        handle = setTimeout(sleep, Math.min(wait, maxSleepMs));
      };
      sleep();
      return () => {
        if (handle !== null) clearTimeout(handle);
        handle = null;
      };
    },
  };
}
