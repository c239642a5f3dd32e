/**
 * A rule pattern run only as far as the text allows. A pattern whose top level is a long alternation
 * (`\bnpm\b...|\bgitlab\b...|...`, a hundred branches) passes its trigram gate as soon as one branch's trigrams
 * are in the text, and then every branch is tried at every position. Each branch has a gate of its own, and only
 * the branches whose gates hold are run, each alone (compiled once, with the pattern's flags). A branch refused by
 * its gate matches nowhere in the text, so the pattern matches where one of the branches run matches: its first
 * match starts at the smallest of their first matches' starts, and it matches at all when one of them does.
 */

import {
  compileGateList,
  type GateList,
  type GramTable,
  requiredGrams,
  requiredGramsOf,
} from './required-grams.js';

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

interface Prepared {
  /** The branches, each run alone where its gate holds; null when the pattern runs whole. */
  readonly branches: readonly string[] | null;
  /** Each branch as an expression of its own, compiled the first time its gate holds. */
  readonly expressions: Array<RegExp | undefined>;
  /** A gate per branch, or one for the whole pattern. */
  readonly gates: GateList;
  /** Scratch: the indices of the gates held for the current text. */
  readonly held: Int32Array;
}

/**
 * A pattern and its gates, prepared the first time its rule is a candidate. Only where its first match starts, or
 * whether it matches, is answered (not what it matched, nor its groups): a pattern with a capturing group, the `g`
 * or `y` flag (a position kept between runs) or case folding is not split, only gated as a whole.
 */
export class PrunedPattern {
  private prepared: Prepared | undefined;

  constructor(readonly pattern: RegExp) {}

  /** Where the pattern's first match in `text` starts, or -1 when it does not match. */
  search(text: string, grams: GramTable): number {
    const prepared = (this.prepared ??= this.prepare());
    const count = grams.select(prepared.gates, text, prepared.held);
    if (count === 0) return -1;
    if (prepared.branches === null || count > maxSeparate) {
      const m = this.pattern.exec(text);
      return m === null ? -1 : m.index;
    }
    let first = -1;
    for (let i = 0; i < count && first !== 0; i++) {
      const m = this.branch(prepared, prepared.held[i]!).exec(text);
      if (m !== null && (first < 0 || m.index < first)) first = m.index;
    }
    return first;
  }

  /** Whether the pattern matches `text`. */
  test(text: string, grams: GramTable): boolean {
    const prepared = (this.prepared ??= this.prepare());
    const count = grams.select(prepared.gates, text, prepared.held);
    if (count === 0) return false;
    if (prepared.branches === null || count > maxSeparate) return this.pattern.test(text);
    for (let i = 0; i < count; i++) if (this.branch(prepared, prepared.held[i]!).test(text)) return true;
    return false;
  }

  private branch(prepared: Prepared, k: number): RegExp {
    return (prepared.expressions[k] ??= new RegExp(prepared.branches![k]!, this.pattern.flags));
  }

  private prepare(): Prepared {
    const { source, flags } = this.pattern;
    const branches = /[giuvy]/.test(flags) ? null : splitAlternation(source);
    if (branches !== null && branches.length >= minBranches) {
      // A top-level branch of a valid expression without capturing groups is valid alone (its groups and classes
      // close within it): read without being built here, built when its gate first holds.
      const requirements = branches.map((branch) => requiredGramsOf(branch, flags));
      if (requirements.some((r) => r.kind !== 'none')) {
        return {
          branches,
          expressions: new Array<RegExp | undefined>(branches.length),
          gates: compileGateList(requirements),
          held: new Int32Array(branches.length),
        };
      }
    }
    return {
      branches: null,
      expressions: [],
      gates: compileGateList([requiredGrams(this.pattern)]),
      held: new Int32Array(1),
    };
  }
}
