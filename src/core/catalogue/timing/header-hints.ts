import { epochToMs, type RawHint, type RawHints } from './hint.js';
import { parseGoDuration } from './duration.js';
import type { HeaderList } from '../../evidence/evidence.js';
import { parseHttpDate } from '../../time/http-date.js';
import { parseIsoDateTime } from '../../time/iso-time.js';

const plainSeconds = /^\d{1,10}(?:\.\d{1,9})?$/;

/**
 * Timing from response headers: `retry-after` (seconds or an HTTP-date in any of its three forms), `retry-after-ms`, OpenAI/Groq
 * `x-ratelimit-reset-*` durations, Anthropic `anthropic-ratelimit-*-reset` instants, the unified
 * subscription reset and the IETF `RateLimit` fields (`RateLimit: "api";r=0;t=55`, `RateLimit-Reset: 55`). Among per-bucket resets the exhausted bucket (remaining 0) decides; else the latest.
 */
export function headerHints(headers: HeaderList, referenceMs: number): RawHints {
  if (headers.length === 0) return {};
  const get = (name: string): string | undefined => headers.find(([n]) => n === name)?.[1].trim();
  let retryAfter: RawHint | undefined;
  const retryAfterMs = get('retry-after-ms');
  const retryAfterHeader = get('retry-after');
  if (retryAfterMs !== undefined && plainSeconds.test(retryAfterMs)) {
    retryAfter = { delaySeconds: Number(retryAfterMs) / 1000 };
  } else if (retryAfterHeader !== undefined) {
    if (plainSeconds.test(retryAfterHeader)) retryAfter = { delaySeconds: Number(retryAfterHeader) };
    else {
      // Any of the three HTTP-date forms (RFC 9110 §5.6.7), not only the preferred one.
      const at = parseHttpDate(retryAfterHeader, referenceMs);
      if (at !== null) retryAfter = { atMs: at };
    }
  }
  return { ...(retryAfter ? { retryAfter } : {}), ...resetHint(headers, get, referenceMs) };
}

function resetHint(
  headers: HeaderList,
  get: (name: string) => string | undefined,
  referenceMs: number,
): RawHints {
  const unified = get('anthropic-ratelimit-unified-reset');
  if (unified !== undefined && /^\d{9,13}$/.test(unified)) return { resetAt: { atMs: epochToMs(unified) } };
  const buckets: Array<{ hint: RawHint; exhausted: boolean; atMs: number }> = [];
  const bucket = (hint: RawHint, remaining: string | undefined) => ({
    hint,
    exhausted: remaining !== undefined && Number(remaining) === 0,
    atMs: 'delaySeconds' in hint ? referenceMs + hint.delaySeconds * 1000 : hint.atMs,
  });
  for (const [name, value] of headers) {
    let m = /^anthropic-ratelimit-([a-z-]+)-reset$/.exec(name);
    if (m) {
      const at = parseIsoDateTime(value.trim());
      if (at !== null) buckets.push(bucket({ atMs: at }, get(`anthropic-ratelimit-${m[1]}-remaining`)));
      continue;
    }
    m = /^x-ratelimit-reset-([a-z-]+)$/.exec(name);
    if (m) {
      const seconds = plainSeconds.test(value.trim()) ? Number(value) : parseGoDuration(value);
      if (seconds !== null)
        buckets.push(bucket({ delaySeconds: seconds }, get(`x-ratelimit-remaining-${m[1]}`)));
      continue;
    }
    // The IETF RateLimit fields: the draft's older `RateLimit-Reset` (seconds) with `RateLimit-Remaining`, and its
    // structured `RateLimit: "policy";r=0;t=55` (each item's remaining quota `r` and seconds until it resets `t`).
    if (name === 'ratelimit-reset' && plainSeconds.test(value.trim())) {
      buckets.push(bucket({ delaySeconds: Number(value.trim()) }, get('ratelimit-remaining')));
      continue;
    }
    if (name === 'ratelimit') {
      for (const item of structuredRateLimitItems(value))
        buckets.push(bucket({ delaySeconds: item.resetSeconds }, item.remaining));
      continue;
    }
    if (name === 'x-ratelimit-reset' && /^\d{1,13}(?:\.\d+)?$/.test(value.trim())) {
      const v = value.trim();
      const hint: RawHint =
        Number(v) > 1e9 ? { atMs: epochToMs(v.split('.')[0]!) } : { delaySeconds: Number(v) };
      buckets.push(bucket(hint, get('x-ratelimit-remaining')));
    }
  }
  if (buckets.length === 0) return {};
  const exhausted = buckets.filter((b) => b.exhausted);
  const pool = exhausted.length > 0 ? exhausted : buckets;
  pool.sort((a, b) => b.atMs - a.atMs);
  return { resetAt: pool[0]!.hint };
}

/** A `RateLimit` item's parameters: `;r=` (remaining quota) and `;t=` (seconds until reset), both integers. */
const rateLimitParameter = /;\s{0,4}([rt])\s{0,4}=\s{0,4}(\d{1,10})(?![\d.])/g;

/**
 * The items of a structured `RateLimit` field (`"api";r=0;t=55, "burst";r=3;t=1`) that say when they reset; an item
 * without `t` tells no time and is skipped. At most 16 items are read: a field is a handful.
 */
function structuredRateLimitItems(
  value: string,
): Array<{ resetSeconds: number; remaining: string | undefined }> {
  const items: Array<{ resetSeconds: number; remaining: string | undefined }> = [];
  for (const item of value.split(',').slice(0, 16)) {
    let reset: string | undefined;
    let remaining: string | undefined;
    for (const [, key, number] of item.matchAll(rateLimitParameter)) {
      if (key === 't') reset ??= number;
      else remaining ??= number;
    }
    if (reset !== undefined) items.push({ resetSeconds: Number(reset), remaining });
  }
  return items;
}

/**
 * A response's rate-limit headers as an SDK or a log printed them inside the text (`'anthropic-ratelimit-requests-reset':
 * '2024-03-26T20:00:00Z'`, `x-ratelimit-reset-tokens: 6m0s`): the same reading as `headerHints`, over the pairs found
 * in the lower-cased text. `retry-after` is read only beside them: printed alone it is as often a client's own setting.
 */
export function quotedHeaderHints(text: string, referenceMs: number): RawHints {
  const pairs: Array<[string, string]> = [];
  for (const m of text.matchAll(quotedRateLimitHeader)) {
    // The text is lower-cased; an ISO instant is read in upper case (`T`, `Z`), a Go duration as it is.
    const value = m[2]!;
    pairs.push([m[1]!, /^\d{4}-\d{2}-\d{2}t/.test(value) ? value.toUpperCase() : value]);
  }
  if (pairs.length === 0) return {};
  // Beside those, a `retry-after` is the same response's header (a printed header map), not a client's setting.
  const retryAfter = quotedRetryAfter.exec(text);
  return {
    ...(retryAfter === null ? {} : { retryAfter: { delaySeconds: Number(retryAfter[1]) } }),
    ...resetHint(pairs, (n) => pairs.find(([k]) => k === n)?.[1], referenceMs),
  };
}

/** A printed `retry-after` header in seconds, in the shapes `quotedRateLimitHeader` reads. */
const quotedRetryAfter =
  /['"]?\bretry-after['"]?\s{0,2}(?:=>|[:=])\s{0,2}\[?\s{0,2}['"]?(\d{1,10}(?:\.\d{1,9})?)(?![\d.:])/;

/**
 * `name: value`, `'name': 'value'`, `"name": "value"` or an Elixir map's `"name" => ["value"]` for the rate-limit
 * reset and remaining headers.
 */
const quotedRateLimitHeader =
  /['"]?((?:anthropic-ratelimit|x-ratelimit)-[a-z-]{1,40})['"]?\s{0,2}(?:=>|[:=])\s{0,2}\[?\s{0,2}['"]?([0-9][0-9a-z:.+-]{0,40})/g;
