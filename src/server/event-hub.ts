import type { EventLog, LoggedEvent } from '../core/index.js';
import { Listeners } from '../support/listeners.js';

export interface EventHubOptions {
  readonly now: () => number;
  /** Events kept for resuming (the newest this many; 100,000 by default). */
  readonly keep?: number;
  /** Events older than this are pruned too (24 h by default). */
  readonly retentionMs?: number;
  /**
   * Where an append that failed is reported (it is tried again `retryMs` later, until the hub closes), and a read of
   * a followed log that failed (the next wake-up reads from the same id again).
   */
  readonly onError?: (error: unknown) => void;
  /** How long after a failed append it is tried again (1 s by default). */
  readonly retryMs?: number;
}

/** A document to publish: `data` becomes the event's JSON, with `server_time` added when it is written. */
export interface PendingEvent {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Events read per query when following a log other nodes append to. */
const followPage = 1000;

type Row = Parameters<EventLog['append']>[0][number];

/**
 * The events of one append, if it committed: the first of them after `afterId` and those following it, each the same
 * (type, time and document, which carries `server_time` to the millisecond and the whole state it tells). One append
 * is one transaction whose ids are drawn in order, so the rows of a committed append are consecutive in the log.
 */
async function findAppended(
  log: EventLog,
  rows: readonly Row[],
  afterId: number,
): Promise<readonly LoggedEvent[] | null> {
  const same = (event: LoggedEvent | undefined, row: Row | undefined) =>
    event !== undefined &&
    row !== undefined &&
    event.type === row.type &&
    event.atMs === row.atMs &&
    event.data === row.data;
  let cursor = afterId;
  for (;;) {
    const page = await log.after(cursor, followPage);
    const start = page.findIndex((event) => same(event, rows[0]));
    if (start >= 0) {
      const found = [...page.slice(start, start + rows.length)];
      if (found.length < rows.length)
        found.push(...(await log.after(found.at(-1)!.id, rows.length - found.length)));
      return found.length === rows.length && found.every((event, i) => same(event, rows[i])) ? found : null;
    }
    if (page.length < followPage) return null;
    cursor = page.at(-1)!.id;
  }
}

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
  /** Set when closing starts: an append that fails is then given up rather than tried until the database is back. */
  private closing = false;
  /** The newest id of this hub's own appends (null before the first). */
  private storedUpTo: number | null = null;
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
    this.closing = true;
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

  /**
   * Appends, trying again `retryMs` after each failure (a database restarting, a connection dropped) until the hub
   * closes: the engine committed what these events tell, and one dropped here would be missing from every stream and
   * every resume, with no `reload` to say so. An append that failed may still have committed (the connection dropped
   * before its answer): before trying again the log is searched for it after the newest id known before it, so it
   * is never stored twice. Null when given up (closing).
   */
  private async store(log: EventLog, rows: readonly Row[]): Promise<readonly LoggedEvent[] | null> {
    const known = Math.max(this.storedUpTo ?? -1, this.cursor ?? -1);
    let from = known >= 0 ? known : null;
    let sent = false;
    for (;;) {
      try {
        from ??= await log.lastId();
        const found = sent ? await findAppended(log, rows, from) : null;
        sent = true;
        const stored = found ?? (await log.append(rows));
        this.storedUpTo = Math.max(this.storedUpTo ?? 0, ...stored.map((e) => e.id));
        return stored;
      } catch (error) {
        this.options.onError?.(error);
        if (this.closing) return null;
        await new Promise((resolve) => setTimeout(resolve, this.options.retryMs ?? 1000));
      }
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
        const stored = await this.store(log, rows);
        if (stored === null) continue;
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
