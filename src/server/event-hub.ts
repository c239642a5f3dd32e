import type { EventLog, LoggedEvent } from '../core/index.js';
import { Listeners } from '../support/listeners.js';

export interface EventHubOptions {
  readonly now: () => number;
  /** Events kept for resuming (the newest this many; 100,000 by default). */
  readonly keep?: number;
  /** Events older than this are pruned too (24 h by default). */
  readonly retentionMs?: number;
  /** Where an append that failed is reported (the events are then lost to resuming clients, not to live ones). */
  readonly onError?: (error: unknown) => void;
}

/** A document to publish: `data` becomes the event's JSON, with `server_time` added when it is written. */
export interface PendingEvent {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * Every event viewers see goes through here: appended to the durable log in arrival order (one transaction per
 * burst), then handed to live subscribers with its id, so a client that reconnects with `Last-Event-ID` reads
 * the log from there and misses nothing, and a live client never sees an event that has no id yet.
 */
export class EventHub {
  private readonly listeners = new Listeners<LoggedEvent>();
  private queue: PendingEvent[] = [];
  private flushing: Promise<void> | null = null;
  private appended = 0;
  private closed = false;
  private log: EventLog | null = null;
  readonly keep: number;
  private readonly retentionMs: number;

  constructor(private readonly options: EventHubOptions) {
    this.keep = options.keep ?? 100_000;
    this.retentionMs = options.retentionMs ?? 24 * 3600 * 1000;
  }

  /**
   * Starts writing to the log: events published before (restart reconciliation runs while the database opens)
   * wait for it, in order.
   */
  attach(log: EventLog): void {
    this.log = log;
    if (this.queue.length > 0) this.flushing ??= this.flushSoon();
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
    while (this.flushing !== null) await this.flushing;
  }

  async close(): Promise<void> {
    await this.drained();
    this.closed = true;
  }

  private async flushSoon(): Promise<void> {
    // One microtask turn collects the events of one commit (a transition and its circuit change) into one write.
    await new Promise((resolve) => setImmediate(resolve));
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
        for (const event of stored) this.listeners.emit(event);
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
