import type { CompiledRule } from './compiled-catalogue.js';

export interface RuleMatch {
  readonly compiled: CompiledRule;
  /** Text offset of the match, or -1 for a structured-only match. */
  readonly offset: number;
}

export type Resolution =
  | { readonly kind: 'none' }
  | { readonly kind: 'match'; readonly winner: RuleMatch }
  | { readonly kind: 'conflict'; readonly winner: RuleMatch; readonly rivals: readonly RuleMatch[] };

/**
 * Picks the winner among matches sorted by rank (strongest first). Matches of the top level that disagree on
 * the class (transient, hard, or no class) with no declared precedence between them are a conflict; matches
 * of lower levels never compete with the top one.
 */
export function resolve(matches: readonly RuleMatch[]): Resolution {
  const top = matches[0];
  if (top === undefined) return { kind: 'none' };
  const rivals = matches.filter(
    (m) => m.compiled.level === top.compiled.level && m.compiled.outcomeClass !== top.compiled.outcomeClass,
  );
  return rivals.length > 0 ? { kind: 'conflict', winner: top, rivals } : { kind: 'match', winner: top };
}
