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
  /** Intents whose answer this work recorded (acknowledged, ambiguous or superseded): no one waits for them now. */
  readonly answered: string[];
  /** Circuits this work closed, with the instants they held routes until: those routes are woken. */
  readonly wake: { readonly circuitKey: string; readonly heldUntilMs: readonly number[] }[];
}

/**
 * One unit of work: reads and writes inside the transaction it is given, at the instant it is given (`nowMs`, taken
 * as it begins). `now` reads the clock again: work that decides on rows another node may have written since its
 * instant (circuits) takes its instant after reading them. `routeId` names the route it is about, when one: the
 * batch tells the store, which may read them all in one go.
 */
export type Work<R> = ((
  tx: StoreTransaction,
  nowMs: number,
  after: AfterCommit,
  now: () => number,
) => Promise<R>) & {
  readonly routeId?: string;
};

/**
 * Thrown by work whose fenced write met another node's newer row (a circuit another node moved since this work
 * read it). Nothing of the work landed; done again, it reads the winner's row and decides on that.
 */
export class WriteRaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WriteRaceError';
  }
}

/** How many times a piece alone is done again after losing a write race before its caller gets the error. */
const writeRaceRetries = 8;

/** How many times (a second apart) to ask whether a transaction whose COMMIT failed was applied. */
const commitCheckTries = 30;

/** A piece of work with how to answer whoever waits for it: what the queue holds, and what a caller may hold back. */
export interface QueuedWork {
  readonly work: Work<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface Pending extends QueuedWork {
  /** Write races this piece has lost, alone. */
  races?: number;
}

/**
 * Serializes all route work of one engine and commits it in batches (group commit): with synchronous=FULL a
 * commit costs a disk flush, so N decisions in one transaction cost one flush instead of N. Work is applied in
 * submission order; two pieces of work on one route see each other's writes. If a batch fails, it is tried again
 * without the failing piece, which is tried alone in its place, so one failing piece never takes the others down. The after-commit actions of a
 * transaction run only once it has committed: nothing is armed or dispatched for a write that did not land.
 */
export class BatchQueue {
  private queue: Pending[] = [];
  private running = false;
  private drainedWaiters: (() => void)[] = [];
  private readonly now = (): number => this.clock.now();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly maxBatch: number,
    private readonly onCommitted: (after: AfterCommit) => void,
    /** A transaction failed at COMMIT and may have landed all the same: the deadlines it wrote are unknown. */
    private readonly onCommitUncertain: () => void = () => undefined,
  ) {}

  submit<R>(work: Work<R>): Promise<R> {
    return this.submitWith(work, []);
  }

  /**
   * Queues `work`, then the pieces `along` right behind it, in one step: no batch can begin between them, so they
   * share its transaction when the batch has room (a claim and the answers to the claim before it).
   */
  submitWith<R>(work: Work<R>, along: readonly QueuedWork[]): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject }, ...along);
      if (!this.running) void this.drain();
    });
  }

  /** Queues pieces held back by a caller, in their order. */
  enqueue(pieces: readonly QueuedWork[]): void {
    if (pieces.length === 0) return;
    this.queue.push(...pieces);
    if (!this.running) void this.drain();
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

  /**
   * Commits a batch. When it fails, the piece that threw is set apart: the pieces before it are tried again together,
   * then it alone, then the pieces after it together (another node's circuit write refuses the first piece of a
   * batch, and the rest must not pay a commit each). Pieces before it that fail again are each tried alone. A batch
   * whose circuits another node changed before it could commit is tried again whole, then piece by piece.
   */
  private async runBatch(batch: readonly Pending[], isolate = true): Promise<void> {
    const after = emptyAfter();
    let values: unknown[];
    const routeIds = [
      ...new Set(batch.flatMap((p) => (p.work.routeId === undefined ? [] : [p.work.routeId]))),
    ];
    let failedAt = -1;
    let staleCircuit = false;
    let out: unknown[] = [];
    try {
      values = await this.store.transact(
        async (tx) => {
          out = [];
          for (const [i, p] of batch.entries()) {
            failedAt = i;
            // Each piece at its own instant: a batch can take seconds under load, and its last piece reads rows
            // (another node's circuit) written long after the batch began.
            out.push(await p.work(tx, this.clock.now(), after, this.now));
          }
          failedAt = -1;
          // A decision that only read a circuit (a route held behind it, or sent because it looked closed) is fenced
          // here, last before COMMIT: held on a circuit another node closed meanwhile, a route missed its wake.
          if (!(await tx.confirmCircuitReads())) {
            staleCircuit = true;
            throw new WriteRaceError(
              'a circuit this batch read was changed by another writer before it committed',
            );
          }
          return out;
        },
        { routeIds },
      );
    } catch (error) {
      if (staleCircuit && batch.length > 1) {
        // Nothing landed (the check comes before COMMIT), and no piece is to blame: the whole batch again, on the
        // circuits as they are now; lost twice in a row, each piece alone, with its own retries.
        if (isolate) await this.runBatch(batch, false);
        else for (const p of batch) await this.runBatch([p]);
        return;
      }
      // Every piece ran and the transaction still failed: at COMMIT. A connection lost then (a database restart)
      // leaves it unknown whether the server applied it; the intents it wrote tell. Taken for undone, a committed
      // firing was never sent, and its intent waited unanswered until its node left.
      if (failedAt < 0 && !staleCircuit) {
        if (await this.committedAnyway(after)) {
          this.onCommitted(after);
          batch.forEach((p, i) => p.resolve(out[i]));
          return;
        }
        // Nothing to tell by (no intent written), or it did not land: a deadline it may have stored is armed from
        // the store, so a wait decided by a transaction that landed is not left without a timer.
        this.onCommitUncertain();
      }
      if (batch.length === 1) {
        const piece = batch[0]!;
        // Another node won a fenced write this piece needed: do it again, so it reads the winner's row. Without
        // this, two nodes failing routes of one provider at once made one caller's report fail (an HTTP 500).
        // A key another node inserted first (one route id started on two nodes) is such a race too: done again,
        // the start reads the winner's route and answers that it exists, not the database's error.
        const lost = error instanceof WriteRaceError || this.store.lostKeyRace?.(error) === true;
        if (lost && (piece.races ?? 0) < writeRaceRetries) {
          piece.races = (piece.races ?? 0) + 1;
          await this.runBatch(batch);
          return;
        }
        piece.reject(error);
        return;
      }
      if (isolate && failedAt >= 0) {
        // In submission order: the pieces before it (they did not fail), the piece alone, then the pieces after it.
        if (failedAt > 0) await this.runBatch(batch.slice(0, failedAt), false);
        await this.runBatch([batch[failedAt]!]);
        if (failedAt < batch.length - 1) await this.runBatch(batch.slice(failedAt + 1));
        return;
      }
      for (const p of batch) await this.runBatch([p]);
      return;
    }
    // Committed: from here on nothing may send the batch round again.
    this.onCommitted(after);
    batch.forEach((p, i) => p.resolve(values[i]));
  }

  /**
   * Whether a transaction whose COMMIT failed was applied all the same: true only when it wrote dispatch intents
   * and they are stored (all or none: one transaction). Asked again a second later while the database cannot
   * answer (it is restarting), for at most `commitCheckTries` seconds; then the batch counts as undone, as before.
   */
  private async committedAnyway(after: AfterCommit): Promise<boolean> {
    const ids = after.dispatch.map((d) => d.intent.id);
    if (ids.length === 0) return false;
    for (let tries = 1; ; tries++) {
      try {
        return (await this.store.storedIntents(ids)).length === ids.length;
      } catch {
        if (tries >= commitCheckTries) return false;
        await new Promise<void>((resolve) => this.clock.schedule(this.clock.now() + 1_000, resolve));
      }
    }
  }
}

function emptyAfter(): AfterCommit {
  return { arm: [], dispatch: [], events: [], waitsEnded: false, answered: [], wake: [] };
}
