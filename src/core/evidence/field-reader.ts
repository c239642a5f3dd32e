import { evidenceBounds } from './bounds.js';
import { cutUtf8 } from '../text/utf8.js';
import { withoutSplitRun } from '../text/key-characters.js';
import { describe, pointer, type FieldIssue } from '../validation/field-issue.js';

/** One validation problem of an envelope, addressed by a JSON pointer (`/error/code`). */
export type EnvelopeIssue = FieldIssue;

/**
 * Reads fields of one JSON object, collecting every problem instead of stopping at the first, and recording
 * which fields were cut to their bound.
 */
export class FieldReader {
  readonly issues: EnvelopeIssue[] = [];
  readonly truncated: string[] = [];

  constructor(
    private readonly source: Readonly<Record<string, unknown>>,
    private readonly prefix: string,
  ) {}

  has(key: string): boolean {
    return this.source[key] !== undefined && this.source[key] !== null;
  }

  raw(key: string): unknown {
    return this.source[key];
  }

  path(key: string): string {
    return pointer(this.prefix, key);
  }

  fail(key: string, message: string): void {
    this.issues.push({ path: this.path(key), message });
  }

  /** Rejects keys outside `allowed`, naming them and what is allowed. */
  rejectUnknown(allowed: ReadonlySet<string>, what: string): void {
    for (const key of Object.keys(this.source)) {
      if (!allowed.has(key)) {
        this.issues.push({
          path: this.path(key),
          message: `unknown field ${describe(key)} for ${what} (allowed: ${[...allowed].join(', ')})`,
        });
      }
    }
  }

  /** An optional text field bounded to `maxBytes`; empty text reads as null. */
  optionalText(key: string, maxBytes: number): string | null {
    const value = this.source[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') {
      this.fail(key, `${key} must be a string or null (got ${describe(value)})`);
      return null;
    }
    return value === '' ? null : this.bound(key, value, maxBytes);
  }

  /** A required text field (empty allowed) bounded to `maxBytes`. */
  requiredText(key: string, maxBytes: number = evidenceBounds.textBytes): string {
    const value = this.source[key];
    if (typeof value !== 'string') {
      this.fail(
        key,
        value === undefined
          ? `${key} is required (a string)`
          : `${key} must be a string (got ${describe(value)})`,
      );
      return '';
    }
    return this.bound(key, value, maxBytes);
  }

  /** An integer within [min, max]; `required` decides whether absence is a problem. */
  integer(key: string, min: number, max: number, required: boolean): number | null {
    const value = this.source[key];
    if (value === undefined || value === null) {
      if (required) this.fail(key, `${key} is required (an integer from ${min} to ${max})`);
      return null;
    }
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(key, `${key} must be an integer from ${min} to ${max} (got ${describe(value)})`);
      return null;
    }
    return value;
  }

  bound(key: string, value: string, maxBytes: number): string {
    const kept = cutUtf8(value, maxBytes);
    if (kept.length === value.length) return value;
    // The cut is marked in `truncated` (and shown by readers); the text stays a cheap slice of the input. A key the
    // cut split is left out whole: its first characters alone would not read as a key and would come out.
    this.truncated.push(this.path(key));
    return withoutSplitRun(kept, value.charCodeAt(kept.length));
  }
}
