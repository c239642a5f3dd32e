import type { CancelTimer, Clock } from '../engine/index.js';

/**
 * The fleet's timers and the work they start, on the engine's own clock (the real one, or a test's manual clock):
 * `stop` cancels every timer, and `settled` waits for the work already running, so nothing outlives the fleet.
 */
export class DemoTimers {
  private readonly cancels = new Set<CancelTimer>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void,
  ) {}

  now(): number {
    return this.clock.now();
  }

  /** Runs `work` after `delayMs` of the clock, unless the fleet stopped first. */
  after(delayMs: number, work: () => Promise<void> | void): void {
    if (this.stopped) return;
    const cancel = this.clock.schedule(this.clock.now() + delayMs, () => {
      this.cancels.delete(cancel);
      this.run(work);
    });
    this.cancels.add(cancel);
  }

  /** Runs `work` now, tracked: its failure goes to the error sink, never to an unhandled rejection. */
  run(work: () => Promise<void> | void): void {
    if (this.stopped) return;
    const done: Promise<void> = Promise.resolve()
      .then(work)
      .catch(this.onError)
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }

  /** Cancels every timer; work already running goes on (await `settled`). */
  stop(): void {
    this.stopped = true;
    for (const cancel of this.cancels) cancel();
    this.cancels.clear();
  }

  /** Resolves when no tracked work runs (work started meanwhile is waited for too). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** How many timers are pending (for tests: none after `stop`). */
  pending(): number {
    return this.cancels.size;
  }
}
