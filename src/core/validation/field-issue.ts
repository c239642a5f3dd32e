import { redactRange } from '../sanitize/redact-secrets.js';
import { stripControlCharacters } from '../text/whitespace.js';

/** One validation problem, addressed by a JSON pointer into the input (`/candidates/1/policy/hard/on_exhausted`). */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * A JSON pointer with one more segment (`~` and `/` escaped as RFC 6901 says). A segment is input too (an unknown
 * key may be a pasted credential): it is redacted and kept to 64 characters.
 */
export function pointer(base: string, segment: string | number): string {
  const key = typeof segment === 'number' ? String(segment) : safeSegment(segment);
  return `${base}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

function safeSegment(segment: string): string {
  // Controls stay: JSON output carries the key as it was, and whatever prints it escapes them.
  const shown = redactRange(segment, 0, segment.length);
  return shown.length > 64 ? `${shown.slice(0, 64)}…` : shown;
}

/** Invisible characters `JSON.stringify` leaves raw: DEL, C1, zero-width, bidi marks and controls, separators, BOM. */
const invisibleInJson = /[\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2069\ufeff]/g;

/**
 * A short, safe rendering of a bad value for a message: redacted, at most 40 characters, as a JSON string.
 * Control, invisible and bidi characters are shown escaped (`"s\u001b9"`), so the echo shows what was refused and
 * never reorders or recolours a terminal. Redaction also looks at the text without them (a secret split by one is
 * still found): when that finds one, the echo is that redacted text, without the controls.
 */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    // Echo bad input only redacted and short: an error message must never carry a credential.
    // Redacted before it is cut: a credential across the cut is then replaced whole, never shown in part.
    const text = value.length > 1024 ? value.slice(0, 1024) : value;
    const stripped = stripControlCharacters(text);
    const strippedShown = redactRange(stripped, 0, Math.min(stripped.length, 200));
    const shown =
      strippedShown !== stripped ? strippedShown : redactRange(text, 0, Math.min(text.length, 200));
    // JSON.stringify escapes C0 controls and lone surrogates; the rest is escaped here.
    return JSON.stringify(shown.length > 40 ? `${shown.slice(0, 40)}…` : shown).replace(
      invisibleInJson,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
