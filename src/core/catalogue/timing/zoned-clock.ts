import { civilFromDays, daysInMonth } from '../../time/iso-time.js';

/**
 * Wall-clock reset times with an IANA zone ("resets 11:10am (Europe/Helsinki)") resolved to UTC, without
 * reading the clock: the reference instant is passed in. A time in a DST gap or an ambiguous autumn hour
 * resolves to nothing, as does an unknown zone.
 */

const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterFor(zone: string): Intl.DateTimeFormat | null {
  const cached = formatters.get(zone);
  if (cached !== undefined) return cached;
  let formatter: Intl.DateTimeFormat | null;
  try {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    formatter = null;
  }
  if (formatters.size < 512) formatters.set(zone, formatter);
  return formatter;
}

interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

function wallTimeAt(formatter: Intl.DateTimeFormat, epochMs: number): WallTime & { second: number } {
  // `format` costs a quarter of `formatToParts`; en-US with h23 prints "12/5/2026, 17:25:20": six numbers in the
  // order month, day, year, hour, minute, second. Anything else (another ICU's layout) is read from the parts.
  const text = formatter.format(epochMs);
  const numbers = [0, 0, 0, 0, 0, 0];
  let count = 0;
  let inNumber = false;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit >= 0 && digit <= 9) {
      if (!inNumber) {
        if (count === 6) return wallTimeFromParts(formatter, epochMs);
        count++;
        inNumber = true;
      }
      numbers[count - 1] = numbers[count - 1]! * 10 + digit;
    } else inNumber = false;
  }
  if (count !== 6) return wallTimeFromParts(formatter, epochMs);
  const [month, day, year, hour, minute, second] = numbers as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { year, month, day, hour, minute, second };
}

function wallTimeFromParts(formatter: Intl.DateTimeFormat, epochMs: number): WallTime & { second: number } {
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(epochMs)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 0,
    day: parts.day ?? 0,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** Offset of `zone` from UTC at `epochMs`, in ms (local minus UTC). */
function offsetAt(formatter: Intl.DateTimeFormat, epochMs: number): number {
  const seconds = Math.floor(epochMs / 1000) * 1000;
  const w = wallTimeAt(formatter, seconds);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - seconds;
}

/** The single UTC instant showing `wall` in the zone, or null in a gap or an ambiguous hour. */
function instantOf(formatter: Intl.DateTimeFormat, wall: WallTime): number | null {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, 0);
  const offsets = new Set([offsetAt(formatter, asUtc - 86_400_000), offsetAt(formatter, asUtc + 86_400_000)]);
  const valid: number[] = [];
  for (const offset of offsets) {
    const candidate = asUtc - offset;
    const seen = wallTimeAt(formatter, candidate);
    if (
      seen.year === wall.year &&
      seen.month === wall.month &&
      seen.day === wall.day &&
      seen.hour === wall.hour &&
      seen.minute === wall.minute
    ) {
      valid.push(candidate);
    }
  }
  return valid.length === 1 ? valid[0]! : null;
}

export interface ZonedClockTime {
  readonly hour: number;
  readonly minute: number;
  /** Month (1-12) and day when the text names a date ("resets Oct 9, 9am"). */
  readonly month?: number;
  readonly day?: number;
  readonly zone: string;
}

/**
 * The first instant after `referenceMs` at which the zone's clock shows the given time (and date). Null for an
 * unknown zone, a nonexistent or ambiguous local time, or an invalid date.
 */
export function resolveZonedClock(time: ZonedClockTime, referenceMs: number): number | null {
  const formatter = formatterFor(time.zone);
  if (formatter === null || time.hour > 23 || time.minute > 59) return null;
  const now = wallTimeAt(formatter, referenceMs);
  const candidates: WallTime[] = [];
  if (time.month !== undefined && time.day !== undefined) {
    for (const year of [now.year, now.year + 1]) {
      if (time.month < 1 || time.month > 12 || time.day < 1 || time.day > daysInMonth(year, time.month))
        return null;
      candidates.push({ year, month: time.month, day: time.day, hour: time.hour, minute: time.minute });
    }
  } else {
    // Today in the zone, else tomorrow: step the civil date, not the instant, so DST days stay whole.
    const today = daysFromCivil(now.year, now.month, now.day);
    for (const shift of [0, 1]) {
      const { year, month, day } = civilFromDays(today + shift);
      candidates.push({ year, month, day, hour: time.hour, minute: time.minute });
    }
  }
  for (const wall of candidates) {
    const at = instantOf(formatter, wall);
    if (at === null) return null;
    if (at > referenceMs) return at;
  }
  return null;
}

function daysFromCivil(year: number, month: number, day: number): number {
  return Math.floor(Date.UTC(year, month - 1, day) / 86_400_000);
}
