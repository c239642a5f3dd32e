import { statusFromText } from './text-status.js';
import { stripTerminalCodes } from './terminal-codes.js';
import { structuredFields } from './structured-fields.js';
import type { GramTable } from './required-grams.js';
import type { Evidence, HeaderList } from '../evidence/evidence.js';
import type { EvidenceKind } from '../evidence/envelope.js';

/**
 * `String.prototype.charCodeAt` called explicitly, inlined whatever the text's representation (see
 * src/core/sanitize/secret-patterns.ts: `text.charCodeAt` over many representations is a generic call per character).
 */
// eslint-disable-next-line @typescript-eslint/unbound-method -- always called with its receiver: charCodeAt.call(text, i)
const charCodeAt = String.prototype.charCodeAt;

/** Characters of text the rules read: the head and the tail of long text, where errors are reported. */
export const windowHeadChars = 6144;
export const windowTailChars = 2048;

/** Response headers that only a model API sends: their presence says the failed call was a model call. */
const modelApiHeader = /^(?:anthropic-|openai-|x-ratelimit-(?:limit|remaining|reset)-tokens)/i;

/** What the rules match against: the evidence reduced to structured facts and one lower-cased text window. */
export interface Facts {
  readonly kind: EvidenceKind;
  /** Lower-cased provider and agent ids. */
  readonly sourceIds: readonly string[];
  /**
   * True when the evidence says whose call failed: it names a provider or agent other than `generic`, or a model,
   * or carries a header only a model API sends (`anthropic-*`, `openai-*`, token rate-limit headers).
   */
  readonly namedSource: boolean;
  /** Structured status, else a status anchored in the text, else a numeric `code` field in the 4xx/5xx range. */
  readonly status: number | null;
  readonly rpcCode: number | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly fields: ReadonlyMap<string, readonly string[]>;
  readonly headers: HeaderList;
  /** The error message alone (an ACP error without its `data`), untrimmed. */
  readonly message: string;
  /** The classification window, original case and escape sequences (`sourceOffset` maps its offsets to `source`). */
  readonly raw: string;
  /**
   * The whole text the window was cut from (`raw` itself when nothing was cut). Excerpts are cut from it, not from
   * `raw`: a window edge may fall inside a key or between a key word and its key, and only the text as it is around
   * that edge lets the redactor see the key whole and recognize it.
   */
  readonly source: string;
  /** Where the pieces of `raw` lie in `source`: (offset in `raw`, offset in `source`) pairs, ascending. */
  readonly pieces: readonly number[];
  /** The same window without terminal escape sequences, lower-cased (rules and timing read this). */
  readonly text: string;
}

/**
 * The facts of `evidence`. `grams`, the classifier's trigram table, is filled from the text here so that text
 * status, the rules' gates and timing read one table (an answer never depends on it).
 */
export function factsOf(evidence: Evidence, grams?: GramTable): Facts {
  const { raw, source, pieces } = primaryWindow(evidence);
  // Rules read the text without terminal escape sequences; the excerpt is cut from `raw` (see unstrippedOffset).
  const text = stripTerminalCodes(raw).toLowerCase();
  const fields = structuredFields(text);
  const sourceIds: string[] = [];
  if (evidence.providerId) sourceIds.push(evidence.providerId.toLowerCase());
  if (evidence.agentId) sourceIds.push(evidence.agentId.toLowerCase());
  const headers = evidence.kind === 'http' || evidence.kind === 'sdk_exception' ? evidence.headers : [];
  return {
    kind: evidence.kind,
    sourceIds,
    namedSource:
      sourceIds.some((id) => id !== 'generic') ||
      evidence.modelId !== null ||
      headers.some(([name]) => modelApiHeader.test(name)),
    status: structuredStatus(evidence) ?? statusFromText(text, grams)?.status ?? statusFromCodeField(fields),
    rpcCode: evidence.kind === 'acp_error' ? evidence.rpcCode : null,
    exitCode: evidence.kind === 'process_exit' ? evidence.exitCode : null,
    signal: evidence.kind === 'process_exit' && evidence.signal ? evidence.signal.toUpperCase() : null,
    fields,
    headers,
    message: evidence.kind === 'acp_error' ? stripTerminalCodes(evidence.message) : raw,
    raw,
    source,
    pieces,
    text,
  };
}

/** An offset in `facts.raw` as the offset of the same character in `facts.source`. */
export function sourceOffset(facts: Facts, rawOffset: number): number {
  const pieces = facts.pieces;
  let k = 0;
  while (k + 2 < pieces.length && pieces[k + 2]! <= rawOffset) k += 2;
  return pieces[k + 1]! + (rawOffset - pieces[k]!);
}

function primaryText(evidence: Evidence): string {
  switch (evidence.kind) {
    case 'http':
      return evidence.body;
    case 'acp_error':
      return evidence.message;
    case 'acp_update':
      return evidence.text ?? '';
    case 'stderr':
      return evidence.text;
    case 'process_exit':
      return evidence.stderrTail;
    case 'sdk_exception':
      return evidence.name === '' || evidence.name === 'Error'
        ? evidence.message
        : `${evidence.name}: ${evidence.message}`;
  }
}

/** A classification window: the text rules read, the text it was cut from, and where its pieces lie in it. */
interface TextWindow {
  readonly raw: string;
  readonly source: string;
  readonly pieces: readonly number[];
}

/** The pieces of a window that is its whole text (the common case: one shared array). */
const wholeText: readonly number[] = Object.freeze([0, 0]);

/** What marks the place where the middle of a long text was left out. */
const gap = '\n…\n';

function primaryWindow(evidence: Evidence): TextWindow {
  const text = primaryText(evidence);
  if (evidence.kind !== 'acp_error' || evidence.data === null) return windowOf(text);
  // Window each part first: two 64 KiB texts need not be joined to read their heads and tails.
  const message = windowOf(text);
  const data = windowOf(evidence.data);
  const raw = `${message.raw}\n${data.raw}`;
  if (message.pieces === wholeText && data.pieces === wholeText)
    return { raw, source: raw, pieces: wholeText };
  const shift = (pieces: readonly number[], rawBy: number, sourceBy: number) =>
    pieces.map((offset, i) => offset + (i % 2 === 0 ? rawBy : sourceBy));
  return {
    raw,
    source: `${text}\n${evidence.data}`,
    pieces: [...message.pieces, ...shift(data.pieces, message.raw.length + 1, text.length + 1)],
  };
}

function structuredStatus(evidence: Evidence): number | null {
  return evidence.kind === 'http' || evidence.kind === 'sdk_exception' ? evidence.status : null;
}

function statusFromCodeField(fields: ReadonlyMap<string, readonly string[]>): number | null {
  for (const value of fields.get('code') ?? []) {
    const n = Number(value);
    if (Number.isInteger(n) && n >= 400 && n <= 599) return n;
  }
  return null;
}

function windowOf(text: string): TextWindow {
  if (text.length <= windowHeadChars + windowTailChars) return { raw: text, source: text, pieces: wholeText };
  const tailStart = text.length - windowTailChars;
  return {
    raw: `${text.slice(0, windowHeadChars)}${gap}${text.slice(tailStart)}`,
    source: text,
    pieces: [0, 0, windowHeadChars + gap.length, tailStart],
  };
}

/** FNV-1a over UTF-16 code units: the hash a token is filtered by, computed as the scan reads it. */
const hashSeed = 0x811c9dc5 | 0;
const hashStep = (h: number, c: number): number => Math.imul(h ^ c, 0x01000193);

/** Slots of a token filter: 65,536 bits (8 KiB, small enough to stay in cache; about 1 % of them set). */
const filterSlots = 65_536;

/** The slot of a token filter a hash selects. */
const filterSlot = (h: number): number => (h ^ (h >>> 16)) & (filterSlots - 1);

/**
 * A bit set over token hashes marking every key in `keys`: the tokenizer builds a token's string only when its slot
 * is marked, so most words of a text (no rule's keyword) cost no slice and no map lookup. A superset, never a filter
 * that drops a key: a marked slot only means "look it up".
 */
export function tokenFilter(keys: Iterable<string>): Uint32Array {
  const bits = new Uint32Array(filterSlots / 32);
  for (const key of keys) {
    const slot = filterSlot(tokenHash(key));
    bits[slot >>> 5]! |= 1 << (slot & 31);
  }
  return bits;
}

/** The hash the tokenizer computes for `token` as it reads it. */
function tokenHash(token: string): number {
  let h = hashSeed;
  for (let i = 0; i < token.length; i++) h = hashStep(h, token.charCodeAt(i));
  return h;
}

/**
 * Keys and their values, found by the tokenizer's hash and compared with the text in place: a token is looked up
 * without building its string (no slice, no string hash, no map probe). Open addressing over a power-of-two table
 * at most a quarter full.
 */
export class TokenIndex<V> {
  private readonly slots: Int32Array;
  private readonly hashes: number[] = [];
  private readonly keys: string[] = [];
  private readonly values: V[] = [];

  constructor(entries: Iterable<readonly [string, V]>) {
    const list = [...entries];
    let size = 16;
    while (size < list.length * 4) size *= 2;
    this.slots = new Int32Array(size);
    for (const [key, value] of list) {
      const h = tokenHash(key);
      let slot = filterSlot(h) & (size - 1);
      while (this.slots[slot] !== 0) slot = (slot + 1) & (size - 1);
      this.slots[slot] = this.keys.length + 1;
      this.hashes.push(h);
      this.keys.push(key);
      this.values.push(value);
    }
  }

  /** The value of the key text[start, end), whose tokenizer hash is `h`, or undefined. */
  get(text: string, start: number, end: number, h: number): V | undefined {
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let slot = filterSlot(h) & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot]!;
      if (entry === 0) return undefined;
      const k = entry - 1;
      if (this.hashes[k] === h && sameText(this.keys[k]!, text, start, end)) return this.values[k];
    }
  }
}

/** Whether `key` is text[start, end). */
function sameText(key: string, text: string, start: number, end: number): boolean {
  if (key.length !== end - start) return false;
  for (let i = 0; i < key.length; i++)
    if (key.charCodeAt(i) !== charCodeAt.call(text, start + i)) return false;
  return true;
}

const passes = (filter: Uint32Array | undefined, h: number): boolean => {
  if (filter === undefined) return true;
  const slot = filterSlot(h);
  return (filter[slot >>> 5]! & (1 << (slot & 31))) !== 0;
};

/**
 * Invokes `visit` for every lower-case word token (`[a-z0-9_]+`, at most 48 characters) of `text`, for the parts
 * of a snake_case token (`anthropic_quota_exceeded` also yields `quota` and `exceeded`), and, in every run of
 * Chinese, Japanese or Korean characters, for each overlapping two-character bigram (`服务器繁忙` yields `服务`,
 * `务器`, `器繁`, `繁忙`): those scripts put no spaces between words, so a bigram is their keyword. With a
 * `filter` (`tokenFilter` of the keys looked up), only the tokens that pass it are built and visited.
 */
export function forEachToken(text: string, visit: (token: string) => void, filter?: Uint32Array): void {
  forEachTokenAt(text, (from, start, end) => visit(from.slice(start, end)), filter);
}

/**
 * Like `forEachToken`, without building the tokens: `visit` gets the text, where the token starts and ends, and
 * its hash (for a `TokenIndex`).
 */
export function forEachTokenAt(text: string, visit: TokenVisitor, filter?: Uint32Array): void {
  const n = text.length;
  let previousCjk = false;
  for (let i = 0; i < n; i++) {
    let c = charCodeAt.call(text, i);
    if (c < 128) {
      if (wordCharacters[c] === 0) {
        previousCjk = false;
        continue;
      }
      // A word, read to its end in a loop of its own: most characters of a text are inside one.
      const start = i;
      let whole = hashStep(hashSeed, c);
      let underscore = c === 95;
      while (++i < n) {
        c = charCodeAt.call(text, i);
        if (c >= 128 || wordCharacters[c] === 0) break;
        whole = hashStep(whole, c);
        if (c === 95) underscore = true;
      }
      if (i - start <= 48 && passes(filter, whole)) visit(text, start, i, whole);
      if (underscore) visitParts(text, start, i, visit, filter);
      previousCjk = false;
      // `c`, at `i`, ended the word: ASCII needs nothing more; anything else may begin a CJK run.
      if (i >= n || c < 128) continue;
    }
    if (c < 0x1100) {
      previousCjk = false;
      continue;
    }
    const cjk = isCjk(c);
    if (cjk && previousCjk) {
      const h = hashStep(hashStep(hashSeed, charCodeAt.call(text, i - 1)), c);
      if (passes(filter, h)) visit(text, i - 1, i + 1, h);
    }
    previousCjk = cjk;
  }
}

/** What `forEachTokenAt` calls for each token: text[start, end) is the token, `hash` its tokenizer hash. */
export type TokenVisitor = (text: string, start: number, end: number, hash: number) => void;

/** The characters of a word token (`[a-z0-9_]`), by ASCII code: 1, else 0. */
const wordCharacters = new Uint8Array(128);
for (let c = 97; c <= 122; c++) wordCharacters[c] = 1;
for (let c = 48; c <= 57; c++) wordCharacters[c] = 1;
wordCharacters[95] = 1;

/** The non-empty parts of at most 48 characters between the underscores of text[start, end), in order. */
function visitParts(
  text: string,
  start: number,
  end: number,
  visit: TokenVisitor,
  filter: Uint32Array | undefined,
): void {
  let from = start;
  let h = hashSeed;
  for (let i = start; i <= end; i++) {
    const c = i < end ? charCodeAt.call(text, i) : 95;
    if (c !== 95) {
      h = hashStep(h, c);
      continue;
    }
    if (i > from && i - from <= 48 && passes(filter, h)) visit(text, from, i, h);
    from = i + 1;
    h = hashSeed;
  }
}

/**
 * Han (CJK unified ideographs, extension A, compatibility), Hiragana, Katakana (with the phonetic extensions and
 * the half-width forms) and Hangul (syllables, jamo, compatibility jamo): the characters a CJK keyword is made of.
 */
export function isCjk(c: number): boolean {
  return (
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0x3040 && c <= 0x30ff) ||
    (c >= 0x31f0 && c <= 0x31ff) ||
    (c >= 0xff66 && c <= 0xff9f) ||
    (c >= 0xac00 && c <= 0xd7af) ||
    (c >= 0x1100 && c <= 0x11ff) ||
    (c >= 0x3130 && c <= 0x318f)
  );
}
