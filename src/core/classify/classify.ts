import { factsOf, forEachTokenAt, sourceOffset, type Facts } from './facts.js';
import { fieldKey, sourceKey, statusKey, type CompiledCatalogue } from './compiled-catalogue.js';
import { matchRule } from './match-rule.js';
import type { GramTable } from './required-grams.js';
import { unstrippedOffset } from './terminal-codes.js';
import { resolve, type Resolution, type RuleMatch } from './resolve.js';
import type { Classification, UnclassifiedReason } from './classification.js';
import { defaultCatalogue } from './default-catalogue.js';
import {
  longWindowSeconds,
  providerCodeInfo,
  isNonProviderCode,
  isProviderCode,
  type CatalogueCode,
} from '../catalogue/codes.js';
import type { Confidence } from '../catalogue/rule.js';
import { extractTiming, type TimingHints } from '../catalogue/timing/extract-timing.js';
import type { Evidence } from '../evidence/evidence.js';
import { parseEnvelope } from '../evidence/parse-envelope.js';
import { safeExcerpt, safeIdentifier, type ExcerptAnchor } from '../sanitize/index.js';
import { formatIsoUtc, latestIsoMs } from '../time/iso-time.js';
import { RecourseError } from '../errors.js';

export interface ClassifyOptions {
  /**
   * The caller's clock, epoch ms (or a Date). The timing origin when the evidence has no `observed_at`, or
   * one more than `futureObservationToleranceMs` ahead of it.
   */
  readonly now: number | Date;
  /**
   * The invocation and prompt generation the caller considers current. When given, evidence that does not
   * carry exactly these (missing counts as different) is `unclassified` with reason `stale`.
   */
  readonly current?: { readonly invocationId: string; readonly promptGeneration: number };
}

/**
 * How far ahead of the classifier's `now` an `observed_at` may lie and still be the origin of relative timing
 * hints: 5 minutes (300,000 ms) of clock skew. Beyond it the evidence's clock is not trusted and relative hints
 * (and `occurred_at`) count from `now` (REQUIREMENTS CLS-23, Decision).
 */
export const futureObservationToleranceMs = 300_000;

/** Where a classification counted its relative timing hints and its `occurred_at` from. */
export interface TimingOrigin {
  /** The evidence's `observed_at`, epoch ms, or null when it had none. */
  readonly observedAtMs: number | null;
  /** The origin used, epoch ms: `observed_at` when trusted, else the caller's `now`. */
  readonly originMs: number;
  /** True when `observed_at` was ignored because it lay more than the tolerance ahead of `now`. */
  readonly corrected: boolean;
}

/** A classification and the timing origin it was computed from (the origin is not part of the wire format). */
export interface DetailedClassification {
  readonly classification: Classification;
  readonly timingOrigin: TimingOrigin;
}

/** A classification plus every rule that matched, strongest first: for fixtures, collisions and `--explain`. */
export interface Explanation extends DetailedClassification {
  readonly matches: ReadonlyArray<{
    readonly rule: string;
    readonly code: CatalogueCode;
    readonly level: number;
  }>;
}

/**
 * Classifies one evidence envelope. Pure and deterministic: the same envelope, options and catalogue give the
 * same result. Never throws for any envelope: one that does not validate is `unclassified` with reason `unknown`
 * (use `parseEnvelope` to learn why). Throws a `RecourseError` (`invalid_input`) only when `options.now` is missing.
 */
export function classify(envelope: unknown, options: ClassifyOptions): Classification {
  const parsed = parseEnvelope(envelope);
  if (!parsed.ok) return invalidClassification(nowMs(options), defaultCatalogue.version);
  return classifyEvidence(parsed.evidence, options);
}

/** Classifies evidence that `parseEnvelope` produced. */
export function classifyEvidence(
  evidence: Evidence,
  options: ClassifyOptions,
  catalogue: CompiledCatalogue = defaultCatalogue,
): Classification {
  return classifyEvidenceDetailed(evidence, options, catalogue).classification;
}

/**
 * Like `classifyEvidence` (same work), and says which timing origin it used, so a caller can record that an
 * `observed_at` from the future was corrected.
 */
export function classifyEvidenceDetailed(
  evidence: Evidence,
  options: ClassifyOptions,
  catalogue: CompiledCatalogue = defaultCatalogue,
): DetailedClassification {
  const { classification, timingOrigin } = run(evidence, options, catalogue, false);
  return { classification, timingOrigin };
}

/** Like `classifyEvidence`, and lists every matching rule (evaluates the whole candidate set). */
export function explainEvidence(
  evidence: Evidence,
  options: ClassifyOptions,
  catalogue: CompiledCatalogue = defaultCatalogue,
): Explanation {
  return run(evidence, options, catalogue, true);
}

/**
 * The caller's clock in epoch ms; a non-finite clock reads as the epoch rather than poison the output. A missing
 * clock is a programming error (plain JavaScript callers have no compiler to catch it): the core reads no clock of
 * its own, so it says so instead of failing on `undefined`.
 */
function nowMs(options: ClassifyOptions | undefined): number {
  const now: unknown = options?.now;
  if (typeof now !== 'number' && !(now instanceof Date)) {
    throw new RecourseError(
      'invalid_input',
      "classify needs options.now, the caller's clock (epoch ms or a Date): the core reads no clock of its own",
    );
  }
  const ms = typeof now === 'number' ? now : now.getTime();
  // A clock that is not a finite instant between the years 1970 and 9999 would print times that are not ISO-8601.
  if (!Number.isFinite(ms) || ms < 0 || ms > latestIsoMs) {
    throw new RecourseError(
      'invalid_input',
      `classify needs options.now as a finite instant from 1970 to 9999 (got ${String(ms)})`,
    );
  }
  return ms;
}

/**
 * `observed_at` is the origin unless it lies more than the tolerance ahead of `now`: a clock that far ahead
 * would stretch every relative hint by its error. A past `observed_at` is kept (evidence may arrive late).
 */
function timingOriginOf(observedAtMs: number | null, now: number): TimingOrigin {
  if (observedAtMs === null) return { observedAtMs, originMs: now, corrected: false };
  const corrected = observedAtMs - now > futureObservationToleranceMs;
  return { observedAtMs, originMs: corrected ? now : observedAtMs, corrected };
}

function run(
  evidence: Evidence,
  options: ClassifyOptions,
  catalogue: CompiledCatalogue,
  explain: boolean,
): Explanation {
  const timingOrigin = timingOriginOf(evidence.observedAtMs, nowMs(options));
  const referenceMs = timingOrigin.originMs;
  const facts = factsOf(evidence, catalogue.grams);
  const base = {
    catalogue_version: catalogue.version,
    provider_id: safeIdentifier(evidence.providerId ?? evidence.agentId),
    model_id: safeIdentifier(evidence.modelId),
    phase: safeIdentifier(evidence.phase),
    occurred_at: formatIsoUtc(referenceMs),
  };
  const current = options.current;
  if (
    current !== undefined &&
    (evidence.invocationId !== current.invocationId || evidence.promptGeneration !== current.promptGeneration)
  ) {
    const excerpt = safeExcerpt(facts.source, defaultAnchor(evidence));
    return {
      classification: unclassified(base, 'stale', null, null, 'low', excerpt),
      timingOrigin,
      matches: [],
    };
  }
  const matches = findMatches(facts, catalogue, explain);
  const resolution = resolve(matches);
  return {
    classification: build(resolution, evidence, facts, base, referenceMs, catalogue.grams),
    timingOrigin,
    // Only an explanation lists them: a classification need not build the list.
    matches: explain
      ? matches.map((m) => ({
          rule: m.compiled.rule.id,
          code: m.compiled.rule.code,
          level: m.compiled.level,
        }))
      : [],
  };
}

/** Candidate rules come only from the index: the evidence's tokens and structured facts select them. */
function findMatches(facts: Facts, catalogue: CompiledCatalogue, all: boolean): RuleMatch[] {
  // A handful of candidates per evidence, de-duplicated by the catalogue's pass marks (a rule taken in this pass
  // carries this pass's number): constant work per key, whatever the catalogue's size.
  const candidates: number[] = [];
  const byKey = catalogue.byKey;
  const marks = catalogue.marks;
  const pass = nextPass(marks);
  const takeAll = (list: readonly number[]) => {
    for (let i = 0; i < list.length; i++) {
      const index = list[i]!;
      if (marks[index] === pass) continue;
      marks[index] = pass;
      candidates.push(index);
    }
  };
  const take = (key: string) => {
    const list = byKey.get(key);
    if (list !== undefined) takeAll(list);
  };
  // Text tokens are looked up in place by their hash (no string built for them).
  const tokenIndex = catalogue.tokenIndex;
  forEachTokenAt(
    facts.text,
    (text, start, end, hash) => {
      const list = tokenIndex.get(text, start, end, hash);
      if (list !== undefined) takeAll(list);
    },
    catalogue.tokenFilter,
  );
  // forEach, not for-of: no iterator and no entry pair per field.
  facts.fields.forEach((values, name) => {
    for (let i = 0; i < values.length; i++) take(fieldKey(name, values[i]!));
  });
  if (facts.status !== null) take(statusKey(facts.status));
  if (facts.rpcCode !== null) take(`rpc:${facts.rpcCode}`);
  if (facts.exitCode !== null) take(`exit:${facts.exitCode}`);
  if (facts.signal !== null) take(`signal:${facts.signal}`);
  for (let i = 0; i < facts.sourceIds.length; i++) take(sourceKey(facts.sourceIds[i]!));
  for (const index of catalogue.always) {
    if (marks[index] === pass) continue;
    marks[index] = pass;
    candidates.push(index);
  }

  const rules = catalogue.rules;
  sortByRank(candidates, catalogue.ranks);
  const matches: RuleMatch[] = [];
  for (const index of candidates) {
    const compiled = rules[index]!;
    // Only the strongest level decides (and can conflict); weaker rules need not run.
    if (!all && matches.length > 0 && compiled.level !== matches[0]!.compiled.level) break;
    const offset = matchRule(compiled, facts, catalogue.grams);
    if (offset !== null) matches.push({ compiled, offset });
  }
  return matches;
}

/**
 * A new pass number for `marks` (its last slot holds the previous one). When the counter wraps, every mark is cleared, so
 * a stale mark can never equal a new pass.
 */
function nextPass(marks: Uint32Array): number {
  let pass = marks[marks.length - 1]! + 1;
  if (pass > 0xffff_fff0) {
    marks.fill(0);
    pass = 1;
  }
  marks[marks.length - 1] = pass;
  return pass;
}

/** Insertion sort by rank: a handful of indices, no comparator closure, no allocation. */
function sortByRank(indices: number[], ranks: Float64Array): void {
  for (let i = 1; i < indices.length; i++) {
    const index = indices[i]!;
    const rank = ranks[index]!;
    let j = i - 1;
    while (j >= 0 && ranks[indices[j]!]! > rank) {
      indices[j + 1] = indices[j]!;
      j--;
    }
    indices[j + 1] = index;
  }
}

type Base = Pick<Classification, 'catalogue_version' | 'provider_id' | 'model_id' | 'phase' | 'occurred_at'>;

function build(
  resolution: Resolution,
  evidence: Evidence,
  facts: Facts,
  base: Base,
  referenceMs: number,
  grams: GramTable,
): Classification {
  if (resolution.kind === 'none') {
    const excerpt = safeExcerpt(facts.source, defaultAnchor(evidence));
    return unclassified(base, 'unknown', null, null, 'low', excerpt);
  }
  const { winner } = resolution;
  const rule = winner.compiled.rule;
  const excerpt = safeExcerpt(
    facts.source,
    winner.offset >= 0
      ? { at: 'offset', offset: sourceOffset(facts, unstrippedOffset(facts.raw, winner.offset)) }
      : defaultAnchor(evidence),
  );
  if (resolution.kind === 'conflict') {
    return {
      ...unclassified(base, 'conflict', null, rule.id, rule.confidence, excerpt),
      conflicting_rules: [winner, ...resolution.rivals].map((m) => m.compiled.rule.id),
    };
  }
  if (isNonProviderCode(rule.code)) {
    return unclassified(base, 'not_provider', rule.code, rule.id, rule.confidence, excerpt);
  }
  // A code without a class assignment never authorizes work (REQUIREMENTS CLS-15).
  if (!isProviderCode(rule.code)) return unclassified(base, 'unknown', null, rule.id, 'low', excerpt);
  if (rule.confidence === 'low') return unclassified(base, 'low_confidence', null, rule.id, 'low', excerpt);

  const timing = extractTiming(
    { headers: facts.headers, text: facts.text, referenceMs, grams },
    winner.compiled.timing,
  );
  const code = promoteByWindow(rule.code, timing, referenceMs);
  const info = providerCodeInfo[code];
  return {
    code,
    class: info.class,
    ...base,
    confidence: rule.confidence,
    scope: rule.scope !== undefined ? rule.scope : info.scope,
    classifier_rule: rule.id,
    retry_after: timing.retryAfterMs === null ? null : formatIsoUtc(timing.retryAfterMs),
    reset_at: timing.resetAtMs === null ? null : formatIsoUtc(timing.resetAtMs),
    safe_excerpt: excerpt,
  } satisfies Classification;
}

/** A rate limit whose stated wait is an hour or more is a quota: the window decides, not the wording. */
function promoteByWindow(
  code: CatalogueCode & keyof typeof providerCodeInfo,
  timing: TimingHints,
  referenceMs: number,
) {
  if (code !== 'rate_limited') return code;
  const until = Math.max(timing.retryAfterMs ?? -Infinity, timing.resetAtMs ?? -Infinity);
  return until - referenceMs >= longWindowSeconds * 1000 ? 'quota_limited' : code;
}

function defaultAnchor(evidence: Evidence): ExcerptAnchor {
  // Tails carry the error at their end; bodies and messages at their start.
  return evidence.kind === 'stderr' || evidence.kind === 'process_exit' ? { at: 'tail' } : { at: 'head' };
}

function unclassified(
  base: Base,
  reason: UnclassifiedReason,
  code: CatalogueCode | null,
  rule: string | null,
  confidence: Confidence,
  excerpt: string,
): Classification {
  return {
    code,
    class: 'unclassified',
    ...base,
    confidence,
    scope: null,
    classifier_rule: rule,
    retry_after: null,
    reset_at: null,
    safe_excerpt: excerpt,
    reason,
  };
}

function invalidClassification(referenceMs: number, version: string): Classification {
  const base = {
    catalogue_version: version,
    provider_id: null,
    model_id: null,
    phase: null,
    occurred_at: formatIsoUtc(referenceMs),
  };
  return unclassified(base, 'unknown', null, null, 'low', '');
}
