import pg from 'pg';
import type { PostgresLocation } from './postgres-url.js';

/** How long a dropped listener waits before connecting again (each subscriber's fallback poll covers the gap). */
const reconnectMs = 1_000;

/**
 * A notification for this schema: its payload without the schema word that channels shared by schemas carry; null
 * when the connection was (re)opened, so notifications may have been missed meanwhile.
 */
type Handler = (payload: string | null) => void;

/**
 * The one LISTEN connection of a node: timers (`recourse_timers`) and events (`recourse_events`) share it, so a
 * node holds one listener whatever it follows. Channels are database-wide; every payload starts with the schema
 * that wrote it ("schema rest...") and only this schema's reach the handlers. The connection opens with the first
 * subscription, closes with the last, and is opened again a second after it drops (the server restarting);
 * every handler hears each (re)connection (a null payload), when notifications may have been missed.
 */
export class PostgresNotifications {
  private readonly handlers = new Map<string, Set<Handler>>();
  private client: pg.Client | null = null;
  private retry: NodeJS.Timeout | null = null;

  constructor(private readonly location: PostgresLocation) {}

  /** Calls `handler` with the rest of each payload of this schema on `channel`; returns how to stop. */
  subscribe(channel: string, handler: Handler): () => Promise<void> {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`channel ${JSON.stringify(channel)} is not a plain name`);
    let set = this.handlers.get(channel);
    if (set === undefined) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(handler);
    if (this.client === null && this.retry === null) this.connect();
    else if (set.size === 1) void this.client?.query(`LISTEN ${channel}`).catch(() => undefined);
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      set.delete(handler);
      if (set.size === 0) this.handlers.delete(channel);
      if (this.handlers.size > 0) return;
      if (this.retry !== null) clearTimeout(this.retry);
      this.retry = null;
      const client = this.client;
      this.client = null;
      await client?.end().catch(() => undefined);
    };
  }

  private connect(): void {
    this.retry = null;
    if (this.handlers.size === 0) return;
    const client = new pg.Client({ connectionString: this.location.connectionString });
    this.client = client;
    let dropped = false;
    const drop = (): void => {
      if (dropped) return;
      dropped = true;
      void client.end().catch(() => undefined);
      if (this.client !== client) return;
      this.client = null;
      if (this.handlers.size > 0) this.retry = setTimeout(() => this.connect(), reconnectMs);
    };
    // A dropped connection must not end the process: listen again a moment later.
    client.on('error', drop);
    client.on('end', drop);
    client.on('notification', (message) => {
      const payload = message.payload ?? '';
      const space = payload.indexOf(' ');
      if (space < 0 || payload.slice(0, space) !== this.location.schema) return;
      for (const handler of this.handlers.get(message.channel) ?? []) handler(payload.slice(space + 1));
    });
    client
      .connect()
      .then(async () => {
        for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
        // Anything written while no connection listened was not announced: let every subscriber look once.
        for (const set of this.handlers.values()) for (const handler of set) handler(null);
      })
      .catch(drop);
  }
}
