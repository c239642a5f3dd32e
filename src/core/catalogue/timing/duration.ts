/**
 * Duration expressions providers print, to seconds: Go-style (`6m0s`, `20ms`, `8h44m7s`, `58.82s`) and human
 * (`8 hours 30 minutes`, `4 days 20 hours 9 minutes`, `4hr 19min`, `20.387 second(s)`, `an hour`).
 */

const unitSeconds: Readonly<Record<string, number>> = {
  ms: 0.001,
  msec: 0.001,
  msecs: 0.001,
  millisecond: 0.001,
  milliseconds: 0.001,
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  'second(s)': 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  'minute(s)': 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  'hour(s)': 3600,
  d: 86400,
  day: 86400,
  days: 86400,
  'day(s)': 86400,
  w: 604800,
  week: 604800,
  weeks: 604800,
};

/** A Go `time.Duration` string (`1h2m3.5s`, `20ms`, `0s`); null when it is not one. */
export function parseGoDuration(text: string): number | null {
  const m =
    /^(?:(\d{1,6}(?:\.\d{1,9})?)h)?(?:(\d{1,6}(?:\.\d{1,9})?)m(?!s))?(?:(\d{1,9}(?:\.\d{1,9})?)s)?(?:(\d{1,9}(?:\.\d{1,9})?)ms)?$/.exec(
      text.trim(),
    );
  if (!m || (m[1] === undefined && m[2] === undefined && m[3] === undefined && m[4] === undefined))
    return null;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0) + Number(m[4] ?? 0) / 1000;
}

/**
 * The source of a human duration: one or more `<number> <unit>` parts joined by spaces, commas or `and`,
 * or a compact Go-style run. Exported so phrase patterns embed exactly what `parseHumanDuration` reads.
 */
const unitPart = String.raw`(?:milliseconds?|msecs?|ms|seconds?(?:\(s\))?|secs?|s|minutes?(?:\(s\))?|mins?|m|hours?(?:\(s\))?|hrs?|h|days?(?:\(s\))?|d|weeks?|w)`;
/** A number and a unit (`38.016s`, `4 hours`), or a spelled-out single unit (`an hour`, `a minute`). */
const onePart = String.raw`(?:\d{1,9}(?:\.\d{1,9})?\s?${unitPart}|(?:an?|one)\s(?:second|minute|hour|day|week))(?![a-z])`;
export const humanDurationSource = String.raw`${onePart}(?:(?:\s|,\s?|\s?and\s)?${onePart}){0,5}`;

const partPattern = new RegExp(
  String.raw`(?:(\d{1,9}(?:\.\d{1,9})?)\s?(${unitPart})|(?:an?|one)\s(second|minute|hour|day|week))(?![a-z])`,
  'g',
);

/** Seconds of a human or Go-style duration (lower-case input), or null. */
export function parseHumanDuration(text: string): number | null {
  const go = parseGoDuration(text);
  if (go !== null) return go;
  let total = 0;
  let parts = 0;
  for (const m of text.matchAll(partPattern)) {
    const amount = m[1] === undefined ? 1 : Number(m[1]);
    const unit = unitSeconds[(m[2] ?? m[3])!];
    if (unit === undefined || !Number.isFinite(amount)) return null;
    total += amount * unit;
    parts++;
  }
  return parts > 0 ? total : null;
}
