import type { EventLog, LoggedEvent } from '../core/index.js';
import { Listeners } from '../support/listeners.js';

export interface EventHubOptions {
  readonly now: () => number;
  /** Events kept for resuming (the newest this many; 100,000 by default). */
  readonly keep?: number;
  /** Events older than this are pruned too (24 h by default). */
  readonly retentionMs?: number;
  /**
   * Where an append that failed is reported (the events are then lost to resuming clients, not to live ones), and a
   * read of a followed log that failed (the next wake-up reads from the same id again).
   */
  readonly onError?: (error: unknown) => void;
}

/** A document to publish: `data` becomes the event's JSON, with `server_time` added when it is written. */
export interface PendingEvent {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Events read per query when following a log other nodes append to. */
const followPage = 1000;

/**
 * Every event viewers see goes through here: appended to the durable log in arrival order (one transaction per
 * burst), then handed to live subscribers with its id, so a client that reconnects with `Last-Event-ID` reads
 * the log from there and misses nothing, and a live client never sees an event that has no id yet.
 *
 * When other nodes append to the same log (`log.watch`: shared nodes), live subscribers are fed by following the
 * log instead: every wake-up (this node's append, another node's notification, the fallback poll) reads `after`
 * the last id delivered, so subscribers get every node's events, each once, in id order.
 */
export class EventHub {
  private readonly listeners = new Listeners<LoggedEvent>();
  private queue: PendingEvent[] = [];
  private flushing: Promise<void> | null = null;
  private appended = 0;
  private closed = false;
  private log: EventLog | null = null;
  /** Following: the last id handed to subscribers (null until known), the read under way, how to stop. */
  private cursor: number | null = null;
  private reading: Promise<void> | null = null;
  private readAgain = false;
  private following: Promise<void> | null = null;
  private stopWatching: (() => Promise<void>) | null = null;
  readonly keep: number;
  private readonly retentionMs: number;

  constructor(private readonly options: EventHubOptions) {
    this.keep = options.keep ?? 100_000;
    this.retentionMs = options.retentionMs ?? 24 * 3600 * 1000;
  }

  /**
   * Starts writing to the log: events published before (restart reconciliation runs while the database opens)
   * wait for it, in order. Resolves when subscribers are fed: at once, or once following the log of shared nodes
   * has started (from its newest id then).
   */
  attach(log: EventLog): Promise<void> {
    this.log = log;
    if (log.watch !== undefined) this.following = this.startFollowing(log, log.watch.bind(log));
    if (this.queue.length > 0) this.flushing ??= this.flushSoon();
    return this.following ?? Promise.resolve();
  }

  publish(event: PendingEvent): void {
    if (this.closed) return;
    this.queue.push(event);
    if (this.log !== null) this.flushing ??= this.flushSoon();
  }

  /** Live events from now on, each after it is stored. */
  subscribe(listener: (event: LoggedEvent) => void): () => void {
    return this.listeners.add(listener);
  }

  /** Resolves when everything published so far is stored and delivered. */
  async drained(): Promise<void> {
    while (this.flushing !== null || this.reading !== null) await (this.flushing ?? this.reading);
  }

  async close(): Promise<void> {
    await this.following;
    await this.drained();
    this.closed = true;
    await this.stopWatching?.();
    await this.reading;
  }

  /** Following starts at the log's newest committed id: what came before is read by resuming clients. */
  private async startFollowing(log: EventLog, watch: (wake: () => void) => () => Promise<void>) {
    try {
      this.cursor = await log.lastId();
    } catch (error) {
      // The first wake-up that reads the log sets it instead.
      this.options.onError?.(error);
    }
    if (!this.closed) this.stopWatching = watch(() => this.wake());
  }

  /** Reads what is new now, or once more after the read under way (a wake-up during a read may be its event). */
  private wake(): void {
    if (this.closed || this.log === null) return;
    if (this.reading !== null) {
      this.readAgain = true;
      return;
    }
    this.reading = this.readNew(this.log).finally(() => {
      this.reading = null;
    });
  }

  private async readNew(log: EventLog): Promise<void> {
    try {
      do {
        this.readAgain = false;
        this.cursor ??= await log.lastId();
        for (;;) {
          const page = await log.after(this.cursor, followPage);
          for (const event of page) {
            this.cursor = event.id;
            this.listeners.emit(event);
          }
          if (page.length < followPage) break;
        }
      } while (this.readAgain && !this.closed);
    } catch (error) {
      // The next wake-up (at the latest the fallback poll) reads from the same id again.
      this.options.onError?.(error);
    }
  }

  private async flushSoon(): Promise<void> {
    // One microtask turn collects the events of one commit (a transition and its circuit change) into one write.
    await new Promise((resolve) => setImmediate(resolve));
    // Following: the first id to follow from is read before this node appends, so its own events are followed too.
    await this.following;
    const log = this.log!;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        const at = this.options.now();
        const rows = batch.map((e) => ({
          type: e.type,
          atMs: at,
          data: JSON.stringify({ ...e.data, server_time: new Date(at).toISOString() }),
        }));
        let stored: readonly LoggedEvent[];
        try {
          stored = await log.append(rows);
        } catch (error) {
          this.options.onError?.(error);
          continue;
        }
        if (this.following === null) for (const event of stored) this.listeners.emit(event);
        else this.wake();
        this.appended += stored.length;
        if (this.appended >= Math.min(1000, this.keep)) {
          this.appended = 0;
          await log.prune(this.keep, at - this.retentionMs).catch(this.options.onError);
        }
      }
    } finally {
      this.flushing = null;
    }
  }
}
