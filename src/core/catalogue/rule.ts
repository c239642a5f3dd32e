import type { CatalogueCode, Scope } from './codes.js';
import type { EvidenceKind } from '../evidence/envelope.js';

/**
 * A catalogue rule is data: an id, a tier, a matcher, a code, a confidence, a scope and the timing
 * extractors it trusts. Adding a provider message adds a rule and fixtures, never a branch in code.
 */

/** Evidence strength, strongest first: structured fields > exact signatures > broad patterns. */
export const ruleTiers = ['structured', 'signature', 'pattern'] as const;
export type RuleTier = (typeof ruleTiers)[number];

export const confidences = ['high', 'medium', 'low'] as const;
export type Confidence = (typeof confidences)[number];

/** Structured keys read from JSON-ish bodies (`"type": "overloaded_error"`, `'code': 'insufficient_quota'`). */
export const fieldKeys = [
  'type',
  'code',
  'status',
  'reason',
  'errorkind',
  'error',
  'name',
  'subtype',
  'quotaid',
  'codexerrorinfo',
  'error_type',
] as const;
export type FieldKey = (typeof fieldKeys)[number];

/** Named timing extractors a rule may trust, in precedence order (REQUIREMENTS CLS-23). */
export const timingExtractors = [
  'headers',
  'quoted_headers',
  'body_fields',
  'phrases',
  'usage_limit_epoch',
  'zoned_clock',
] as const;
export type TimingExtractor = (typeof timingExtractors)[number];

/**
 * What a rule trusts when it names none: every extractor but `quoted_headers`. Rate-limit headers printed inside
 * a text are trusted only by the rule that reads those headers for its code.
 */
export const defaultTimingExtractors: readonly TimingExtractor[] = timingExtractors.filter(
  (extractor) => extractor !== 'quoted_headers',
);

/** Predicates implemented once and shared with other code (the Cursor observer shares its definition). */
export const sharedPredicates = ['cursor_retriable_diagnostic'] as const;
export type SharedPredicate = (typeof sharedPredicates)[number];

export interface NearCondition {
  readonly anchor: RegExp;
  readonly word: RegExp;
  /** Characters from the end of `word` to the start of `anchor` when the word comes first. */
  readonly before: number;
  /** Characters from the end of `anchor` to the start of `word` when the word comes after. */
  readonly after: number;
}

/** Every listed condition must hold; within a list, any entry may match. */
export interface RuleCondition {
  /** Evidence kinds read; default every kind except `acp_update` (assistant prose is never an error). */
  readonly kinds?: readonly EvidenceKind[];
  /** Provider or agent ids the rule is limited to. */
  readonly sources?: readonly string[];
  /** HTTP status, from a structured field or, failing that, anchored in the text (`API Error: 529`). */
  readonly status?: readonly number[];
  /** Structured fields; lower-case values. */
  readonly fields?: Partial<Readonly<Record<FieldKey, readonly string[]>>>;
  /** JSON-RPC error codes of an `acp_error`. */
  readonly rpcCodes?: readonly number[];
  /** Process exit codes, or signal names (upper case) of a `process_exit`. */
  readonly exitCodes?: readonly number[];
  readonly signals?: readonly string[];
  /** Lower-case word tokens of which at least one must occur: the literal pre-filter and the index key. */
  readonly keywords?: readonly string[];
  /** Tested on the lower-cased classification window; must be linear (bounded gaps, no nested repetition). */
  readonly text?: RegExp;
  /** The rule does not match when this is found in the lower-cased window. */
  readonly unless?: RegExp;
  /**
   * When the evidence names no provider or agent (none, or only `generic`), this must also be found in the
   * lower-cased window. The registry sets it on broad transient rules (src/core/catalogue/model-call-anchor.ts).
   */
  readonly anchorWhenUnnamed?: RegExp;
  /**
   * Two patterns close to each other ("per day" within 90 characters after "limit", or 60 before it). Each is
   * scanned once and the positions merged, so text full of either one stays linear, where a regular
   * expression with a bounded gap would rescan the gap at every occurrence.
   */
  readonly near?: NearCondition;
  readonly predicate?: SharedPredicate;
}

export interface Rule {
  /** Stable id, `family.name.vN`; never reused for a different meaning. */
  readonly id: string;
  /** One line on what the rule recognizes. */
  readonly description: string;
  readonly tier: RuleTier;
  /**
   * A bare status code, a catch-all error type or a broad exception class: it decides only when no specific
   * rule matched ("the message beats the status code").
   */
  readonly generic?: boolean;
  /** Declared precedence within the same (generic, tier); higher wins. Default 0. */
  readonly priority?: number;
  readonly code: CatalogueCode;
  readonly confidence: Confidence;
  /** Overrides the code's default scope. */
  readonly scope?: Scope | null;
  readonly when: RuleCondition;
  /** Timing extractors trusted for this rule; default `defaultTimingExtractors`, `[]` for none. */
  readonly timing?: readonly TimingExtractor[];
}
