import {
  assessReplaySafety,
  classify,
  settleTurn,
  type Classification,
  type EvidenceEnvelope,
  type ReplayEvidence,
  type ReplayKey,
  type SafetyVerdict,
  type TurnProjection,
} from '../core/index.js';
import { stderrEvidence, type EvidenceOrigin } from './acp-evidence.js';
import { boundedJson } from '../core/evidence/bounded-json.js';

/** How a judged turn ended. A failure carries its terminal evidence, classification and the safety verdict. */
export type TurnResult =
  | { readonly outcome: 'success'; readonly generation: number; readonly stopReason: string }
  | { readonly outcome: 'cancelled'; readonly generation: number }
  | {
      readonly outcome: 'failure';
      readonly generation: number;
      readonly evidence: EvidenceEnvelope;
      readonly classification: Classification;
      /** Whether the turn may be replayed automatically (the effect-safety gate on the replay snapshot). */
      readonly safety: SafetyVerdict;
      /** The immutable replay snapshot the verdict was taken on (null: none, which fails closed). */
      readonly replay: ReplayEvidence | null;
    };

/** How the `session/prompt` request (or an earlier lifecycle request) settled. */
export type Settlement =
  | { readonly kind: 'response'; readonly stopReason: string }
  | { readonly kind: 'error'; readonly evidence: EvidenceEnvelope };

export interface TurnFacts {
  readonly settlement: Settlement;
  /** The caller cancelled this prompt (`session/cancel` was sent). */
  readonly cancelRequested: boolean;
  readonly projection: TurnProjection | null;
  readonly replay: ReplayEvidence | null;
  /** Stderr the agent wrote since the prompt was sent. */
  readonly stderrText: string;
  readonly origin: EvidenceOrigin;
  readonly key: ReplayKey;
}

/**
 * Judges one turn after the prompt barrier (the request settled and the notification queue was drained). Runs
 * under the evidence mutex. A pending projection marker turns a normal completion into exactly one provider
 * error (CUR-18); a cancelled prompt is a clean cancel, never a failure; every failure is classified and gated.
 */
export function judgeTurn(facts: TurnFacts): TurnResult {
  const generation = facts.origin.promptGeneration;
  const settlement = facts.settlement;
  if (facts.cancelRequested && (settlement.kind === 'error' || settlement.stopReason === 'cancelled')) {
    return { outcome: 'cancelled', generation };
  }
  let evidence: EvidenceEnvelope;
  if (settlement.kind === 'response') {
    const settled =
      facts.projection === null ? null : settleTurn(facts.projection, facts.origin.observedAtMs);
    if (settled === null || settled.outcome === 'complete') {
      return { outcome: 'success', generation, stopReason: settlement.stopReason };
    }
    evidence = {
      ...settled.error.evidence,
      agent: facts.origin.agent,
      invocation_id: facts.origin.invocationId,
      phase: facts.origin.phase,
    };
  } else evidence = settlement.evidence;
  return failure(facts, evidence);
}

/** Classifies `evidence` and gates the replay snapshot (used for failures of earlier lifecycle phases too). */
export function failure(
  facts: Pick<TurnFacts, 'replay' | 'stderrText' | 'origin' | 'key'>,
  primary: EvidenceEnvelope,
): TurnResult {
  const current = {
    invocationId: facts.origin.invocationId,
    promptGeneration: facts.origin.promptGeneration,
  };
  const options = { now: facts.origin.observedAtMs, current };
  let evidence = primary;
  let classification = classify(primary, options);
  // A generic error whose cause only the agent's own stderr names (a JSON-RPC "Internal error" beside a logged
  // 529): the stderr of this prompt is the evidence, when it alone classifies with high confidence.
  if (
    classification.class === 'unclassified' &&
    classification.reason === 'unknown' &&
    facts.stderrText.trim() !== ''
  ) {
    const fromStderr = stderrEvidence(facts.origin, facts.stderrText);
    const byStderr = classify(fromStderr, options);
    if (byStderr.class !== 'unclassified' && byStderr.confidence === 'high') {
      evidence = fromStderr;
      classification = byStderr;
    }
  }
  const safety = assessReplaySafety(facts.replay, {
    current: facts.key,
    failure: classification,
    failureMessage: messageOf(evidence),
  });
  return {
    outcome: 'failure',
    generation: facts.origin.promptGeneration,
    evidence,
    classification,
    safety,
    replay: facts.replay,
  };
}

function messageOf(evidence: EvidenceEnvelope): string {
  switch (evidence.kind) {
    case 'acp_error':
      // The agent's data as the envelope bounds it (depth, entries, bytes): `JSON.stringify` of data nested
      // 100,000 deep, which `JSON.parse` reads, overflows the stack and the turn is never judged.
      return `${evidence.error.message} ${evidence.error.data === undefined ? '' : boundedJson(evidence.error.data).text}`;
    case 'stderr':
      return evidence.text;
    case 'process_exit':
      return evidence.stderr_tail ?? '';
    default:
      return '';
  }
}
