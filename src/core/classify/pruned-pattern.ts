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
  gateListArrays,
  gateListFrom,
  type GateList,
  type GramTable,
  requiredGrams,
  requiredGramsOf,
  type Requirement,
} from './required-grams.js';
import { compiledNow } from '../text/compiled-now.js';
import { preparedGates, preparedScans, type PreparedGates, type PreparedScan } from './prepared-gates.js';
import { ScanBranch, scanShapeOf, type SearchBranch } from './bounded-scan.js';
import { topLevelBranches } from './regex-source.js';

/** Fewer top-level branches than this are not split: one gate for the whole pattern, as before. */
export const minBranches = 8;
/**
 * More branches held than this are run together, as the whole pattern (one scan of the text, not one each). The
 * whole pattern is compiled at its first run, every branch of it: 40 ms and more for the biggest alternations
 * (`local.foreign_host.v1`'s veto, 111 branches), a cost each fresh process pays once, about what thousands of warm
 * classifications take. Held counts over the corpus stay at 8 or below, so this bound is reached only by
 * unusual text; below it, branches run alone cost no more warm than the whole pattern (speed audit 2).
 */
const maxSeparate = 16;

/**
 * The top-level branches of a regular-expression source (split at each `|` outside groups and classes, escapes
 * respected), or null when it has a capturing group (named or not): a group's number or name would change with
 * the branches left out, and with it what a back reference or a caller reading captures sees. Not for Unicode
 * (`u`, `v`) sources, whose classes nest.
 */
export function splitAlternation(source: string): string[] | null {
  return topLevelBranches(source, false);
}

/**
 * One top-level branch, shared by every pattern of a catalogue that has it (the vetoes of `local.foreign_host.v1`
 * and `local.tool_wording.v1` share the model-target table's hundred branches; 143 branches in all appear in more
 * than one pattern): its requirement is read once, its expression compiled once, the first time a gate lets a text
 * through to it, and where it first matches the last text it ran on is kept, so a second pattern asking about the
 * same text does not scan it again. A text is compared by value: an equal text has the same answer.
 */
class Branch implements SearchBranch {
  private read: Requirement | undefined;
  private expression: RegExp | undefined;
  private lastText: string | null = null;
  private lastIndex = -1;

  constructor(
    private readonly source: string,
    private readonly flags: string,
  ) {}

  /** What the branch needs of a text, read the first time it is asked for (not when its gates were prepared). */
  get requirement(): Requirement {
    return (this.read ??= requiredGramsOf(this.source, this.flags));
  }

  /** Where the branch first matches `text`, or -1. */
  search(text: string, _grams?: GramTable): number {
    if (text !== this.lastText) {
      // Neither `g` nor `y`: the expression keeps no position between runs, so one copy serves every pattern.
      const m = (this.expression ??= compiledNow(new RegExp(this.source, this.flags))).exec(text);
      this.lastIndex = m === null ? -1 : m.index;
      this.lastText = text;
    }
    return this.lastIndex;
  }
}

/**
 * The branches of a catalogue's split patterns, by flags and source: one table per compiled catalogue, so a branch
 * two rules share is compiled and run once (a compiled catalogue is used by one classification at a time).
 */
export class BranchTable {
  private readonly branches = new Map<string, SearchBranch>();

  /**
   * `prepared`: gates prepared at build time, by flags and source of the whole pattern (`preparedGates`); `scans`:
   * those of the scans among the branches, by flags and source of the scan (`preparedScans`).
   */
  constructor(
    readonly prepared: ReadonlyMap<string, PreparedGates> = preparedGates,
    private readonly scans: ReadonlyMap<string, PreparedScan> = preparedScans,
  ) {}

  /**
   * The branch of that source under those flags (flags without `g`, `y`, `i`, `u` or `v`): a scan from the start of
   * the text (src/core/classify/bounded-scan.ts) runs as its alternatives, each shared like any other branch.
   */
  get(source: string, flags: string): SearchBranch {
    const key = `${flags}/${source}`;
    let branch = this.branches.get(key);
    if (branch === undefined) {
      const prepared = this.scans.get(key);
      const shape = prepared?.shape ?? scanShapeOf(source, flags);
      branch =
        shape === null
          ? new Branch(source, flags)
          : new ScanBranch(
              () => requiredGramsOf(source, flags),
              shape.look && { branch: this.get(shape.look.source, flags), limit: shape.look.limit },
              shape.alternatives.map((alternative) => this.get(alternative, flags)),
              shape.limit,
              prepared,
            );
      this.branches.set(key, branch);
    }
    return branch;
  }

  /**
   * The gates of every scan this table has met, laid out from their alternatives' requirements as without a
   * prepared table, by `${flags}/${source}` (for scripts/build-prepared-gates.mjs, after `gatesForBuild` of every
   * pattern has met them).
   */
  scansForBuild(): Map<string, PreparedScan> {
    const scans = new Map<string, PreparedScan>();
    for (const [key, branch] of this.branches) {
      if (!(branch instanceof ScanBranch)) continue;
      const { alternatives, look } = branch.gatesForBuild();
      const flags = key.slice(0, key.indexOf('/'));
      scans.set(key, {
        shape: scanShapeOf(key.slice(flags.length + 1), flags)!,
        alternatives: gateListArrays(alternatives),
        look: look === null ? null : gateListArrays(look),
      });
    }
    return scans;
  }

  /** Whether the branch of that source under those flags is a scan (it is never run as part of a whole pattern). */
  isScan(source: string, flags: string): boolean {
    return this.get(source, flags) instanceof ScanBranch;
  }
}

interface Prepared {
  /** The branches, each run alone where its gate holds; null when the pattern runs whole. */
  readonly branches: readonly SearchBranch[] | null;
  /** Whether a branch is a scan: then the branches never run together as the whole pattern. */
  readonly separate: boolean;
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
  /** Whether the whole pattern has been compiled (`compiledNow`), the first time it runs. */
  private wholeCompiled = false;

  /** `branches`: where the split branches come from, shared with the other patterns of the same catalogue. */
  constructor(
    readonly pattern: RegExp,
    private readonly branchTable: BranchTable = new BranchTable(),
  ) {}

  /** Where the pattern's first match in `text` starts, or -1 when it does not match. */
  search(text: string, grams: GramTable): number {
    const prepared = (this.prepared ??= this.prepare());
    const count = grams.select(prepared.gates, text, prepared.held);
    if (count === 0) return -1;
    if (prepared.branches === null || (count > maxSeparate && !prepared.separate)) {
      const m = this.whole().exec(text);
      return m === null ? -1 : m.index;
    }
    const branches = prepared.branches;
    let first = -1;
    for (let i = 0; i < count && first !== 0; i++) {
      const at = branches[prepared.held[i]!]!.search(text, grams);
      if (at >= 0 && (first < 0 || at < first)) first = at;
    }
    return first;
  }

  /** Whether the pattern matches `text`. */
  test(text: string, grams: GramTable): boolean {
    const prepared = (this.prepared ??= this.prepare());
    const count = grams.select(prepared.gates, text, prepared.held);
    if (count === 0) return false;
    if (prepared.branches === null || (count > maxSeparate && !prepared.separate))
      return this.whole().test(text);
    const branches = prepared.branches;
    for (let i = 0; i < count; i++) if (branches[prepared.held[i]!]!.search(text, grams) >= 0) return true;
    return false;
  }

  private whole(): RegExp {
    if (!this.wholeCompiled) {
      compiledNow(this.pattern);
      this.wholeCompiled = true;
    }
    return this.pattern;
  }

  private prepare(): Prepared {
    const { source, flags } = this.pattern;
    const prebuilt = this.branchTable.prepared.get(`${flags}/${source}`);
    if (prebuilt !== undefined) return this.fromPrebuilt(prebuilt, flags);
    const sources = /[giuvy]/.test(flags) ? null : splitAlternation(source);
    // A pattern with a scan among its branches is split however few they are: run whole, it would try the scan's
    // alternatives at every position of the text.
    const separate = sources !== null && sources.some((branch) => this.branchTable.isScan(branch, flags));
    if (sources !== null && (sources.length >= minBranches || separate)) {
      // A top-level branch of a valid expression without capturing groups is valid alone (its groups and classes
      // close within it): read without being built here, built when its gate first holds.
      const branches = sources.map((branch) => this.branchTable.get(branch, flags));
      const requirements = branches.map((branch) => branch.requirement);
      if (separate || requirements.some((r) => r.kind !== 'none')) {
        return {
          branches,
          separate,
          gates: compileGateList(requirements),
          held: new Int32Array(branches.length),
        };
      }
    }
    return {
      separate: false,
      branches: null,
      gates: compileGateList([requiredGrams(this.pattern)]),
      held: new Int32Array(1),
    };
  }

  /** What `prepare` would return, from the gates prepared at build time for this pattern. */
  private fromPrebuilt(prebuilt: PreparedGates, flags: string): Prepared {
    const branches = prebuilt.branches?.map((branch) => this.branchTable.get(branch, flags)) ?? null;
    return {
      branches,
      separate: prebuilt.branches?.some((branch) => this.branchTable.isScan(branch, flags)) ?? false,
      gates: gateListFrom(prebuilt),
      held: new Int32Array(branches?.length ?? 1),
    };
  }

  /**
   * The gates of this pattern as `prepare` computes them, in the form of `PreparedGates` (for the build script
   * that writes them into `dist`: scripts/build-prepared-gates.mjs).
   */
  gatesForBuild(): PreparedGates {
    const prepared = this.prepare();
    return {
      branches: prepared.branches === null ? null : splitAlternation(this.pattern.source),
      ...gateListArrays(prepared.gates),
    };
  }
}
