/**
 * Durations as people type them in the policy editor: `90s`, `5m`, `2h`, `7d`, a plain number of seconds (`30`),
 * or parts together (`1h 30m`). Stored and sent as whole seconds; the UI writes them back in the largest unit that
 * keeps them exact (7200 -> `2h`, 90 -> `90s`).
 */
export type DurationParse =
  | { readonly ok: true; readonly seconds: number }
  | { readonly ok: false; readonly reason: 'empty' | 'unreadable' | 'fractional' };

const unitSeconds: Readonly<Record<string, number>> = {
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  d: 86_400,
  day: 86_400,
  days: 86_400,
};

// One part: a decimal number and an optional unit. Bounded lengths keep a pasted megabyte from doing real work.
const part = /(\d{1,12}(?:\.\d{1,6})?)\s*([a-z]{0,7})/y;

/** Reads a typed duration into whole seconds; the reason says why not (empty, not a duration, not whole seconds). */
export function parseDurationInput(text: string): DurationParse {
  const input = text.trim().toLowerCase();
  if (input === '') return { ok: false, reason: 'empty' };
  if (input.length > 64) return { ok: false, reason: 'unreadable' };
  let seconds = 0;
  let at = 0;
  let parts = 0;
  let unitless = false;
  while (at < input.length) {
    part.lastIndex = at;
    const match = part.exec(input);
    if (match === null) return { ok: false, reason: 'unreadable' };
    const [, number, unit] = match;
    const size = unit === '' ? 1 : unitSeconds[unit!];
    if (size === undefined) return { ok: false, reason: 'unreadable' };
    if (unit === '') unitless = true;
    seconds += Number(number) * size;
    parts++;
    at = part.lastIndex;
    while (input[at] === ' ' || input[at] === ',') at++;
  }
  // A bare number is seconds only on its own: "1h 30" is ambiguous, so it is refused.
  if (unitless && parts > 1) return { ok: false, reason: 'unreadable' };
  // Fractions of a unit are fine when they land on whole seconds ("1.5m" = 90); "1.5s" is not.
  const rounded = Math.round(seconds * 1e6) / 1e6;
  if (!Number.isInteger(rounded)) return { ok: false, reason: 'fractional' };
  return { ok: true, seconds: rounded };
}

/** Whole seconds as the editor shows them: the largest unit that is exact (`2h`, `5m`, `90s`, `7d`, `0s`). */
export function formatDurationInput(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '0s';
  const whole = Math.round(seconds);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (whole % size === 0) return `${whole / size}${unit}`;
  }
  return `${whole}s`;
}
