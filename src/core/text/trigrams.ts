/**
 * Trigrams (three consecutive UTF-16 code units) hashed into a fixed number of slots: the classifier marks those of
 * a text once (`GramTable` in src/core/classify/required-grams.ts), and a search for a literal or a pattern whose
 * trigrams are not all marked can be skipped, since the text cannot hold it. Collisions only let more through.
 */

/** Slots of a trigram table: 65,536. */
export const gramSlots = 65_536;

/** The slot of the trigram a, b, c (UTF-16 code units). */
export const gramSlot = (a: number, b: number, c: number): number => (a * 961 + b * 31 + c) & (gramSlots - 1);

/** The trigram slots of a literal, as a table's `mayContainAny` reads them (none under three characters). */
export function literalGrams(literal: string): Int32Array {
  const slots: number[] = [];
  for (let i = 0; i + 2 < literal.length; i++)
    slots.push(gramSlot(literal.charCodeAt(i), literal.charCodeAt(i + 1), literal.charCodeAt(i + 2)));
  return Int32Array.from(slots);
}

/** A text's trigrams, as a pre-check before searching it. */
export interface TrigramTable {
  /**
   * Whether `text` may contain at least one of the literals (each as `literalGrams`): false only when every one
   * of them misses a trigram.
   */
  mayContainAny(literals: readonly Int32Array[], text: string): boolean;
}
