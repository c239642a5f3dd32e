import type { Clock } from './clock.js';
import type { DispatchIntent, JsonValue, Store, StoreTransaction } from '../core/index.js';
import type { EngineEvent } from './engine-events.js';

/** What a unit of work asks for once its transaction has committed, and only then. */
export interface AfterCommit {
  /** Deadlines to arm the timer for (absolute epoch ms). */
  readonly arm: number[];
  /** Intents to send, each with its route's caller payload. */
  readonly dispatch: { readonly intent: DispatchIntent; readonly payload: JsonValue | null }[];
  readonly events: EngineEvent[];
  /** A wait ended before its deadline: the armed timer may stand for nothing now. */
  waitsEnded: boolean;
}

/**
 * One unit of work: reads and writes inside the transaction it is given, at the batch's instant. `routeId` names
 * the route it is about, when one: the batch tells the store, which may read them all in one go.
 */
export type Work<R> = ((tx: StoreTransaction, nowMs: number, after: AfterCommit) => Promise<R>) & {
  readonly routeId?: string;
};

interface Pending {
  readonly work: Work<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Serializes all route work of one engine and commits it in batches (group commit): with synchronous=FULL a
 * commit costs a disk flush, so N decisions in one transaction cost one flush instead of N. Work is applied in
 * submission order; two pieces of work on one route see each other's writes. If a batch fails, each of its
 * pieces is retried alone, so one failing piece never takes the others down. The after-commit actions of a
 * transaction run only once it has committed: nothing is armed or dispatched for a write that did not land.
 */
export class BatchQueue {
  private queue: Pending[] = [];
  private running = false;
  private drainedWaiters: (() => void)[] = [];

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly maxBatch: number,
    private readonly onCommitted: (after: AfterCommit) => void,
  ) {}

  submit<R>(work: Work<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.running) void this.drain();
    });
  }

  /** Resolves once nothing is queued or running. */
  drained(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainedWaiters.push(resolve));
  }

  busy(): boolean {
    return this.running || this.queue.length > 0;
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        await this.runBatch(batch);
      }
    } finally {
      this.running = false;
      const waiters = this.drainedWaiters;
      this.drainedWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async runBatch(batch: readonly Pending[]): Promise<void> {
    const after = emptyAfter();
    let values: unknown[];
    const routeIds = [
      ...new Set(batch.flatMap((p) => (p.work.routeId === undefined ? [] : [p.work.routeId]))),
    ];
    try {
      values = await this.store.transact(
        async (tx) => {
          const nowMs = this.clock.now();
          const out: unknown[] = [];
          for (const p of batch) out.push(await p.work(tx, nowMs, after));
          return out;
        },
        { routeIds },
      );
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      for (const p of batch) await this.runBatch([p]);
      return;
    }
    // Committed: from here on nothing may send the batch round again.
    this.onCommitted(after);
    batch.forEach((p, i) => p.resolve(values[i]));
  }
}

function emptyAfter(): AfterCommit {
  return { arm: [], dispatch: [], events: [], waitsEnded: false };
}
