import { latestIsoMs } from '../../time/iso-time.js';

/** A timing hint before validation: a delay from the reference time, or an absolute instant. */
export type RawHint = { readonly delaySeconds: number } | { readonly atMs: number };

/** The hints one extractor found, per output slot. */
export interface RawHints {
  readonly retryAfter?: RawHint;
  readonly resetAt?: RawHint;
}

/** The longest future a hint may name (REQUIREMENTS: only a future time within 30 days is kept). */
export const maxHintSeconds = 30 * 86_400;

/**
 * The validated instant of a hint, or null. A relative delay must be finite, not negative and at most 30 days
 * (a zero delay states "now" and is kept; the evaluator ignores a reset at or before its own now). An
 * absolute instant must lie after the reference and within 30 days of it. Either way the instant must be one a
 * four-digit year names (9999-12-31T23:59:59.999Z at the latest): a clock near the end of year 9999 would otherwise
 * print a hint in year 10000, which is no ISO-8601 date-time.
 */
export function validateHint(hint: RawHint | undefined, referenceMs: number): number | null {
  if (hint === undefined) return null;
  let at: number;
  if ('delaySeconds' in hint) {
    const s = hint.delaySeconds;
    if (!Number.isFinite(s) || s < 0 || s > maxHintSeconds) return null;
    at = referenceMs + Math.round(s * 1000);
  } else {
    if (
      !Number.isFinite(hint.atMs) ||
      hint.atMs <= referenceMs ||
      hint.atMs > referenceMs + maxHintSeconds * 1000
    )
      return null;
    at = Math.round(hint.atMs);
  }
  return at > latestIsoMs ? null : at;
}

/** Seconds or milliseconds since the epoch, told apart by magnitude (13 digits are ms). */
export function epochToMs(digits: string): number {
  const n = Number(digits);
  return digits.length >= 13 ? n : n * 1000;
}
