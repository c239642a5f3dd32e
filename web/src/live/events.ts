import { api, ApiError } from '../api.js';
import { observeServerTime } from './server-clock.js';

/** An event as `GET /v1/events` sends it: its type and its parsed data (which always holds `server_time`). */
export interface LiveEvent {
  readonly id: string;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

type Listener = (event: LiveEvent) => void;

const eventTypes = [
  'route.transition',
  'route.dispatch',
  'route.purged',
  'circuit.changed',
  'session.message.created',
  'session.message.updated',
  'session.message.deleted',
  'plan.error.recorded',
  'plan.changed',
  'recourse.reconciled',
  'heartbeat',
  'reload',
] as const;

/**
 * One EventSource for the whole page. The browser resumes it with `Last-Event-ID` after a drop; when the service
 * answers `reload` (the page fell too far behind), every view reloads its state and the stream is reopened from
 * now. Views subscribe by type; `onReload` listeners refetch.
 */
class LiveStream {
  private source: EventSource | null = null;
  private readonly listeners = new Set<Listener>();
  private readonly reloads = new Set<() => void>();
  private readonly connection = new Set<(connected: boolean) => void>();
  private retry: ReturnType<typeof setTimeout> | null = null;
  connected = false;

  start(): void {
    if (this.source !== null) return;
    const source = new EventSource('/v1/events');
    this.source = source;
    source.onopen = () => this.setConnected(true);
    source.onerror = () => {
      this.setConnected(false);
      // The browser retries a dropped stream by itself, but not one the service refused (a 401 once the cookie
      // expired, a 503): then ask who we are, which signs the page out on a 401, and reopen when it answers.
      if (source.readyState === EventSource.CLOSED && this.source === source) {
        this.source = null;
        this.scheduleProbe(1000);
      }
    };
    for (const type of eventTypes) {
      source.addEventListener(type, (message: MessageEvent<string>) => this.deliver(type, message));
    }
  }

  stop(): void {
    if (this.retry !== null) clearTimeout(this.retry);
    this.retry = null;
    this.source?.close();
    this.source = null;
    this.setConnected(false);
  }

  private scheduleProbe(delayMs: number): void {
    if (this.retry !== null) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      api('GET', '/v1/me').then(
        () => {
          this.start();
          for (const listener of this.reloads) listener(); // events may have been missed while it was closed
        },
        (error: unknown) => {
          // 401: `api` has already signed the page out (which stops the stream). Anything else: try again.
          if (!(error instanceof ApiError && error.status === 401)) this.scheduleProbe(5000);
        },
      );
    }, delayMs);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onReload(listener: () => void): () => void {
    this.reloads.add(listener);
    return () => this.reloads.delete(listener);
  }

  onConnection(listener: (connected: boolean) => void): () => void {
    this.connection.add(listener);
    return () => this.connection.delete(listener);
  }

  private deliver(type: string, message: MessageEvent<string>): void {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(message.data) as Record<string, unknown>;
    } catch {
      return;
    }
    observeServerTime(data.server_time);
    if (type === 'reload') {
      // The stream ends after `reload`; reopen it from now and let every view refetch its state.
      this.stop();
      this.start();
      for (const listener of this.reloads) listener();
      return;
    }
    const event: LiveEvent = { id: message.lastEventId, type, data };
    for (const listener of this.listeners) listener(event);
  }

  private setConnected(connected: boolean): void {
    if (this.connected === connected) return;
    this.connected = connected;
    for (const listener of this.connection) listener(connected);
  }
}

export const live = new LiveStream();
