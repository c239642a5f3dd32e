import { useCallback, useEffect, useRef, useState } from 'react';
import { live, type LiveEvent } from './events.js';
import { onServerClockChange, serverNow } from './server-clock.js';

/** The server's time, re-rendered every second (on the second boundary, so every countdown ticks together). */
export function useServerNow(): number {
  const [now, setNow] = useState(serverNow);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout>;
    const tick = () => {
      const at = serverNow();
      setNow(at);
      timer = setTimeout(tick, 1000 - (at % 1000) + 5);
    };
    tick();
    const off = onServerClockChange(() => setNow(serverNow()));
    return () => {
      clearTimeout(timer);
      off();
    };
  }, []);
  return now;
}

/** Calls `handler` for every live event (the latest handler: no resubscribe on each render). */
export function useLiveEvents(handler: (event: LiveEvent) => void): void {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => live.subscribe((event) => latest.current(event)), []);
}

export interface Resource<T> {
  readonly data: T | null;
  readonly error: Error | null;
  readonly loading: boolean;
  /** Fetches again (after an action, a `reload` event or a conflict). */
  readonly reload: () => void;
  /** Replaces the data in place (an event brought a newer copy). */
  readonly set: (update: (current: T | null) => T | null) => void;
}

/**
 * Data loaded from the service, reloaded when `key` changes and when the event stream says the page fell behind.
 * A response that arrives after a newer request started is dropped, and data loaded for another key is never
 * shown under this one (a page reused for another id starts empty).
 */
export function useResource<T>(key: string, load: () => Promise<T>): Resource<T> {
  const [held, setHeld] = useState<{ readonly key: string; readonly data: T | null }>({ key, data: null });
  const data = held.key === key ? held.data : null;
  const setData = useCallback(
    (update: (current: T | null) => T | null) =>
      setHeld((h) => ({ key, data: update(h.key === key ? h.data : null) })),
    [key],
  );
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    let current = true;
    setLoading(true);
    loader.current().then(
      (value) => {
        if (!current) return;
        setHeld({ key, data: value });
        setError(null);
        setLoading(false);
      },
      (reason: unknown) => {
        if (!current) return;
        setError(reason instanceof Error ? reason : new Error(String(reason)));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [key, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  useEffect(() => live.onReload(reload), [reload]);
  return { data, error, loading, reload, set: setData };
}
