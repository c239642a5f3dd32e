import { isFreeOfSecrets, redactRange } from './redact-secrets.js';
import { cutUtf8, cutUtf8Tail } from '../text/utf8.js';
import { isKeyCharacter } from '../text/key-characters.js';
import { stripDisplayCodes } from '../text/display-codes.js';
import { stripControlCharacters } from '../text/whitespace.js';
import { asText } from './as-text.js';

/** The bound of every `safe_excerpt`, in UTF-8 bytes (REQUIREMENTS DAT-09 decision). */
export const excerptMaxBytes = 512;

/** Characters read around the chosen point before sanitizing: 512 bytes of excerpt and room for redaction. */
const windowChars = 640;
/** How far a window edge may move to land between tokens, so no secret is cut in half before redaction. */
const snapChars = 256;
/**
 * Context read on each side of the window: a credential is often recognized by what precedes it (`arn:aws:...:`,
 * `organization`, `key=`) and only whole by what follows it (`user:password@`), and a window edge may fall inside
 * one. Only the window is printed; the margins are read, never shown.
 */
const marginChars = 256;

/** Where the excerpt starts: the head, the tail, or around a character offset (a rule's match). */
export type ExcerptAnchor =
  { readonly at: 'head' } | { readonly at: 'tail' } | { readonly at: 'offset'; readonly offset: number };

/**
 * A bounded, sanitized excerpt of `raw`: control characters removed, credentials and account identifiers
 * redacted, at most 512 bytes cut on a UTF-8 boundary. The window is chosen first and its edges snap to
 * non-token characters so that a secret is never split before the redactor sees it whole.
 */
export function safeExcerpt(value: string, anchor: ExcerptAnchor = { at: 'head' }): string {
  // Read as text whatever untyped JavaScript passes, as `redactSecrets` does.
  const raw = asText(value);
  if (raw.length === 0) return '';
  let start = 0;
  let end = raw.length;
  if (anchor.at === 'tail') {
    start = Math.max(0, raw.length - windowChars);
  } else if (anchor.at === 'offset') {
    start = Math.max(0, Math.min(raw.length, anchor.offset) - 160);
  }
  if (start > 0) start = snapForward(raw, start);
  if (end - start > windowChars) end = snapForward(raw, start + windowChars);
  // Line breaks are kept through redaction (a key wrapped across two lines is one key), then become blanks.
  const clean = collapseBlanks(sanitizeWindow(raw, start, end)).trim();
  if (anchor.at === 'tail') return cutUtf8Tail(clean, excerptMaxBytes).trimStart();
  return cutUtf8(clean, excerptMaxBytes).trimEnd();
}

/** Runs of blanks and line breaks as one blank. */
const blankRun = /[ \n]{2,}|\n/g;

/** `text` with each run of blanks and line breaks made one blank; most texts have none (two native scans). */
function collapseBlanks(text: string): string {
  return text.includes('\n') || text.includes('  ') ? text.replace(blankRun, ' ') : text;
}

/**
 * Sanitizes raw[start, end) as if the margins around it were there: the secrets are found in margin, window and
 * margin together, in one pass, and only the window is printed, a secret across its edge replaced whole.
 */
function sanitizeWindow(raw: string, start: number, end: number): string {
  const before = clean(raw.slice(Math.max(0, start - marginChars), start));
  const shown = clean(raw.slice(start, end));
  const after = clean(raw.slice(end, Math.min(raw.length, end + marginChars)));
  return redactRange(before + shown + after, before.length, before.length + shown.length);
}

/** Escaped controls in serialized JSON (`\\n`, `\\t`, `\\u001b`) would glue words together and hide a key. */
const escapedControl = /\\(?:[nrtfbv]|u00[01][0-9a-fA-F])/g;

/** Any character `clean` could change (a superset): text without one is returned as is, after one scan. */
const mayNeedCleaning =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2069\ufeff\ud800-\udfff]|\\[nrtfbvu]/;

/**
 * Line breaks, raw or escaped (`\\n`). Of a doubly escaped one (`\\\\n`) the first backslash stays, as it did
 * before breaks were kept: excerpts read the same as they did.
 */
const lineBreaks = /(?:\r\n?|\n|\\(?:[rn]|u000[aAdD]))+/;

/**
 * Controls and invisible characters removed, escaped controls made blanks, and line breaks kept as one `\n` each
 * so the redactor can follow a key wrapped across lines (`safeExcerpt` makes them blanks afterwards).
 */
function clean(text: string): string {
  // ESC (\u001b) is in the set, so text with a terminal sequence is always cleaned.
  if (!mayNeedCleaning.test(text)) return text;
  return stripDisplayCodes(text)
    .split(lineBreaks)
    .map((line) => stripControlCharacters(line).replace(escapedControl, ' '))
    .join('\n');
}

/**
 * `String.prototype.charCodeAt` called explicitly: inlined whatever the text's representation (see
 * secret-patterns.ts; reading `text[i]` of many representations is a generic lookup per character).
 */
// eslint-disable-next-line @typescript-eslint/unbound-method -- always called with its receiver: charCodeAt.call(text, i)
const charCodeAt = String.prototype.charCodeAt;

/** The first non-token character at or after `index` (within `snapChars`), else `index` itself. */
function snapForward(text: string, index: number): number {
  const limit = Math.min(text.length, index + snapChars);
  for (let i = index; i < limit; i++) {
    const c = charCodeAt.call(text, i);
    if (!isKeyCharacter(c)) return i;
  }
  return index;
}

const identifierShape = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/;

/**
 * A provider, agent, model or phase identifier safe to output: a short token of identifier characters that
 * the redactor leaves untouched. Anything else becomes null rather than leak or mislead.
 */
export function safeIdentifier(value: string | null): string | null {
  if (value === null || !identifierShape.test(value)) return null;
  const known = identifierVerdicts.get(value);
  if (known !== undefined) return known ? value : null;
  const safe = isFreeOfSecrets(value);
  // Ids repeat (a handful of providers, agents and models): remember a bounded number of verdicts.
  if (identifierVerdicts.size >= 1024) identifierVerdicts.clear();
  identifierVerdicts.set(value, safe);
  return safe ? value : null;
}

const identifierVerdicts = new Map<string, boolean>();
