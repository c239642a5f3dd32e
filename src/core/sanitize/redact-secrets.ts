import { findSecrets } from './secret-patterns.js';
import { stripDisplayCodes } from '../text/display-codes.js';
import { asText } from './as-text.js';

/**
 * Replaces every credential and account identifier in `text` with `[REDACTED]` (e-mail addresses with
 * `[EMAIL]`), and drops common terminal colour codes. One pass over the text finds them (`findSecrets`).
 */
export function redactSecrets(text: string): string {
  // A key coloured by the terminal (`ESC[31mAKIA...`) only starts a word once the colour code is gone. Anything
  // but a string (from untyped JavaScript) is read as its text: the scan reads character codes, and a value it
  // cannot read must not come back unredacted.
  const plain = stripDisplayCodes(asText(text));
  return redactRange(plain, 0, plain.length);
}

/**
 * text[from, to) with its secrets replaced, the secrets found in the whole of `text`: what lies outside the range
 * is the margin that lets a secret be recognized (by the key word before it) and whole (a key cut by the range's
 * edge is replaced entirely, never shown in part).
 */
export function redactRange(text: string, from: number, to: number): string {
  let out = '';
  let at = from;
  for (const span of findSecrets(text)) {
    if (span.end <= at) continue;
    if (span.start >= to) break;
    if (span.start > at) out += text.slice(at, span.start);
    out += span.replacement;
    at = span.end;
  }
  if (at < to) out += text.slice(at, to);
  return out;
}

/** True when `text` holds no credential or account identifier. */
export function isFreeOfSecrets(text: string): boolean {
  return findSecrets(text).length === 0;
}
