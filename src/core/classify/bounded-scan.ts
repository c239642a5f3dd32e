/**
 * A branch written as a scan from the start of the text: `^(?!LOOK)[\s\S]{0,N}?(?:A|B|...)`, where LOOK is
 * `[\s\S]{0,M}?REST` (the shape of the catalogue's `notTheModelCall` and `notTheProviderAccount` vetoes, anchored so
 * that the text is read once, not once per position). Run as one expression, it tries each of its hundred
 * alternatives at every position of the text. Its answer does not depend on that order: without the `m` flag `^` is
 * the start of the text, and every assertion inside (`\b`, `^`, a lookbehind) reads the text around a position, not
 * where the match began. So the branch matches exactly when some alternative first matches at N or before and REST
 * does not first match at M or before; each alternative is searched alone, and only where the text holds its
 * trigrams (as `PrunedPattern` does for a pattern's top-level branches), each shared by every pattern that has it.
 */

import type { GateList, GateListArrays, GramTable, Requirement } from './required-grams.js';
import { compileGateList, gateListFrom } from './required-grams.js';
import { classEnd, topLevelBranches } from './regex-source.js';

/** What a scan needs of a branch: where it first matches a text (-1 for nowhere), and what it requires. */
export interface SearchBranch {
  readonly requirement: Requirement;
  search(text: string, grams: GramTable): number;
}

/** The parts of a scan source: its lookahead's searched rest and bound (null when it has none), and its alternatives. */
export interface ScanShape {
  readonly look: { readonly source: string; readonly limit: number } | null;
  readonly limit: number;
  readonly alternatives: readonly string[];
}

/** A scan's gates as the build prepares them: one per alternative, in order, and its lookahead's rest's (or null). */
export interface ScanGates {
  readonly alternatives: GateListArrays;
  readonly look: GateListArrays | null;
}

/** A lazy or greedy run of any characters with a bound, at the start of a source: `[\s\S]{0,N}?`. */
const anyRun = /^\[\\s\\S\]\{0,(\d{1,9})\}\??/;

/**
 * The shape of `source` when it is a scan from the start of the text (see above) under `flags`, else null. `flags`
 * must not hold `m` (`^` would be every line's start), nor any flag `PrunedPattern` does not split under.
 */
export function scanShapeOf(source: string, flags: string): ScanShape | null {
  if (/[gimuvy]/.test(flags) || !source.startsWith('^')) return null;
  let at = 1;
  let look: ScanShape['look'] = null;
  if (source.startsWith('(?!', at)) {
    const close = groupEnd(source, at);
    if (close < 0) return null;
    const inner = source.slice(at + 3, close);
    const run = anyRun.exec(inner);
    if (run === null) return null;
    const rest = inner.slice(run[0].length);
    if (!isOneBranch(rest)) return null;
    look = { source: rest, limit: Number(run[1]) };
    at = close + 1;
  }
  const run = anyRun.exec(source.slice(at));
  if (run === null) return null;
  at += run[0].length;
  const rest = source.slice(at);
  if (!isOneBranch(rest)) return null;
  // `(?:A|B|...)` spanning the rest is its alternatives; anything else is one alternative.
  const alternatives =
    rest.startsWith('(?:') && groupEnd(rest, 0) === rest.length - 1
      ? topLevelBranches(rest.slice(3, -1), true)
      : [rest];
  if (alternatives === null) return null;
  return { look, limit: Number(run[1]), alternatives };
}

/** The index of the `)` closing the group opened at `open`, or -1 (escapes and classes respected). */
function groupEnd(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(source, i);
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

/** Whether `source` is one branch: balanced, without a capturing group or a bar at its top level. */
function isOneBranch(source: string): boolean {
  return topLevelBranches(source, true)?.length === 1;
}

/**
 * A scan branch run as its alternatives (see above). Where it matches is always 0, the start of the text; like a
 * plain branch it keeps the answer for the last text it read.
 */
export class ScanBranch implements SearchBranch {
  private own: Requirement | undefined;
  private gates: GateList | undefined;
  private held: Int32Array | undefined;
  private lookGates: GateList | undefined;
  private readonly lookHeld = new Int32Array(1);
  private lastText: string | null = null;
  private lastIndex = -1;

  /**
   * `read`: the scan's own requirement, read when first asked for (only a pattern prepared without the build's
   * table asks). `prepared`: its gates as the build prepared them (src/core/classify/prepared-gates.ts), or
   * undefined to lay them out from the alternatives' requirements at the first run.
   */
  constructor(
    private readonly read: () => Requirement,
    private readonly look: { readonly branch: SearchBranch; readonly limit: number } | null,
    private readonly alternatives: readonly SearchBranch[],
    private readonly limit: number,
    private readonly prepared?: ScanGates,
  ) {}

  get requirement(): Requirement {
    return (this.own ??= this.read());
  }

  /** This scan's gates as `matches` lays them out without a prepared table (for the build and its test). */
  gatesForBuild(): { readonly alternatives: GateList; readonly look: GateList | null } {
    return { alternatives: this.alternativeGates(false), look: this.lookGateList(false) };
  }

  search(text: string, grams: GramTable): number {
    if (text !== this.lastText) {
      this.lastIndex = this.matches(text, grams) ? 0 : -1;
      this.lastText = text;
    }
    return this.lastIndex;
  }

  private matches(text: string, grams: GramTable): boolean {
    // Gates built at the first run, not when the catalogue is compiled: most processes meet few scans.
    const gates = (this.gates ??= this.alternativeGates(true));
    const held = (this.held ??= new Int32Array(this.alternatives.length));
    const count = grams.select(gates, text, held);
    let found = false;
    for (let i = 0; i < count && !found; i++) {
      const at = this.alternatives[held[i]!]!.search(text, grams);
      found = at >= 0 && at <= this.limit;
    }
    if (!found || this.look === null) return found;
    const lookGates = (this.lookGates ??= this.lookGateList(true)!);
    if (grams.select(lookGates, text, this.lookHeld) === 0) return true;
    const at = this.look.branch.search(text, grams);
    return !(at >= 0 && at <= this.look.limit);
  }

  /** A gate per alternative: prepared at build time when `usePrepared` and there is one, else read now. */
  private alternativeGates(usePrepared: boolean): GateList {
    if (usePrepared && this.prepared !== undefined) return gateListFrom(this.prepared.alternatives);
    return compileGateList(this.alternatives.map((a) => a.requirement));
  }

  /** The lookahead's rest's gate (null without a lookahead), prepared or read as `alternativeGates`. */
  private lookGateList(usePrepared: boolean): GateList | null {
    if (this.look === null) return null;
    if (usePrepared && this.prepared?.look) return gateListFrom(this.prepared.look);
    return compileGateList([this.look.branch.requirement]);
  }
}
