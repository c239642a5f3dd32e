import { redactSecrets } from '../sanitize/redact-secrets.js';
import { escapeControlsInJson } from '../text/escape-controls.js';
import { stripControlCharacters } from '../text/whitespace.js';

/** One validation problem, addressed by a JSON pointer into the input (`/candidates/1/policy/hard/on_exhausted`). */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** A JSON pointer with one more segment (`~` and `/` escaped as RFC 6901 says). */
export function pointer(base: string, segment: string | number): string {
  return `${base}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`;
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
    const shown = redactSecrets(stripControlCharacters(value.length > 200 ? value.slice(0, 200) : value));
    return escapeControlsInJson(JSON.stringify(shown.length > 40 ? `${shown.slice(0, 40)}…` : shown));
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
