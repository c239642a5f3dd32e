import { secretPatterns } from './secret-patterns.js';

const lowerHints = secretPatterns.map((p) => p.hints.map((h) => h.toLowerCase()));

/**
 * Replaces every credential and account identifier in `text` with `[REDACTED]` (e-mail addresses with
 * `[EMAIL]`). Patterns whose literal hints are absent are skipped, so clean text is cheap.
 */
export function redactSecrets(text: string): string {
  let out = text;
  let lower: string | null = null;
  for (let i = 0; i < secretPatterns.length; i++) {
    const spec = secretPatterns[i]!;
    if (spec.hints.length > 0) {
      let present = false;
      if (spec.caseless) {
        lower ??= out.toLowerCase();
        const hints = lowerHints[i]!;
        for (const hint of hints) if (lower.includes(hint)) present = true;
      } else {
        for (const hint of spec.hints) if (out.includes(hint)) present = true;
      }
      if (!present) continue;
    }
    const next = out.replace(spec.pattern, spec.replace);
    if (next !== out) {
      out = next;
      lower = null;
    }
  }
  return out;
}
