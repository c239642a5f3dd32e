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
 * absolute instant must lie after the reference and within 30 days of it.
 */
export function validateHint(hint: RawHint | undefined, referenceMs: number): number | null {
  if (hint === undefined) return null;
  if ('delaySeconds' in hint) {
    const s = hint.delaySeconds;
    if (!Number.isFinite(s) || s < 0 || s > maxHintSeconds) return null;
    return referenceMs + Math.round(s * 1000);
  }
  const at = hint.atMs;
  if (!Number.isFinite(at) || at <= referenceMs || at > referenceMs + maxHintSeconds * 1000) return null;
  return Math.round(at);
}

/** Seconds or milliseconds since the epoch, told apart by magnitude (13 digits are ms). */
export function epochToMs(digits: string): number {
  const n = Number(digits);
  return digits.length >= 13 ? n : n * 1000;
}
