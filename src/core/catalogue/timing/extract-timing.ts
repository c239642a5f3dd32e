import { bodyFieldHints } from './body-field-hints.js';
import { headerHints, quotedHeaderHints } from './header-hints.js';
import { validateHint, type RawHints } from './hint.js';
import { relativePhraseHints, usageLimitEpochHints, zonedClockHints } from './phrase-hints.js';
import type { HeaderList } from '../../evidence/evidence.js';
import type { TimingExtractor } from '../rule.js';
import { literalGrams, type TrigramTable } from '../../text/trigrams.js';

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
  /**
   * The text's trigram table, when the caller has one: an extractor whose words' trigrams are all missing is not
   * run (the same answer, without its searches).
   */
  readonly grams?: TrigramTable;
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

/** What an extractor that found nothing returns: one shared, frozen object rather than a new one per call. */
const noHints: RawHints = Object.freeze({});

/**
 * The words each extractor needs, as module constants: a regular-expression literal in a function body is a new
 * object at every call.
 */
const bodyFieldWords = /retry|reset|delay|estimated_time/;
const phraseWords = /try|reset|wait|available|come back|后|等待/;
const zonedClockWords = /reset|again|regain|retry after/;
const zonedClockZones = /utc|gmt|\//;

/**
 * The same words' trigrams, checked in the caller's trigram table before the expressions run: a text without all
 * trigrams of any word holds none of them. A word under three characters (`后`, `等待`) has none, so `phrases` is
 * only ever skipped by its expression.
 */
const ratelimitGrams = [literalGrams('ratelimit')];
const bodyFieldGrams = ['retry', 'reset', 'delay', 'estimated_time'].map(literalGrams);
const zonedClockGrams = ['reset', 'again', 'regain', 'retry after'].map(literalGrams);
const phraseGrams = ['try', 'reset', 'wait', 'available', 'come back'].map(literalGrams);

/** Whether the text may hold one of `words` (true without a table). */
const mayHold = (input: TimingInput, words: readonly Int32Array[]): boolean =>
  input.grams === undefined || input.grams.mayContainAny(words, input.text);

/** Cheap checks first (the trigram table, then literals): most evidence carries no timing at all. */
function run(extractor: TimingExtractor, input: TimingInput): RawHints {
  const text = input.text;
  switch (extractor) {
    case 'headers':
      return input.headers.length === 0 ? noHints : headerHints(input.headers, input.referenceMs);
    case 'quoted_headers':
      return mayHold(input, ratelimitGrams) && text.includes('ratelimit')
        ? quotedHeaderHints(text, input.referenceMs)
        : noHints;
    case 'body_fields':
      return mayHold(input, bodyFieldGrams) && bodyFieldWords.test(text) ? bodyFieldHints(text) : noHints;
    case 'phrases':
      return (mayHold(input, phraseGrams) || text.includes('后') || text.includes('等待')) &&
        phraseWords.test(text)
        ? relativePhraseHints(text)
        : noHints;
    case 'usage_limit_epoch':
      return text.includes('|') ? usageLimitEpochHints(text) : noHints;
    case 'zoned_clock':
      return mayHold(input, zonedClockGrams) && zonedClockWords.test(text) && zonedClockZones.test(text)
        ? zonedClockHints(text, input.referenceMs)
        : noHints;
  }
}
