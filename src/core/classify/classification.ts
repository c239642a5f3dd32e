import type { CatalogueCode, PolicyClass, Scope } from '../catalogue/codes.js';
import type { Confidence } from '../catalogue/rule.js';

/** Why a classification is `unclassified`. Only `transient` and `hard` may ever authorize automatic work. */
export const unclassifiedReasons = [
  'unknown',
  'low_confidence',
  'stale',
  'conflict',
  'not_provider',
] as const;
export type UnclassifiedReason = (typeof unclassifiedReasons)[number];

export const classificationClasses = ['transient', 'hard', 'unclassified'] as const;
export type ClassificationClass = PolicyClass | 'unclassified';

/**
 * The normalized classification (wire format, snake_case). The same object is returned by the library
 * `classify` and printed by `recourse classify`. Times are ISO-8601 UTC.
 */
export interface Classification {
  /** Stable semantic cause; a non-provider code for `not_provider`; null when nothing was recognized. */
  readonly code: CatalogueCode | null;
  readonly class: ClassificationClass;
  readonly catalogue_version: string;
  readonly confidence: Confidence;
  readonly scope: Scope | null;
  /** Stable, fixture-backed rule id; null when no rule matched. */
  readonly classifier_rule: string | null;
  readonly provider_id: string | null;
  readonly model_id: string | null;
  readonly phase: string | null;
  readonly occurred_at: string;
  readonly retry_after: string | null;
  readonly reset_at: string | null;
  /** At most 512 bytes, control characters removed, credentials and account identifiers redacted. */
  readonly safe_excerpt: string;
  /** Present exactly when `class` is `unclassified`. */
  readonly reason?: UnclassifiedReason;
  /** For `conflict`: the rules that matched at the same strength with different classes. */
  readonly conflicting_rules?: readonly string[];
}
