/**
 * The service's clock as the page knows it. Every event and `/v1/me` carry `server_time`; the page keeps the
 * offset between that and its own clock, so a countdown is anchored to the server: a browser clock minutes off
 * changes nothing. The offset is re-measured on every event (a heartbeat comes every 15 s), and the smallest
 * plausible network delay is ignored: countdowns are in whole seconds.
 */
let offsetMs = 0;
const listeners = new Set<() => void>();

export function observeServerTime(serverTime: unknown): void {
  if (typeof serverTime !== 'string') return;
  const at = Date.parse(serverTime);
  if (!Number.isFinite(at)) return;
  offsetMs = at - Date.now();
  for (const listener of listeners) listener();
}

/** The server's current time in epoch ms. */
export function serverNow(): number {
  return Date.now() + offsetMs;
}

export function onServerClockChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
