import { classOfCode, isProviderCode } from '../catalogue/codes.js';
import {
  defaultTimingExtractors,
  ruleTiers,
  type Rule,
  type RuleCondition,
  type SharedPredicate,
  type TimingExtractor,
} from '../catalogue/rule.js';
import type { EvidenceKind } from '../evidence/envelope.js';
import { RecourseError } from '../errors.js';
import { isCjk, tokenFilter, TokenIndex } from './facts.js';
import { BranchTable, PrunedPattern } from './pruned-pattern.js';
import { preparedNearGates } from './prepared-gates.js';
import { GramTable, LazyGate } from './required-grams.js';

/** A rule prepared for matching: its rank and the keys it is indexed under. */
export interface CompiledRule {
  readonly rule: Rule;
  /** Declaration order in the catalogue: the last tie-breaker. */
  readonly order: number;
  /** Sort key; smaller is stronger: (generic, tier, -priority, order). */
  readonly rank: number;
  /** Rules with the same level may conflict; different levels never do. */
  readonly level: number;
  readonly kinds: ReadonlySet<EvidenceKind> | null;
  readonly timing: readonly TimingExtractor[];
  /** `transient`, `hard` or `none`, used to detect conflicts. */
  readonly outcomeClass: 'transient' | 'hard' | 'none';
  /** The rule's conditions, in the one shape every rule shares. */
  readonly test: RuleTest;
  /**
   * Global copies of a `near` condition's patterns, for scanning every occurrence, each with its gate (a text
   * without a pattern's required trigrams holds no occurrence of it).
   */
  readonly near: {
    readonly anchor: RegExp;
    readonly anchorGate: LazyGate;
    readonly word: RegExp;
    readonly wordGate: LazyGate;
    readonly before: number;
    readonly after: number;
  } | null;
}

/**
 * A rule's conditions with every field present (null when the rule sets none). Rules written as data leave out
 * different fields, so their `when` objects come in dozens of shapes, and reading a field of dozens of shapes is a
 * slow, generic lookup in V8; one shape keeps the matcher's reads direct.
 */
export interface RuleTest {
  readonly sources: readonly string[] | null;
  readonly status: readonly number[] | null;
  readonly rpcCodes: readonly number[] | null;
  readonly exitCodes: readonly number[] | null;
  readonly signals: readonly string[] | null;
  /** `when.fields` as pairs, in its order; a value list left undefined is null (nothing can match it). */
  readonly fields: ReadonlyArray<readonly [name: string, values: readonly string[] | null]> | null;
  /**
   * `when.text` and `when.unless`, each run only where the text holds the trigrams it requires, and then only the
   * branches of a long alternation that the text allows (src/core/classify/pruned-pattern.ts).
   */
  readonly text: PrunedPattern | null;
  readonly unless: PrunedPattern | null;
  /** `when.anchorWhenUnnamed`: run only for evidence that names no provider or agent. */
  readonly anchorWhenUnnamed: PrunedPattern | null;
  readonly predicate: SharedPredicate | null;
}

function ruleTest(w: RuleCondition, branches: BranchTable, anchors: Map<RegExp, PrunedPattern>): RuleTest {
  return {
    sources: w.sources ?? null,
    status: w.status ?? null,
    rpcCodes: w.rpcCodes ?? null,
    exitCodes: w.exitCodes ?? null,
    signals: w.signals ?? null,
    fields: w.fields
      ? Object.entries(w.fields).map(([name, values]) => [name, values ?? null] as const)
      : null,
    text: w.text ? new PrunedPattern(w.text, branches) : null,
    unless: w.unless ? new PrunedPattern(w.unless, branches) : null,
    anchorWhenUnnamed: w.anchorWhenUnnamed ? sharedPattern(w.anchorWhenUnnamed, branches, anchors) : null,
    predicate: w.predicate ?? null,
  };
}

/** One compiled pattern per anchor: dozens of rules share the model-call anchor. */
function sharedPattern(
  pattern: RegExp,
  branches: BranchTable,
  anchors: Map<RegExp, PrunedPattern>,
): PrunedPattern {
  let pruned = anchors.get(pattern);
  if (pruned === undefined) {
    pruned = new PrunedPattern(pattern, branches);
    anchors.set(pattern, pruned);
  }
  return pruned;
}

/** Rules indexed by the facts that can select them, so a larger catalogue does not mean more work per evidence. */
export interface CompiledCatalogue {
  readonly version: string;
  readonly rules: readonly CompiledRule[];
  readonly byKey: ReadonlyMap<string, readonly number[]>;
  /** `tokenFilter` of every key of `byKey`: which text tokens are worth looking up. */
  readonly tokenFilter: Uint32Array;
  /** `byKey` by the tokenizer's hash: a text token is looked up in place, without building its string. */
  readonly tokenIndex: TokenIndex<readonly number[]>;
  /** Rules with no selective key (evaluated for every evidence). */
  readonly always: readonly number[];
  /** Each rule's `rank`, by index: candidates are sorted by it. */
  readonly ranks: Float64Array;
  /**
   * Scratch of the classifier, one slot per rule plus the last pass number: the pass in which a rule was last
   * selected, so a candidate is de-duplicated in constant time without allocating per evidence. Classification
   * is synchronous, so one pass never interleaves with another.
   */
  readonly marks: Uint32Array;
  /** Scratch of the classifier: the trigrams of the text being classified, for the rules' patterns' gates. */
  readonly grams: GramTable;
}

const defaultKinds: ReadonlySet<EvidenceKind> = new Set([
  'http',
  'acp_error',
  'stderr',
  'process_exit',
  'sdk_exception',
]);
const priorityRange = 1000;

/**
 * Indexes `rules` for classification. Throws a `RecourseError` (`invalid_input`) naming the rule and the keyword
 * when a keyword holds Chinese, Japanese or Korean characters but is not exactly two of them: the tokenizer
 * emits those scripts as two-character bigrams only, so any other such keyword could never select its rule.
 */
export function compileCatalogue(version: string, rules: readonly Rule[]): CompiledCatalogue {
  for (const rule of rules) for (const keyword of rule.when.keywords ?? []) checkKeyword(rule.id, keyword);
  // Branches that several rules' patterns share are compiled and run once per text.
  const branches = new BranchTable();
  const anchors = new Map<RegExp, PrunedPattern>();
  const compiled = rules.map((rule, order): CompiledRule => {
    const priority = Math.max(-priorityRange / 2, Math.min(priorityRange / 2 - 1, rule.priority ?? 0));
    const level =
      ((rule.generic ? 1 : 0) * ruleTiers.length + ruleTiers.indexOf(rule.tier)) * priorityRange +
      (priorityRange / 2 - priority);
    return {
      rule,
      order,
      level,
      rank: level * 100_000 + order,
      kinds: rule.when.kinds ? new Set(rule.when.kinds) : defaultKinds,
      timing: rule.timing ?? defaultTimingExtractors,
      outcomeClass: isProviderCode(rule.code) ? (classOfCode(rule.code) ?? 'none') : 'none',
      test: ruleTest(rule.when, branches, anchors),
      near: rule.when.near ? nearOf(rule.when.near) : null,
    };
  });
  const byKey = new Map<string, number[]>();
  const always: number[] = [];
  const add = (key: string, index: number) => {
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [index]);
    else list.push(index);
  };
  compiled.forEach(({ rule }, index) => {
    const keys = indexKeys(rule);
    if (keys.length === 0) always.push(index);
    for (const key of keys) add(key, index);
  });
  return {
    version,
    rules: compiled,
    byKey,
    tokenFilter: tokenFilter(byKey.keys()),
    tokenIndex: new TokenIndex(byKey),
    always,
    ranks: Float64Array.from(compiled, (rule) => rule.rank),
    marks: new Uint32Array(compiled.length + 1),
    grams: new GramTable(),
  };
}

/**
 * `near`'s patterns as global copies, each with its gate (prepared at build time when the table has its flags and
 * source: `preparedNearGates`).
 */
export function nearOf(
  near: NonNullable<RuleCondition['near']>,
  prepared: ReadonlyMap<string, readonly number[] | null> = preparedNearGates,
): NonNullable<CompiledRule['near']> {
  const anchor = new RegExp(near.anchor.source, 'g');
  const word = new RegExp(near.word.source, 'g');
  return {
    anchor,
    anchorGate: new LazyGate(anchor, prepared.get(`${anchor.flags}/${anchor.source}`)),
    word,
    wordGate: new LazyGate(word, prepared.get(`${word.flags}/${word.source}`)),
    before: near.before,
    after: near.after,
  };
}

function checkKeyword(ruleId: string, keyword: string): void {
  let cjk = 0;
  for (let i = 0; i < keyword.length; i++) if (isCjk(keyword.charCodeAt(i))) cjk++;
  if (cjk > 0 && (cjk !== 2 || keyword.length !== 2)) {
    throw new RecourseError(
      'invalid_input',
      `rule ${ruleId}: keyword ${JSON.stringify(keyword)} has Chinese, Japanese or Korean characters but is not ` +
        'exactly two of them; such text is indexed as overlapping two-character bigrams, so list each bigram ' +
        '(服务器繁忙: "服务", "繁忙")',
    );
  }
}

/** The most selective condition of a rule becomes its index key (every condition is still checked). */
export function indexKeys(rule: Rule): string[] {
  const w = rule.when;
  if (w.keywords && w.keywords.length > 0) return [...w.keywords];
  if (w.fields) {
    const keys: string[] = [];
    for (const [name, values] of Object.entries(w.fields))
      for (const v of values ?? []) keys.push(fieldKey(name, v));
    if (keys.length > 0) return keys;
  }
  if (w.status) return w.status.map(statusKey);
  if (w.rpcCodes) return w.rpcCodes.map((c) => `rpc:${c}`);
  if (w.exitCodes || w.signals)
    return [...(w.exitCodes ?? []).map((c) => `exit:${c}`), ...(w.signals ?? []).map((s) => `signal:${s}`)];
  // A rule that reads nothing but its sources (a tool platform's id) is a candidate only for those sources, not for
  // every evidence: ten such rules in a catalogue ten times larger cost a tenth more per evidence.
  if (w.sources) return w.sources.map(sourceKey);
  return [];
}

export const fieldKey = (name: string, value: string): string => `field:${name}=${value}`;
export const statusKey = (status: number): string => `status:${status}`;
export const sourceKey = (id: string): string => `source:${id}`;
