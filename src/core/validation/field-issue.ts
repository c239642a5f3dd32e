import { redactRange } from '../sanitize/redact-secrets.js';
import { escapeControlsInJson } from '../text/escape-controls.js';
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

/**
 * A short, safe rendering of a bad value for a message: redacted, at most 40 characters, as a JSON string.
 * Controls and bidi marks are removed before redaction (a secret split by one is still found), and whatever the
 * JSON rendering would still leave raw is escaped, so a message never reorders or recolours a terminal.
 */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    // Echo bad input only redacted and short: an error message must never carry a credential.
    // Redacted before it is cut: a credential across the cut is then replaced whole, never shown in part.
    const text = stripControlCharacters(value.length > 1024 ? value.slice(0, 1024) : value);
    const shown = redactRange(text, 0, Math.min(text.length, 200));
    return escapeControlsInJson(JSON.stringify(shown.length > 40 ? `${shown.slice(0, 40)}…` : shown));
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
