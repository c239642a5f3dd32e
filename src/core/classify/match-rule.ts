import type { Facts } from './facts.js';
import type { CompiledRule } from './compiled-catalogue.js';
import type { GramTable, LazyGate } from './required-grams.js';
import { matchCursorRetriableDiagnostic } from '../projection/cursor-diagnostic.js';
import type { SharedPredicate } from '../catalogue/rule.js';

/** Where a matching rule found its text, for the excerpt; -1 when it matched on structured facts only. */
export type MatchOffset = number;

/**
 * Checks every condition of a rule against the facts; returns the text offset of the match, or null.
 * Keywords are not re-checked: a rule with keywords is only ever a candidate through one of its keyword tokens.
 */
export function matchRule(compiled: CompiledRule, facts: Facts, grams: GramTable): MatchOffset | null {
  const w = compiled.test;
  if (compiled.kinds !== null && !compiled.kinds.has(facts.kind)) return null;
  if (w.sources !== null && !w.sources.some((s) => facts.sourceIds.includes(s))) return null;
  if (w.status !== null && (facts.status === null || !w.status.includes(facts.status))) return null;
  if (w.rpcCodes !== null && (facts.rpcCode === null || !w.rpcCodes.includes(facts.rpcCode))) return null;
  if (w.exitCodes !== null || w.signals !== null) {
    const byCode = w.exitCodes !== null && facts.exitCode !== null && w.exitCodes.includes(facts.exitCode);
    const bySignal = w.signals !== null && facts.signal !== null && w.signals.includes(facts.signal);
    if (!byCode && !bySignal) return null;
  }
  if (w.fields !== null) {
    for (const [name, values] of w.fields) {
      const present = facts.fields.get(name);
      if (present === undefined || values === null || !values.some((v) => present.includes(v))) return null;
    }
  }
  // The rule's own pattern before its veto: of the candidates the index selects, most fail their pattern (about
  // 5 in 6 over the corpus) and few are vetoed (1 in 50), so the veto runs only where it can matter. Every
  // condition is a pure test (no global or sticky flag), so the order changes the cost, never the answer.
  // A text that lacks the pattern's required trigrams cannot match it: most candidates end here, unrun (and of a
  // long alternation, only the branches whose trigrams the text holds run: src/core/classify/pruned-pattern.ts).
  let at = -1;
  if (w.text !== null) {
    at = w.text.search(facts.text, grams);
    if (at < 0) return null;
  }
  if (w.unless !== null && w.unless.test(facts.text, grams)) return null;
  if (w.anchorWhenUnnamed !== null && !facts.namedSource && !w.anchorWhenUnnamed.test(facts.text, grams)) {
    return null;
  }
  if (w.predicate !== null && !predicates[w.predicate](facts)) return null;
  let offset = -1;
  if (compiled.near) {
    const near = nearMatch(facts.text, compiled.near, grams);
    if (near === null) return null;
    offset = near;
  }
  return w.text !== null ? at : offset;
}

/** Start offsets and ends of every match of a global pattern, in order. */
function occurrences(
  text: string,
  pattern: RegExp,
  gate: LazyGate,
  grams: GramTable,
): Array<readonly [number, number]> {
  const found: Array<readonly [number, number]> = [];
  if (!grams.allows(gate.get(), text)) return found;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    found.push([m.index, m.index + m[0].length]);
    if (m[0].length === 0) pattern.lastIndex++;
  }
  return found;
}

/** The offset of the first anchor with a word within range, merging the two ordered position lists. */
function nearMatch(text: string, near: NonNullable<CompiledRule['near']>, grams: GramTable): number | null {
  const anchors = occurrences(text, near.anchor, near.anchorGate, grams);
  if (anchors.length === 0) return null;
  const words = occurrences(text, near.word, near.wordGate, grams);
  let w = 0;
  for (const [start, end] of anchors) {
    // Skip words that end too far before this anchor; they are too far for every later anchor too.
    while (w < words.length && words[w]![1] < start - near.before) w++;
    for (let k = w; k < words.length && words[k]![0] <= end + near.after; k++) {
      const [wordStart, wordEnd] = words[k]!;
      if (wordEnd <= start || wordStart >= end) return start;
    }
  }
  return null;
}

const predicates: Record<SharedPredicate, (facts: Facts) => boolean> = {
  cursor_retriable_diagnostic: (facts) => matchCursorRetriableDiagnostic(facts.message).matched,
};
