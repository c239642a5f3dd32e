/**
 * What text a regular expression cannot match without: the three-character sequences (trigrams) of its literal
 * runs, combined as its alternations and groups combine them (`invalid (?:base url|endpoint)` needs `inv`, `nva`,
 * ... and then `bas`... or `end`...). A rule whose required trigrams are not all in the evidence's text cannot
 * match, so its expression need not run: a prefilter that never refuses a text the expression would match (it may
 * let through one it does not). Optional parts (`?`, `*`, `{0,n}`), classes, lookarounds and back references
 * require nothing; an expression this reader does not follow requires nothing at all.
 */

import { gramSlot, gramSlots, type TrigramTable } from '../text/trigrams.js';

/**
 * `String.prototype.charCodeAt` called explicitly, inlined whatever the text's representation (see
 * src/core/sanitize/secret-patterns.ts: `text.charCodeAt` over many representations is a generic call per character).
 */
// eslint-disable-next-line @typescript-eslint/unbound-method -- always called with its receiver: charCodeAt.call(text, i)
const charCodeAt = String.prototype.charCodeAt;

/** A requirement: nothing, one trigram (by its slot), all of some, or any of some. */
export type Requirement =
  | { readonly kind: 'none' }
  | { readonly kind: 'gram'; readonly slot: number }
  | { readonly kind: 'all'; readonly parts: readonly Requirement[] }
  | { readonly kind: 'any'; readonly parts: readonly Requirement[] };

const none: Requirement = { kind: 'none' };

/**
 * The requirement of `expression` over the texts it is run on. Expressions with the `i`, `u` or `v` flag are
 * not read (case folding and Unicode escapes change what a literal is): they require nothing.
 */
export function requiredGrams(expression: RegExp): Requirement {
  return requiredGramsOf(expression.source, expression.flags);
}

/** `requiredGrams` of an expression's source and flags, without building the expression. */
export function requiredGramsOf(source: string, flags: string): Requirement {
  if (/[iuv]/.test(flags)) return none;
  try {
    const reader = new Reader(source);
    const requirement = reader.alternation();
    return reader.done() ? requirement : none;
  } catch {
    return none;
  }
}

function all(parts: Requirement[]): Requirement {
  const kept = parts.filter((p) => p.kind !== 'none');
  if (kept.length === 0) return none;
  return kept.length === 1 ? kept[0]! : { kind: 'all', parts: kept };
}

function any(parts: Requirement[]): Requirement {
  if (parts.length === 0 || parts.some((p) => p.kind === 'none')) return none;
  return parts.length === 1 ? parts[0]! : { kind: 'any', parts };
}

/**
 * The trigrams of a literal run, all required, the least common first; a run shorter than three requires nothing.
 * Order never changes the answer, only the cost: a gate reads a run's first trigram as its cover (`cover`) and
 * checks the rest in order, so a trigram most texts hold (` er`, `err`, `ion`) first lets most texts through to
 * the whole gate; one that few hold (`quo`, `40x`) refuses them at the first check.
 */
function runRequirement(run: number[]): Requirement {
  const grams: Array<{ kind: 'gram'; slot: number; weight: number }> = [];
  for (let i = 0; i + 2 < run.length; i++) {
    const [a, b, c] = [run[i]!, run[i + 1]!, run[i + 2]!];
    grams.push({
      kind: 'gram',
      slot: gramSlot(a, b, c),
      weight: commonness(a) + commonness(b) + commonness(c),
    });
  }
  // Stable: among equally common trigrams the run's order stays.
  grams.sort((x, y) => x.weight - y.weight);
  return all(grams.map(({ slot }) => ({ kind: 'gram', slot })));
}

/**
 * How common a character is in English text, roughly (letters by their usual frequency rank, the blank commonest):
 * a trigram of common characters is held by more texts. Digits and punctuation count as rare letters; characters
 * outside ASCII as the rarest. A guess that only orders checks, read from general letter frequencies, not tuned on
 * the corpus.
 */
function commonness(code: number): number {
  return code < 128 ? asciiCommonness[code]! : 0;
}
const frequencyOrder = ' etaoinsrhldcumfpgwybvkxjqz';
/** `commonness` of each ASCII code, read from `frequencyOrder` once. */
const asciiCommonness = Uint8Array.from({ length: 128 }, (_, code) => {
  const rank = frequencyOrder.indexOf(String.fromCharCode(code));
  return rank >= 0 ? frequencyOrder.length - rank : 2;
});

/** A braced quantifier, read in place (sticky): `{3}`, `{0,}`, `{1,12}`, with as many digits as it has. */
const braced = /\{(\d+)(,(\d*))?\}/y;

/** Escapes that stand for one literal character. */
const controlEscapes: Record<string, number> = { n: 10, r: 13, t: 9, f: 12, v: 11 };

/** A recursive-descent reader of the (non-Unicode) regular-expression grammar, enough to find literal runs. */
class Reader {
  private at = 0;

  constructor(private readonly source: string) {}

  done(): boolean {
    return this.at === this.source.length;
  }

  /** Branches separated by `|`, up to a `)` or the end. */
  alternation(): Requirement {
    const branches = [this.sequence()];
    while (this.source[this.at] === '|') {
      this.at++;
      branches.push(this.sequence());
    }
    return any(branches);
  }

  /** Atoms one after another: literal characters join the current run; anything else ends it. */
  private sequence(): Requirement {
    const parts: Requirement[] = [];
    let run: number[] = [];
    const endRun = () => {
      parts.push(runRequirement(run));
      run = [];
    };
    while (this.at < this.source.length) {
      const c = this.source[this.at]!;
      if (c === '|' || c === ')') break;
      const atom = this.atom();
      const { min } = this.quantifier();
      if (atom.kind === 'char') {
        if (min === 0) endRun();
        else {
          run.push(atom.code);
          // A repeated character still follows the run once; what comes after it may not be adjacent.
          if (min !== 1) endRun();
        }
        continue;
      }
      endRun();
      if (atom.kind === 'group' && min > 0) parts.push(atom.requirement);
    }
    endRun();
    return all(parts);
  }

  /** One atom: a literal character, a group, or something that requires nothing (a class, an assertion). */
  private atom():
    { kind: 'char'; code: number } | { kind: 'group'; requirement: Requirement } | { kind: 'other' } {
    const s = this.source;
    const c = s[this.at]!;
    if (c === '(') return this.group();
    if (c === '[') {
      this.skipClass();
      return { kind: 'other' };
    }
    if (c === '.' || c === '^' || c === '$') {
      this.at++;
      return { kind: 'other' };
    }
    if (c === '*' || c === '+' || c === '?') throw new Error('a quantifier with nothing to repeat');
    if (c === '\\') return this.escape();
    if (c === '{' && this.quantifierAt(this.at) !== null)
      throw new Error('a quantifier with nothing to repeat');
    this.at++;
    return { kind: 'char', code: c.charCodeAt(0) };
  }

  private escape(): { kind: 'char'; code: number } | { kind: 'other' } {
    const s = this.source;
    const e = s[this.at + 1];
    if (e === undefined) throw new Error('a trailing backslash');
    this.at += 2;
    if (e in controlEscapes) return { kind: 'char', code: controlEscapes[e]! };
    if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(s.slice(this.at, this.at + 2))) {
      this.at += 2;
      return { kind: 'char', code: parseInt(s.slice(this.at - 2, this.at), 16) };
    }
    if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(this.at, this.at + 4))) {
      this.at += 4;
      return { kind: 'char', code: parseInt(s.slice(this.at - 4, this.at), 16) };
    }
    // Classes (\d \s \w ...), assertions (\b \B), back references, \c, \k, \0 and what this reader does not
    // know stand for no one character: they end the run.
    if (/[0-9a-zA-Z]/.test(e)) {
      if (e === 'c' || e === 'k') throw new Error('an escape this reader does not follow');
      // Digits after a digit escape belong to it (`\012` is one line feed, `\10` a back reference or octal): taking
      // them all may take a literal digit too, which only asks for less.
      if (e >= '0' && e <= '9') while (/[0-9]/.test(s[this.at] ?? '')) this.at++;
      return { kind: 'other' };
    }
    // An escaped punctuation character is itself.
    return { kind: 'char', code: e.charCodeAt(0) };
  }

  private group(): { kind: 'group'; requirement: Requirement } | { kind: 'other' } {
    const s = this.source;
    this.at++;
    let lookaround = false;
    if (s[this.at] === '?') {
      const rest = s.slice(this.at, this.at + 3);
      if (rest.startsWith('?:')) this.at += 2;
      else if (rest.startsWith('?=') || rest.startsWith('?!')) {
        this.at += 2;
        lookaround = true;
      } else if (rest === '?<=' || rest === '?<!') {
        this.at += 3;
        lookaround = true;
      } else if (rest.startsWith('?<')) {
        const close = s.indexOf('>', this.at);
        if (close < 0) throw new Error('an unterminated group name');
        this.at = close + 1;
      } else throw new Error('a group this reader does not follow');
    }
    const requirement = this.alternation();
    if (s[this.at] !== ')') throw new Error('an unclosed group');
    this.at++;
    return lookaround ? { kind: 'other' } : { kind: 'group', requirement };
  }

  private skipClass(): void {
    const s = this.source;
    this.at++;
    if (s[this.at] === '^') this.at++;
    while (this.at < s.length && s[this.at] !== ']') this.at += s[this.at] === '\\' ? 2 : 1;
    if (this.at >= s.length) throw new Error('an unclosed class');
    this.at++;
  }

  /** The quantifier after an atom (consumed): 0 optional, 1 exactly once (also when there is none), 2 repeated. */
  private quantifier(): { min: number } {
    const s = this.source;
    const c = s[this.at];
    let min = 1;
    if (c === '?' || c === '*') {
      min = 0;
      this.at++;
    } else if (c === '+') {
      min = 2;
      this.at++;
    } else if (c === '{') {
      const braced = this.quantifierAt(this.at);
      if (braced === null) return { min: 1 };
      this.at = braced.end;
      // {1} is the atom once; {0,...} is optional; anything else repeats it (a run cannot go on across it).
      min = braced.min === 0 ? 0 : braced.min === 1 && braced.max === 1 ? 1 : 2;
    } else return { min };
    if (s[this.at] === '?') this.at++;
    return { min };
  }

  /** A `{n}`, `{n,}` or `{n,m}` quantifier at `at` (digits of any length), or null when the brace is a literal `{`. */
  private quantifierAt(at: number): { min: number; max: number; end: number } | null {
    braced.lastIndex = at;
    const m = braced.exec(this.source);
    if (m === null) return null;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    return { min, max, end: at + m[0].length };
  }
}

/**
 * A gate's word for a node with children: all of them, any of them, or all of them when every child is a trigram
 * (the commonest node, a literal run, read in a loop of its own). A trigram's word is its slot, >= 0.
 */
const allNode = -1;
const anyNode = -2;
const allTrigramsNode = -3;
/**
 * A choice among literal runs (each a trigram or all of some), laid out for one tight loop: the kind, the end, the
 * number of runs, each run's first trigram, then where each run's other trigrams start (one more entry, the end of
 * the last), then those trigrams. Most runs of a big alternation are refused at their first trigram, read here from
 * consecutive slots.
 */
const anyRunsNode = -4;

/**
 * A requirement as a gate the classifier evaluates without allocating: the requirement's tree, flattened in
 * prefix order into one array. A trigram is its slot; a node with children is its kind (`allNode`, `anyNode`,
 * `allTrigramsNode`), the index just past its last child, then its children (an `anyRunsNode` has the layout its comment gives). Evaluated as a tree, a choice between many alternatives
 * costs one check per alternative, not one per combination (as a list of conjunctions would). Null requires
 * nothing.
 */
export type Gate = Int32Array | null;

function compileGate(requirement: Requirement): Gate {
  if (requirement.kind === 'none') return null;
  const out: number[] = [];
  write(requirement, out);
  return Int32Array.from(out);
}

function write(requirement: Requirement, out: number[]): void {
  switch (requirement.kind) {
    case 'none':
      // `all` and `any` drop or absorb their `none` parts (see all() and any()): never written.
      throw new Error('a gate has no node for nothing');
    case 'gram':
      out.push(requirement.slot);
      return;
    case 'all':
    case 'any': {
      if (requirement.kind === 'any' && writeAnyRuns(requirement.parts, out)) return;
      const at = out.length;
      const flat = requirement.kind === 'all' && requirement.parts.every((part) => part.kind === 'gram');
      out.push(flat ? allTrigramsNode : requirement.kind === 'all' ? allNode : anyNode, 0);
      // Trigrams before subtrees: the cheap checks of a conjunction refuse most texts first. Order never
      // changes the answer.
      const parts = [...requirement.parts].sort(
        (x, y) => (x.kind === 'gram' ? 0 : 1) - (y.kind === 'gram' ? 0 : 1),
      );
      for (const part of parts) write(part, out);
      out[at + 1] = out.length;
    }
  }
}

/** The trigram slots of a run, or null when `requirement` is not one. */
function runOf(requirement: Requirement): number[] | null {
  if (requirement.kind === 'gram') return [requirement.slot];
  if (requirement.kind !== 'all') return null;
  const slots: number[] = [];
  for (const part of requirement.parts) {
    if (part.kind !== 'gram') return null;
    slots.push(part.slot);
  }
  return slots;
}

/**
 * Writes a choice with at least four runs among its parts as an `anyRunsNode` (alone, or as the first child of an
 * `anyNode` holding the other parts; either way the same choice) and says whether it did.
 */
function writeAnyRuns(parts: readonly Requirement[], out: number[]): boolean {
  const runs: number[][] = [];
  const others: Requirement[] = [];
  for (const part of parts) {
    const run = runOf(part);
    if (run === null) others.push(part);
    else runs.push(run);
  }
  if (runs.length < 4) return false;
  const outer = out.length;
  if (others.length > 0) out.push(anyNode, 0);
  const at = out.length;
  out.push(anyRunsNode, 0, runs.length);
  for (const run of runs) out.push(run[0]!);
  const starts = out.length;
  for (let k = 0; k <= runs.length; k++) out.push(0);
  for (let k = 0; k < runs.length; k++) {
    out[starts + k] = out.length;
    for (let i = 1; i < runs[k]!.length; i++) out.push(runs[k]![i]!);
  }
  out[starts + runs.length] = out.length;
  out[at + 1] = out.length;
  if (others.length > 0) {
    for (const part of others) write(part, out);
    out[outer + 1] = out.length;
  }
  return true;
}

const isSet = (bits: Uint32Array, slot: number): boolean => (bits[slot >>> 5]! & (1 << (slot & 31))) !== 0;

/** Whether the node of `gate` at `at` holds for the trigrams set in `bits`. */
function holds(gate: Int32Array, at: number, bits: Uint32Array): boolean {
  const head = gate[at]!;
  if (head >= 0) return isSet(bits, head);
  const end = gate[at + 1]!;
  if (head === allTrigramsNode) return allSet(gate, at + 2, end, bits);
  if (head === anyRunsNode) return anyRunHolds(gate, at, bits);
  const wanted = head === anyNode;
  for (let p = at + 2; p < end;) {
    const word = gate[p]!;
    let held: boolean;
    if (word >= 0) {
      held = isSet(bits, word);
      p++;
    } else {
      // A run's trigrams without a call: most alternatives of a choice are runs, refused at their first trigram.
      held = word === allTrigramsNode ? allSet(gate, p + 2, gate[p + 1]!, bits) : holds(gate, p, bits);
      p = gate[p + 1]!;
    }
    if (held === wanted) return wanted;
  }
  return !wanted;
}

/** Whether one run of the `anyRunsNode` at `at` has all its trigrams set. */
function anyRunHolds(gate: Int32Array, at: number, bits: Uint32Array): boolean {
  const count = gate[at + 2]!;
  const firsts = at + 3;
  const starts = firsts + count;
  for (let k = 0; k < count; k++) {
    if (!isSet(bits, gate[firsts + k]!)) continue;
    if (allSet(gate, gate[starts + k]!, gate[starts + k + 1]!, bits)) return true;
  }
  return false;
}

/** Whether every trigram of gate[from, end) is set. */
function allSet(gate: Int32Array, from: number, end: number, bits: Uint32Array): boolean {
  for (let p = from; p < end; p++) if (!isSet(bits, gate[p]!)) return false;
  return true;
}

/**
 * Several gates in one array, one after another (each node's offsets are absolute, so each gate is read in place
 * from its start): `starts[k]` is where gate k begins, or -1 when it requires nothing. Each gate also has a cover,
 * a few trigrams of which the text must hold one for the gate to hold (`cover`):
 * `covers[coverStarts[k], coverStarts[k + 1])`, read first, side by side, so most gates are refused in a check or two.
 */
export interface GateList {
  readonly words: Int32Array;
  readonly starts: Int32Array;
  readonly covers: Int32Array;
  readonly coverStarts: Int32Array;
  /**
   * The commonest case in one read: `firstCover[k]` is gate k's cover when that is one trigram, `coverList` when
   * it is several (read from `covers`), `noCover` when it has none (the gate is read at once), `requiresNothing`
   * when the gate is null.
   */
  readonly firstCover: Int32Array;
}

const coverList = -1;
const requiresNothing = -2;
const noCover = -3;

/** The gates of `requirements`, in their order, as one `GateList`. */
export function compileGateList(requirements: readonly Requirement[]): GateList {
  const out: number[] = [];
  const covers: number[] = [];
  const coverStarts: number[] = [];
  const firstCover: number[] = [];
  const starts = requirements.map((requirement) => {
    coverStarts.push(covers.length);
    if (requirement.kind === 'none') {
      firstCover.push(requiresNothing);
      return -1;
    }
    const slots = cover(requirement) ?? [];
    firstCover.push(slots.length === 0 ? noCover : slots.length === 1 ? slots[0]! : coverList);
    covers.push(...slots);
    const at = out.length;
    write(requirement, out);
    return at;
  });
  coverStarts.push(covers.length);
  return {
    words: Int32Array.from(out),
    starts: Int32Array.from(starts),
    covers: Int32Array.from(covers),
    coverStarts: Int32Array.from(coverStarts),
    firstCover: Int32Array.from(firstCover),
  };
}

/**
 * A `GateList` from its arrays as plain numbers (the gates prepared at build time: src/core/classify/prepared-gates.ts),
 * and back: `gateListFrom(gateListArrays(list))` holds the same numbers as `list`.
 */
export function gateListFrom(arrays: GateListArrays): GateList {
  return {
    words: Int32Array.from(arrays.words),
    starts: Int32Array.from(arrays.starts),
    covers: Int32Array.from(arrays.covers),
    coverStarts: Int32Array.from(arrays.coverStarts),
    firstCover: Int32Array.from(arrays.firstCover),
  };
}

/** The arrays of `list` as plain numbers, as the build writes them. */
export function gateListArrays(list: GateList): GateListArrays {
  return {
    words: Array.from(list.words),
    starts: Array.from(list.starts),
    covers: Array.from(list.covers),
    coverStarts: Array.from(list.coverStarts),
    firstCover: Array.from(list.firstCover),
  };
}

/** The arrays of a `GateList` as plain numbers. */
export interface GateListArrays {
  readonly words: readonly number[];
  readonly starts: readonly number[];
  readonly covers: readonly number[];
  readonly coverStarts: readonly number[];
  readonly firstCover: readonly number[];
}

/** The most trigrams a cover may have: past that, reading it would cost about what the gate does. */
const maxCover = 16;

/**
 * The fewest trigrams found of which a text meeting `requirement` holds at least one: a trigram's own slot; of a
 * conjunction, its part with the smallest cover (a trigram of its own first); of a choice, its parts' covers
 * together. Null for nothing, or when no cover of at most `maxCover` trigrams is found.
 */
function cover(requirement: Requirement): number[] | null {
  switch (requirement.kind) {
    case 'none':
      return null;
    case 'gram':
      return [requirement.slot];
    case 'all': {
      const gram = requirement.parts.find((part) => part.kind === 'gram');
      if (gram !== undefined) return cover(gram);
      let best: number[] | null = null;
      for (const part of requirement.parts) {
        const slots = cover(part);
        if (slots !== null && (best === null || slots.length < best.length)) best = slots;
      }
      return best;
    }
    case 'any': {
      const slots: number[] = [];
      for (const part of requirement.parts) {
        const own = cover(part);
        if (own === null) return null;
        for (const slot of own) if (!slots.includes(slot)) slots.push(slot);
        if (slots.length > maxCover) return null;
      }
      return slots;
    }
  }
}

/**
 * A pattern's gate, built the first time its rule is a candidate: start-up pays only for the rules it uses. `prepared`:
 * the gate's words as the build prepared them (src/core/classify/prepared-gates.ts; null: requires nothing), or
 * undefined to read the pattern.
 */
export class LazyGate {
  private gate: Gate | undefined;

  constructor(
    private readonly pattern: RegExp,
    private readonly prepared?: readonly number[] | null,
  ) {}

  get(): Gate {
    if (this.gate === undefined) {
      if (this.prepared === undefined) this.gate = compileGate(requiredGrams(this.pattern));
      else this.gate = this.prepared === null ? null : Int32Array.from(this.prepared);
    }
    return this.gate;
  }

  /** The gate's words as `get` reads them from the pattern, for the build (scripts/build-prepared-gates.mjs). */
  wordsForBuild(): number[] | null {
    const gate = compileGate(requiredGrams(this.pattern));
    return gate === null ? null : Array.from(gate);
  }
}

/**
 * Which trigrams a text holds, filled once per text and read by every rule's gate: one bit a slot (8 KiB, which
 * stays in cache where the gates' scattered reads land), cleared for each new text.
 */
export class GramTable implements TrigramTable {
  private readonly bits = new Uint32Array(gramSlots / 32);
  private text: string | null = null;

  /** Whether `gate` lets `text` through (the table is filled from `text` when it was filled from another). */
  allows(gate: Gate, text: string): boolean {
    if (gate === null) return true;
    if (this.text !== text) this.fill(text);
    return holds(gate, 0, this.bits);
  }

  /**
   * Which gates of `list` let `text` through: their indices, in order, written to `held` (as long as the list);
   * returns how many.
   */
  select(list: GateList, text: string, held: Int32Array): number {
    if (this.text !== text) this.fill(text);
    const { words, starts, firstCover } = list;
    const bits = this.bits;
    let count = 0;
    for (let k = 0; k < firstCover.length; k++) {
      const first = firstCover[k]!;
      if (first >= 0) {
        if (!isSet(bits, first) || !holds(words, starts[k]!, bits)) continue;
      } else if (first === coverList) {
        const { covers, coverStarts } = list;
        const end = coverStarts[k + 1]!;
        let p = coverStarts[k]!;
        while (p < end && !isSet(bits, covers[p]!)) p++;
        if (p === end || !holds(words, starts[k]!, bits)) continue;
      } else if (first === noCover && !holds(words, starts[k]!, bits)) continue;
      held[count++] = k;
    }
    return count;
  }

  /**
   * Whether `text` may contain the literal whose trigrams are `grams` (`literalGrams`): false only when one of
   * them is missing, so a caller may skip a search for it. A literal shorter than three characters has none and
   * always may.
   */
  mayContain(grams: Int32Array, text: string): boolean {
    if (this.text !== text) this.fill(text);
    return allSet(grams, 0, grams.length, this.bits);
  }

  /** Whether `text` may contain at least one of the literals (each as `literalGrams`). */
  mayContainAny(literals: readonly Int32Array[], text: string): boolean {
    if (this.text !== text) this.fill(text);
    for (let i = 0; i < literals.length; i++) {
      const grams = literals[i]!;
      if (allSet(grams, 0, grams.length, this.bits)) return true;
    }
    return false;
  }

  private fill(text: string): void {
    const bits = this.bits;
    bits.fill(0);
    let a = charCodeAt.call(text, 0);
    let b = charCodeAt.call(text, 1);
    for (let i = 2; i < text.length; i++) {
      const c = charCodeAt.call(text, i);
      const slot = gramSlot(a, b, c);
      bits[slot >>> 5]! |= 1 << (slot & 31);
      a = b;
      b = c;
    }
    this.text = text;
  }
}
