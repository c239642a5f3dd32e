import { sameReplayKey, type ReplayEvidence, type ReplayKey } from './replay-evidence.js';
import { classify } from '../classify/classify.js';
import type { Classification } from '../classify/classification.js';

export const unsafeReasons = [
  'missing',
  'stale',
  'tool_activity',
  'thought',
  'assistant_output',
  'ambiguous_delivery',
  'partial_result',
] as const;
export type UnsafeReason = (typeof unsafeReasons)[number];

export type SafetyVerdict =
  | { readonly safe: true; readonly basis: 'pre_result' | 'matching_diagnostic' | 'resumable_retry' }
  | { readonly safe: false; readonly reason: UnsafeReason };

export interface SafetyContext {
  /** The invocation the caller considers current. */
  readonly current: ReplayKey;
  /** The terminal failure's classification and its full (unsanitized, in-memory) message. */
  readonly failure: Classification;
  readonly failureMessage: string;
  /** A provider-supported resumable-retry guarantee: it counts only for the same native session and generation. */
  readonly resumable?: { readonly providerSessionId: string; readonly promptGeneration: number };
}

/**
 * The effect-safety gate (REQUIREMENTS SAF-01 to SAF-08). Automatic replay is safe only when the snapshot exists,
 * belongs to the current prompt, and shows neither output nor tool activity. A trailing assistant text that is a
 * matching diagnostic of the terminal error is not output. User configuration has no say here.
 */
export function assessReplaySafety(snapshot: ReplayEvidence | null, context: SafetyContext): SafetyVerdict {
  if (snapshot === null) return { safe: false, reason: 'missing' };
  if (!sameReplayKey(snapshot.key, context.current)) return { safe: false, reason: 'stale' };
  const r = context.resumable;
  if (
    r &&
    snapshot.providerSessionId !== null &&
    r.providerSessionId === snapshot.providerSessionId &&
    r.promptGeneration === snapshot.key.promptGeneration
  ) {
    return { safe: true, basis: 'resumable_retry' };
  }
  const c = snapshot.counts;
  if (c.ambiguous_delivery > 0) return { safe: false, reason: 'ambiguous_delivery' };
  if (c.partial_result > 0) return { safe: false, reason: 'partial_result' };
  if (c.tool_call > 0 || c.tool_update > 0) return { safe: false, reason: 'tool_activity' };
  if (c.thought > 0) return { safe: false, reason: 'thought' };
  if (c.assistant_output > 0) {
    return isMatchingDiagnostic(snapshot, context)
      ? { safe: true, basis: 'matching_diagnostic' }
      : { safe: false, reason: 'assistant_output' };
  }
  return { safe: true, basis: 'pre_result' };
}

/**
 * The generation's whole assistant text is one diagnostic of the terminal error (REQUIREMENTS SAF-06 decision):
 * it classifies with high confidence to a recoverable code, the terminal error classifies to the same code, and
 * the terminal message contains the text. Anything else said, thought or done in the generation fails this.
 */
function isMatchingDiagnostic(snapshot: ReplayEvidence, context: SafetyContext): boolean {
  if (snapshot.assistantOverflow) return false;
  const failure = context.failure;
  if (failure.class === 'unclassified' || failure.code === null) return false;
  // The diagnostic is the failing agent's own output: it is read as coming from the failure's source, as broad
  // rules read evidence of a named source (src/core/catalogue/model-call-anchor.ts).
  const source = failure.provider_id === null ? {} : { agent: failure.provider_id };
  const diagnostic = classify({ kind: 'stderr', ...source, text: snapshot.assistantText }, { now: 0 });
  if (
    diagnostic.class === 'unclassified' ||
    diagnostic.confidence !== 'high' ||
    diagnostic.code !== failure.code
  )
    return false;
  const said = normalize(snapshot.assistantText);
  return said !== '' && normalize(context.failureMessage).includes(said);
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}
