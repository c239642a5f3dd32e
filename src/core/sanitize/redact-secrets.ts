import { secretPatterns } from './secret-patterns.js';

const escape = (literal: string): string => literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** One native scan per pattern decides whether its (costlier) pattern needs to run at all. */
const hintScans: ReadonlyArray<RegExp | null> = secretPatterns.map((p) =>
  p.hints.length === 0 ? null : new RegExp(p.hints.map(escape).join('|'), p.caseless ? 'i' : ''),
);

/**
 * Replaces every credential and account identifier in `text` with `[REDACTED]` (e-mail addresses with
 * `[EMAIL]`). Patterns whose literal hints are absent are skipped, so clean text is cheap.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (let i = 0; i < secretPatterns.length; i++) {
    const hints = hintScans[i];
    if (hints && !hints.test(out)) continue;
    const spec = secretPatterns[i]!;
    out = out.replace(spec.pattern, spec.replace);
  }
  return out;
}
