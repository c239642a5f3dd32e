import { epochToMs, type RawHint, type RawHints } from './hint.js';
import { parseGoDuration } from './duration.js';
import { parseIsoDateTime } from '../../time/iso-time.js';

/**
 * Timing from structured body fields (lower-cased text): Gemini `RetryInfo.retryDelay`, Code Assist
 * `quotaResetDelay` and `quotaResetTimeStamp`, and `retry_after`/`reset_at` style fields, a cooldown's `reset_seconds` and a loading model's `estimated_time`. Client-side backoff
 * fields (`retryInMs`) are not provider hints and are not read.
 */
const delayField =
  /\\{0,3}["']?(?:retrydelay|quotaresetdelay)\\{0,3}["']?\s{0,3}:\s{0,3}\\{0,3}["']([0-9hms.]{1,32})\\{0,3}["']/;
const secondsField =
  /\\{0,3}["'](?:retry_after|retry_after_seconds|retryafterseconds|reset_seconds|resets_in_seconds|estimated_time)\\{0,3}["']\s{0,3}:\s{0,3}(\d{1,9}(?:\.\d{1,15})?)(?![\d.])/;
/** The same delay in protobuf text form, as Python gRPC clients print `RetryInfo`: `retry_delay {\n  seconds: 19\n}`. */
const protoDelayField = /\bretry_delay\s{0,3}\{\s{0,12}seconds:\s{0,3}(\d{1,9})(?![\d.])/;
const msField = /\\{0,3}["'](?:retry_after_ms|retryafterms)\\{0,3}["']\s{0,3}:\s{0,3}(\d{1,12})(?![\d.])/;
const instantField =
  /\\{0,3}["']?(?:quotaresettimestamp|reset_at|resets_at|resetsat|resetat|reset_time)\\{0,3}["']?\s{0,3}:\s{0,3}(?:(\d{10,13})(?![\d.])|\\{0,3}["']([0-9t:.z+-]{16,35})\\{0,3}["'])/;

export function bodyFieldHints(text: string): RawHints {
  if (!text.includes(':')) return {};
  let retryAfter: RawHint | undefined;
  const delay = delayField.exec(text);
  const seconds = secondsField.exec(text);
  const ms = msField.exec(text);
  const proto = delay || seconds ? null : protoDelayField.exec(text);
  if (delay) {
    const s = parseGoDuration(delay[1]!);
    if (s !== null) retryAfter = { delaySeconds: s };
  } else if (seconds) {
    retryAfter = { delaySeconds: Number(seconds[1]) };
  } else if (proto) {
    retryAfter = { delaySeconds: Number(proto[1]) };
  } else if (ms) {
    retryAfter = { delaySeconds: Number(ms[1]) / 1000 };
  }
  let resetAt: RawHint | undefined;
  const instant = instantField.exec(text);
  if (instant) {
    const at = instant[1] !== undefined ? epochToMs(instant[1]) : parseIsoDateTime(instant[2]!.toUpperCase());
    if (at !== null) resetAt = { atMs: at };
  }
  return { ...(retryAfter ? { retryAfter } : {}), ...(resetAt ? { resetAt } : {}) };
}
