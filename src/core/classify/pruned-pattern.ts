/**
 * A rule pattern run only as far as the text allows. A pattern whose top level is a long alternation
 * (`\bnpm\b...|\bgitlab\b...|...`, a hundred branches) passes its trigram gate as soon as one branch's trigrams
 * are in the text, and then every branch is tried at every position. Each branch has a gate of its own, and only
 * the branches whose gates hold are run, each alone (compiled once, with the pattern's flags). A branch refused by
 * its gate matches nowhere in the text, so the pattern matches where one of the branches run matches: its first
 * match starts at the smallest of their first matches' starts, and it matches at all when one of them does.
 */

import { compileGateList, type GateList, type GramTable, LazyGate, requiredGrams } from './required-grams.js';

/** Fewer top-level branches than this are not split: one gate for the whole pattern, as before. */
export const minBranches = 8;
/** More branches held than this are run together, as the whole pattern (one scan of the text, not one each). */
const maxSeparate = 4;

/**
 * The top-level branches of a regular-expression source (split at each `|` outside groups and classes, escapes
 * respected), or null when it has a capturing group (named or not): a group's number or name would change with
 * the branches left out, and with it what a back reference or a caller reading captures sees. Not for Unicode
 * (`u`, `v`) sources, whose classes nest.
 */
export function splitAlternation(source: string): string[] | null {
  const branches: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '[') {
      // A class ends at its first unescaped `]` (`[]` is empty and `[^]` any character in this syntax).
      i++;
      if (source[i] === '^') i++;
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
    } else if (c === '(') {
      if (source[i + 1] !== '?') return null;
      if (source[i + 2] === '<' && source[i + 3] !== '=' && source[i + 3] !== '!') return null;
      depth++;
    } else if (c === ')') depth--;
    else if (c === '|' && depth === 0) {
      branches.push(source.slice(from, i));
      from = i + 1;
    }
  }
  branches.push(source.slice(from));
  return branches;
}

interface Split {
  readonly branches: readonly string[];
  /** Each branch as an expression of its own, compiled the first time its gate holds. */
  readonly expressions: Array<RegExp | undefined>;
  readonly gates: GateList;
  /** Scratch: the indices of the branches held for the current text. */
  readonly held: Int32Array;
}

/**
 * A pattern and its gates, prepared the first time its rule is a candidate. Only where its first match starts, or
 * whether it matches, is answered (not what it matched, nor its groups): a pattern with a capturing group, the `g`
 * or `y` flag (a position kept between runs) or case folding is not split, only gated as a whole.
 */
export class PrunedPattern {
  private split: Split | null | undefined;
  private readonly whole: LazyGate;

  constructor(readonly pattern: RegExp) {
    this.whole = new LazyGate(pattern);
  }

  /** Where the pattern's first match in `text` starts, or -1 when it does not match. */
  search(text: string, grams: GramTable): number {
    if (this.split === undefined) this.split = this.prepare();
    const split = this.split;
    if (split === null) return grams.allows(this.whole.get(), text) ? this.wholeSearch(text) : -1;
    const count = grams.select(split.gates, text, split.held);
    if (count > maxSeparate) return this.wholeSearch(text);
    let first = -1;
    for (let i = 0; i < count && first !== 0; i++) {
      const m = this.branch(split, split.held[i]!).exec(text);
      if (m !== null && (first < 0 || m.index < first)) first = m.index;
    }
    return first;
  }

  /** Whether the pattern matches `text`. */
  test(text: string, grams: GramTable): boolean {
    if (this.split === undefined) this.split = this.prepare();
    const split = this.split;
    if (split === null) return grams.allows(this.whole.get(), text) && this.pattern.test(text);
    const count = grams.select(split.gates, text, split.held);
    if (count > maxSeparate) return this.pattern.test(text);
    for (let i = 0; i < count; i++) if (this.branch(split, split.held[i]!).test(text)) return true;
    return false;
  }

  private wholeSearch(text: string): number {
    const m = this.pattern.exec(text);
    return m === null ? -1 : m.index;
  }

  private branch(split: Split, k: number): RegExp {
    return (split.expressions[k] ??= new RegExp(split.branches[k]!, this.pattern.flags));
  }

  private prepare(): Split | null {
    const { source, flags } = this.pattern;
    if (/[giuvy]/.test(flags)) return null;
    const branches = splitAlternation(source);
    if (branches === null || branches.length < minBranches) return null;
    try {
      const requirements = branches.map((branch) => requiredGrams(new RegExp(branch, flags)));
      if (requirements.every((r) => r.kind === 'none')) return null;
      return {
        branches,
        expressions: new Array<RegExp | undefined>(branches.length),
        gates: compileGateList(requirements),
        held: new Int32Array(branches.length),
      };
    } catch {
      return null;
    }
  }
}
