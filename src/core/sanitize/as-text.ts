/**
 * A value from untyped JavaScript as text: a string as it is, anything else as `String` gives it, or its type tag
 * when even that throws (an object without a prototype, a symbol's description aside). Sanitizers read character
 * codes, and a value they cannot read must neither throw nor come back unredacted.
 */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
