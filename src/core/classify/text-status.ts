import type { GramTable } from './required-grams.js';
import { literalGrams } from '../text/trigrams.js';

/**
 * HTTP status codes stated in text, but only behind an anchor that makes them an error report
 * (`API Error: 529`, `Error code: 429 -`, `last status: 401`, `[500 Internal Server Error]`, a line that starts
 * with `429 {`). Prose that merely quotes a status ("the task mentioned status 500") has no anchor.
 */

const reasonPhrases =
  'bad request|unauthorized|payment required|forbidden|not found|request timeout|conflict|payload too large|' +
  'too many requests|internal server error|bad gateway|service unavailable|gateway time-?out|overloaded';

/** Each anchored form with a literal that must occur for it to be worth running (one cheap scan). */
const anchoredStatus: ReadonlyArray<readonly [literal: string, pattern: RegExp]> = [
  ['api error', /api error:?\s{0,3}(?:\(status\s)?\(?([1-5]\d\d)(?!\d)/],
  ['error code', /error code:?\s{0,3}-?\s{0,3}([1-5]\d\d)(?!\d)/],
  ['status code', /status code:?\s{0,3}\(?([1-5]\d\d)(?!\d)/],
  // The OpenAI and Anthropic Node SDKs' message for an error without a body: `401 status code (no body)`.
  ['status code', /(?:^|[\s:])([1-5]\d\d) status code\b/],
  ['status', /status\s{0,2}[:=]\s{0,3}([1-5]\d\d)(?!\d)/],
  ['(status', /\(status:?\s([1-5]\d\d)\)/],
  ['unexpected status', /unexpected status:?\s([1-5]\d\d)(?!\d)/],
  ['http', /\bhttp(?:\/\d(?:\.\d)?)?(?: status)?:?\s([1-5]\d\d)(?!\d)/],
  [' error', /(?:server|streaming|request|response|upstream|provider|api) error:?\s{0,3}'?([1-5]\d\d)(?!\d)/],
  ['request failed', /request failed(?:,? (?:with )?status(?: code)?)?:?\s{0,3}\(?([1-5]\d\d)(?!\d)/],
  ['returned', /\breturned (?:an? )?(?:http |status |error )?([1-5]\d\d)(?!\d)/],
  // The OpenAI Python SDK 0.x: "Invalid response object from API: '...' (HTTP response code was 500)".
  ['response code was', /\(http response code was ([1-5]\d\d)\)/],
  ['failed with status', /failed with status(?: code)?:?\s([1-5]\d\d)(?!\d)/],
  ['', new RegExp(`[[('"]([1-5]\\d\\d) (?:${reasonPhrases})\\b`)],
  [
    '',
    new RegExp(
      `(?:^|\\n)[^\\S\\n]{0,8}(?:[^\\w\\s"'{[(<]{1,3}\\s{0,2}){0,3}(?:error:?\\s{0,2})?([1-5]\\d\\d)(?:\\s{0,2}[-–:]\\s{0,2}|\\s{1,2})(?=[{[<]|(?:${reasonPhrases})\\b)`,
    ),
  ],
];

const hasThreeDigits = /[1-5]\d\d/;

/** Each form's literal as trigram slots: a text whose trigram table lacks one of them need not be searched. */
const literalSlots = anchoredStatus.map(([literal]) => literalGrams(literal));

/**
 * For each form, the form whose literal is the shortest other one inside its own (`status` inside `status code`), or
 * -1: a text without that literal has neither, so its own is not searched for (most texts have no `status`).
 */
const innerLiteral = anchoredStatus.map(([literal]) => {
  let inner = -1;
  anchoredStatus.forEach(([other], index) => {
    if (other === '' || other.length >= literal.length || !literal.includes(other)) return;
    if (inner < 0 || other.length < anchoredStatus[inner]![0].length) inner = index;
  });
  return inner;
});

/** Scratch of one call: whether each form's literal occurs (1) or not (0), or -1 before it is searched for. */
const literalFound = new Int8Array(anchoredStatus.length);

/**
 * Whether the literal of form `index` occurs in `text`, searched for at most once a call, and only when the
 * text's trigrams (`grams`, when given) hold the literal's.
 */
function hasLiteral(text: string, index: number, grams: GramTable | undefined): boolean {
  const known = literalFound[index]!;
  if (known !== -1) return known === 1;
  const inner = innerLiteral[index]!;
  const found =
    (inner < 0 || hasLiteral(text, inner, grams)) &&
    (grams === undefined || grams.mayContain(literalSlots[index]!, text)) &&
    text.includes(anchoredStatus[index]![0]);
  literalFound[index] = found ? 1 : 0;
  return found;
}

/**
 * The first anchored status in the lower-cased `text`, with its offset, or null. `grams`, a trigram table (filled
 * from `text` if it is not), spares the searches for literals whose trigrams the text lacks; the answer is the same.
 */
export function statusFromText(text: string, grams?: GramTable): { status: number; offset: number } | null {
  if (!hasThreeDigits.test(text)) return null;
  literalFound.fill(-1);
  let best: { status: number; offset: number } | null = null;
  for (let index = 0; index < anchoredStatus.length; index++) {
    const [literal, pattern] = anchoredStatus[index]!;
    if (literal !== '' && !hasLiteral(text, index, grams)) continue;
    const m = pattern.exec(text);
    if (m && m[1] && (best === null || m.index < best.offset))
      best = { status: Number(m[1]), offset: m.index };
  }
  return best;
}
