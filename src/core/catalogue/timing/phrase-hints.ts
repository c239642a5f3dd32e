import { epochToMs, type RawHints } from './hint.js';
import { humanDurationSource, parseHumanDuration } from './duration.js';
import { resolveZonedClock } from './zoned-clock.js';
import { parseIsoDateTime } from '../../time/iso-time.js';

/**
 * Timing stated in provider text (lower-cased): "try again in 1.2s", "Please retry after 20 seconds",
 * "reset after 8h44m7s", "Resets in 4hr 19min", "please wait 71 minutes". A client's own countdown
 * ("Retrying in 4 seconds… (attempt 4/10)", "retrying in 25s - attempt #21", "Waiting for 10 seconds") is not
 * a provider hint: those verbs are not read, and a delay followed by an attempt counter is skipped.
 */
const relativePhrase = new RegExp(
  // Up to 200 blanks after "in"/"after": terminals wrap long messages with runs of spaces and a line break.
  String.raw`\b(?:try again|try a\s{1,3}gain|retry|retry-after:|resets?|available again|come back|wait)\s{1,3}(?:in:?\s{1,200}|after:?\s{1,200})?(?:about\s|approximately\s|~\s?)?(${humanDurationSource})(?![^\n]{0,24}\battempts?\b)`,
);

/** The same in Chinese: "请 117 秒后重试" (retry after 117 seconds), "5 分钟后再试" (try again in 5 minutes). */
const chineseRelativePhrase = /(\d{1,6})\s{0,2}(秒|秒钟|分钟|小时)后(?:再)?(?:重试|再试|尝试)/;
/**
 * "请等待 70 秒，然后重试" (please wait 70 seconds, then retry), also with the unit left in English by a partial
 * translation ("请等待 70 seconds"): the wait is the provider's, like "please wait 2 minutes" in English. Only the
 * request (请 right before 等待) is read: a client's own waiting ("已等待 600 秒", "已累计等待", "排队等待",
 * "最长等待", "第 3/5 次重试，等待 8 秒") is not, nor a wait followed by an attempt counter, nor a word that only
 * begins with an English unit ("等待 5 secondary replicas").
 */
const chineseWaitPhrase =
  /(?<![已计队长])请等待\s{0,2}(\d{1,6})\s{0,2}(秒钟|秒|分钟|小时|seconds?|secs?|minutes?|mins?|hours?)(?![a-z])(?![^\n]{0,24}(?:\battempts?\b|\(\s?\d{1,3}\s?\/\s?\d{1,3}\s?\)|第\s?\d{1,3}))/;
const chineseUnitSeconds: Readonly<Record<string, number>> = {
  秒: 1,
  秒钟: 1,
  分钟: 60,
  小时: 3600,
  second: 1,
  seconds: 1,
  sec: 1,
  secs: 1,
  minute: 60,
  minutes: 60,
  min: 60,
  mins: 60,
  hour: 3600,
  hours: 3600,
};

/**
 * A response header a client logged as `name=value` beside the error (`... retry-after-ms=997000`,
 * `retry-after=30`): the provider's stated delay, in milliseconds or seconds. A countdown of the client's own is
 * not written so; an HTTP-date after `retry-after=` is not read here.
 */
const loggedRetryAfter = /\bretry-after(-ms)?=(\d{1,12})(?![\d.:])/;

/**
 * "Too Many Requests: retry after 25": a throttle's wait given as a bare number ending the sentence, in seconds as an
 * HTTP `Retry-After` is (round 36). Only after "too many requests", and only where no word follows the number (not
 * "retry after 3 attempts").
 */
const bareRetryAfter =
  /\btoo many requests\b[^\n]{0,40}?\bretry after (\d{1,5})(?=\s{0,2}(?:$|[.,;)\]"'\n]))/;

/**
 * The last match of `pattern` (a global expression) in `text`, or null. An agent that retried prints each wait it was
 * told, oldest first ("Try again in 4 seconds ... Try again in 11 seconds", "resets 5:40pm ... resets 10:30pm"): the
 * last one is what the provider says now.
 */
function lastMatch(pattern: RegExp, text: string): RegExpExecArray | null {
  pattern.lastIndex = 0;
  let last: RegExpExecArray | null = null;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    last = m;
    if (m[0] === '') pattern.lastIndex++;
  }
  return last;
}

const relativePhrases = new RegExp(relativePhrase.source, 'g');

export function relativePhraseHints(text: string): RawHints {
  const logged = loggedRetryAfter.exec(text);
  if (logged) {
    const value = Number(logged[2]);
    return { retryAfter: { delaySeconds: logged[1] ? value / 1000 : value } };
  }
  const m = lastMatch(relativePhrases, text);
  if (m) {
    const seconds = parseHumanDuration(m[1]!);
    return seconds === null ? {} : { retryAfter: { delaySeconds: seconds } };
  }
  const bare = bareRetryAfter.exec(text);
  if (bare) return { retryAfter: { delaySeconds: Number(bare[1]) } };
  const zh = chineseRelativePhrase.exec(text) ?? chineseWaitPhrase.exec(text);
  return zh ? { retryAfter: { delaySeconds: Number(zh[1]) * chineseUnitSeconds[zh[2]!]! } } : {};
}

/** Claude Code's subscription sentinel `usage limit reached|1755615600` (epoch seconds or ms). */
const usageLimitEpoch = /limit reached\s{0,2}\|\s{0,2}(\d{10,13})(?!\d)/;

export function usageLimitEpochHints(text: string): RawHints {
  const m = usageLimitEpoch.exec(text);
  return m ? { resetAt: { atMs: epochToMs(m[1]!) } } : {};
}

const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * A wall-clock reset with an IANA zone: "resets 11:10am (Europe/Helsinki)", "will reset at 5pm
 * (Europe/Warsaw)", "resets Oct 9, 9am (Europe/Paris)", "resets at 15:00 UTC", "resets at 10:57 PM GMT-3" (an offset
 * in hours after UTC or GMT, as people write it: GMT-3 is three hours behind). Without a zone there is no hint.
 */
const zonedClock =
  /\b(?:resets?|available again|try again)\s{1,3}(?:at\s{1,3}|on\s{1,3})?(?:(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.?\s(\d{1,2})(?:st|nd|rd|th)?,?\s{1,2}(?:at\s)?)?(\d{1,2})(?::(\d{2}))?\s?(am|pm)?\s{0,2}(?:\(([a-z]{1,14}(?:\/[a-z0-9_+-]{1,30}){1,2}|utc|gmt)\)|(utc|gmt)(?:([+-])(\d{1,2})(?![\d:]))?\b)/;

const zonedClocks = new RegExp(zonedClock.source, 'g');

/** A reset stated as an ISO date and a UTC time: "You will regain access on 2025-07-01 at 00:00 UTC". */
const isoDateClock =
  /\b(?:regain access|resets?|available again|try again|retry after)\s{1,3}(?:(?:on|at)\s{1,3})?(\d{4}-\d{2}-\d{2})(?:\s{1,8}at)?[\sTt]{1,8}(\d{2}):(\d{2})(?::(\d{2}))?\s{0,2}(?:\+0000\s{1,2})?(?:utc|gmt|z)\b/;

export function zonedClockHints(text: string, referenceMs: number): RawHints {
  const iso = isoDateClock.exec(text);
  if (iso) {
    const at = parseIsoDateTime(`${iso[1]}T${iso[2]}:${iso[3]}:${iso[4] ?? '00'}Z`);
    if (at !== null) return { resetAt: { atMs: at } };
  }
  const m = lastMatch(zonedClocks, text);
  if (!m) return {};
  let hour = Number(m[3]);
  const minute = m[4] === undefined ? 0 : Number(m[4]);
  const meridiem = m[5];
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return {};
    hour = (hour % 12) + (meridiem === 'pm' ? 12 : 0);
  }
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  if (offsetHours > 14) return {};
  // IANA's Etc/GMT zones invert the sign (Etc/GMT+3 is three hours behind UTC, what people write as GMT-3).
  const zone =
    m[8] === undefined || offsetHours === 0
      ? (m[6] ?? m[7])!
      : `Etc/GMT${m[8] === '-' ? '+' : '-'}${offsetHours}`;
  const month = m[1] === undefined ? undefined : months.indexOf(m[1]) + 1;
  const day = m[2] === undefined ? undefined : Number(m[2]);
  const at = resolveZonedClock(
    {
      hour,
      minute,
      zone: zone === 'gmt' ? 'UTC' : zone,
      ...(month !== undefined ? { month, day: day! } : {}),
    },
    referenceMs,
  );
  return at === null ? {} : { resetAt: { atMs: at } };
}
