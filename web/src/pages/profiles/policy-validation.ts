import type { DynamicProfile } from '../../../../src/core/policy/index.js';
import { dynamicProfileSchema } from '../../../../src/core/policy/index.js';
import { inputOf, type ProfileForm } from './policy-form.js';

/**
 * The form checked by the same zod schema as the server (UI-07): every problem at once, keyed by the JSON pointer
 * of its field, so each message sits beside its control. The server's 422 paths use the same pointers.
 */
export interface FormCheck {
  readonly issues: ReadonlyMap<string, string>;
  /** The normalized version 1 document to send, when the form is valid. */
  readonly profile: DynamicProfile | null;
}

export function checkForm(form: ProfileForm): FormCheck {
  const { document, typingIssues } = inputOf(form);
  const issues = new Map<string, string>(typingIssues);
  const result = dynamicProfileSchema.safeParse(document);
  if (result.success) return { issues, profile: issues.size === 0 ? result.data : null };
  for (const issue of result.error.issues) {
    const path = pointerOf(issue.path);
    // The typing message ("enter a duration such as 5m") says more than "got NaN"; keep the first per field.
    if (!issues.has(path)) issues.set(path, readable(issue.message));
  }
  return { issues, profile: null };
}

/** zod's path to a JSON pointer (['candidates', 1, 'policy'] -> /candidates/1/policy). */
function pointerOf(path: readonly PropertyKey[]): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

const labels: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bmax_retries\b/g, 'Maximum retries'],
  [/\binitial_interval_seconds\b/g, 'Initial interval'],
  [/\bmax_wait_seconds\b/g, 'Maximum wait'],
  [/\bon_exhausted\b/g, 'When exhausted'],
  [/\(got NaN\)/g, ''],
];

/** The validator's message with the form's labels in place of wire field names (the rule and limit unchanged). */
export function readable(message: string): string {
  let text = message;
  for (const [pattern, label] of labels) text = text.replace(pattern, label);
  text = text.trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}
