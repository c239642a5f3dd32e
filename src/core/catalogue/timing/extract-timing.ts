import { bodyFieldHints } from './body-field-hints.js';
import { headerHints, quotedHeaderHints } from './header-hints.js';
import { validateHint, type RawHints } from './hint.js';
import { relativePhraseHints, usageLimitEpochHints, zonedClockHints } from './phrase-hints.js';
import type { HeaderList } from '../../evidence/evidence.js';
import type { TimingExtractor } from '../rule.js';

export interface TimingHints {
  /** Epoch ms the provider asked to wait until (relative delays resolved from the reference time). */
  readonly retryAfterMs: number | null;
  /** Epoch ms a quota or limit resets. */
  readonly resetAtMs: number | null;
}

export interface TimingInput {
  readonly headers: HeaderList;
  /** The lower-cased classification window. */
  readonly text: string;
  /** The timing origin (a trusted `observed_at`, else the caller's now): relative hints are measured from it. */
  readonly referenceMs: number;
}

/**
 * Runs the extractors a rule trusts, in precedence order (structured headers, then body fields, then text),
 * and keeps, per slot, the first hint that validates.
 */
export function extractTiming(input: TimingInput, trusted: readonly TimingExtractor[]): TimingHints {
  let retryAfterMs: number | null = null;
  let resetAtMs: number | null = null;
  for (const extractor of trusted) {
    if (retryAfterMs !== null && resetAtMs !== null) break;
    const hints = run(extractor, input);
    retryAfterMs ??= validateHint(hints.retryAfter, input.referenceMs);
    resetAtMs ??= validateHint(hints.resetAt, input.referenceMs);
  }
  return { retryAfterMs, resetAtMs };
}

/** Cheap literal checks first: most evidence carries no timing at all. */
function run(extractor: TimingExtractor, input: TimingInput): RawHints {
  const text = input.text;
  switch (extractor) {
    case 'headers':
      return input.headers.length === 0 ? {} : headerHints(input.headers, input.referenceMs);
    case 'quoted_headers':
      return text.includes('ratelimit') ? quotedHeaderHints(text, input.referenceMs) : {};
    case 'body_fields':
      return /retry|reset|delay|estimated_time/.test(text) ? bodyFieldHints(text) : {};
    case 'phrases':
      return /try|reset|wait|available|come back|后/.test(text) ? relativePhraseHints(text) : {};
    case 'usage_limit_epoch':
      return text.includes('|') ? usageLimitEpochHints(text) : {};
    case 'zoned_clock':
      return /reset|again|regain|retry after/.test(text) && /utc|gmt|\//.test(text)
        ? zonedClockHints(text, input.referenceMs)
        : {};
  }
}
