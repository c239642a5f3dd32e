/** Seconds in the largest whole units: 90 -> "1 min 30 s", 7200 -> "2 h", 0 -> "0 s". */
export function durationWords(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '0 s';
  const parts: string[] = [];
  let rest = Math.round(seconds);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  return parts.slice(0, 2).join(' ');
}

/**
 * What a countdown says: "in 4 min 5 s" while the deadline is ahead on the server's clock, "Due now" from the
 * moment it is reached (never "in 0 s" or a negative time: the service, not the page, fires it).
 */
export function countdownWords(deadlineMs: number, serverNowMs: number): string {
  const seconds = Math.ceil((deadlineMs - serverNowMs) / 1000);
  if (seconds <= 0) return 'Due now';
  return `in ${durationWords(seconds)}`;
}

const absoluteFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});

/** An absolute time, with its time zone, from an ISO-8601 string or epoch ms ("" when there is none). */
export function absoluteTime(at: string | number | null | undefined): string {
  if (at === null || at === undefined) return '';
  const ms = typeof at === 'number' ? at : Date.parse(at);
  if (!Number.isFinite(ms)) return '';
  return absoluteFormat.format(new Date(ms));
}
