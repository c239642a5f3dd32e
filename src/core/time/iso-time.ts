/**
 * Strict ISO-8601 date-times with an explicit zone (`2026-06-01T12:00:00Z`, `...+02:00`), parsed to epoch ms
 * without reading the clock.
 */
const isoDateTime =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}:?\d{2})$/;

export function parseIsoDateTime(text: string): number | null {
  const m = isoDateTime.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s = '0', frac = '', zone = 'Z'] = m;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(Number(y), month)) return null;
  if (hour > 23 || minute > 59 || second > 60) return null;
  const ms = frac === '' ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
    if (Math.abs(offsetMinutes) > 18 * 60) return null;
  }
  const at =
    epochMsOfCivil(Number(y), month, day, hour, minute, Math.min(second, 59), ms) - offsetMinutes * 60_000;
  // A zone can carry a four-digit year past either end (`9999-12-31T23:00:00-02:00`): an instant that no
  // four-digit year names would be printed as no ISO-8601 date-time.
  return at < earliestIsoMs || at > latestIsoMs ? null : at;
}

/** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: the instants a four-digit year can name. */
const earliestIsoMs = -62_167_219_200_000;
export const latestIsoMs = 253_402_300_799_999;

/**
 * Epoch ms of a proleptic Gregorian UTC date and time, for every year. `Date.UTC` would read the years 0 to 99 as
 * 1900 to 1999 (`0050-01-01` as 1950), so the date is counted in days instead.
 */
export function epochMsOfCivil(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms = 0,
): number {
  return daysFromCivil(year, month, day) * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000 + ms;
}

/** A proleptic Gregorian date to days since 1970-01-01 (Howard Hinnant's algorithm, the inverse of `civilFromDays`). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Epoch ms as ISO-8601 UTC: whole seconds as `...:00Z`, otherwise with milliseconds. */
export function formatIsoUtc(epochMs: number): string {
  const ms = Math.floor(epochMs);
  const days = Math.floor(ms / 86_400_000);
  const rest = ms - days * 86_400_000;
  const { year, month, day } = civilFromDays(days);
  const hh = Math.floor(rest / 3_600_000);
  const mm = Math.floor((rest % 3_600_000) / 60_000);
  const ss = Math.floor((rest % 60_000) / 1000);
  const milli = rest % 1000;
  const date = `${pad(year, 4)}-${two(month)}-${two(day)}`;
  const time = `${two(hh)}:${two(mm)}:${two(ss)}`;
  return milli === 0 ? `${date}T${time}Z` : `${date}T${time}.${pad(milli, 3)}Z`;
}

/** `00` to `99`, built once: every classification prints one or more timestamps. */
const twoDigitNumbers = Array.from({ length: 100 }, (_, n) => pad(n, 2));

/** `pad(n, 2)`, read from the table for 0 to 99 (anything else, NaN included, padded as before). */
function two(n: number): string {
  return twoDigitNumbers[n] ?? pad(n, 2);
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm). */
export function civilFromDays(daysSinceEpoch: number): { year: number; month: number; day: number } {
  const z = daysSinceEpoch + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}
