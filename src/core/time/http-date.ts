import { civilFromDays, daysInMonth, epochMsOfCivil } from './iso-time.js';

/**
 * HTTP-date (RFC 9110 §5.6.7) in its three forms, parsed to epoch ms without reading the clock:
 * IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT` (what senders must use), and the obsolete forms recipients must
 * still accept: RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994`. Names of days
 * and months are matched without regard to case; the day name is not checked against the date (a sender's wrong
 * weekday does not make its instant unknown).
 */
const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const dayName = String.raw`(?:mon|tue|wed|thu|fri|sat|sun)`;
const longDayName = String.raw`(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)`;
const month = String.raw`(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)`;
const time = String.raw`(\d{2}):(\d{2}):(\d{2})`;

const imfFixdate = new RegExp(String.raw`^${dayName}, (\d{2}) ${month} (\d{4}) ${time} gmt$`, 'i');
const rfc850 = new RegExp(String.raw`^${longDayName}, (\d{2})-${month}-(\d{2}) ${time} gmt$`, 'i');
const asctime = new RegExp(String.raw`^${dayName} ${month} ([ \d]\d) ${time} (\d{4})$`, 'i');

/**
 * The instant of an HTTP-date, or null. A two-digit RFC 850 year that would lie more than 50 years after
 * `referenceMs` is the most recent past year with those digits (RFC 9110 §5.6.7).
 */
export function parseHttpDate(text: string, referenceMs: number): number | null {
  const value = text.trim();
  let m = imfFixdate.exec(value);
  if (m) return instant(Number(m[3]), m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  m = asctime.exec(value);
  if (m) return instant(Number(m[6]), m[1]!, Number(m[2]!.trim()), m[3]!, m[4]!, m[5]!);
  m = rfc850.exec(value);
  if (m) return instant(fullYear(Number(m[3]), referenceMs), m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  return null;
}

function fullYear(twoDigits: number, referenceMs: number): number {
  const now = Number.isFinite(referenceMs) ? civilFromDays(Math.floor(referenceMs / 86_400_000)).year : 1970;
  let year = Math.floor(now / 100) * 100 + twoDigits;
  if (year > now + 50) year -= 100;
  return year;
}

function instant(
  year: number,
  monthName: string,
  day: number,
  h: string,
  mi: string,
  s: string,
): number | null {
  const monthNumber = months.indexOf(monthName.toLowerCase()) + 1;
  const [hour, minute, second] = [Number(h), Number(mi), Number(s)];
  if (day < 1 || day > daysInMonth(year, monthNumber)) return null;
  if (hour > 23 || minute > 59 || second > 60) return null;
  return epochMsOfCivil(year, monthNumber, day, hour, minute, Math.min(second, 59));
}
