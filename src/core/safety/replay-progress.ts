import {
  appendReplayEvent,
  openReplayEvidence,
  snapshotReplayEvidence,
  type ReplayEvidence,
  type ReplayKey,
} from './replay-evidence.js';

/**
 * What an attempt did before it failed, as plain facts (the `progress` of `recourse simulate`, the `replay` of an
 * adapter's failure report). Missing facts are false: an adapter that says nothing at all passes no replay
 * evidence instead, which fails closed.
 */
export interface ReplayProgress {
  readonly assistant_output?: boolean;
  readonly tool_activity?: boolean;
  readonly thought?: boolean;
  /** The assistant's text, when it matters that it is a matching diagnostic of the error (SAF-06). */
  readonly assistant_text?: string | null;
  /** A utility call produced part of its result (CAL-09). */
  readonly partial_result?: boolean;
}

/** The immutable replay evidence these facts amount to, for the attempt `key` names. */
export function replayEvidenceOf(key: ReplayKey, progress: ReplayProgress): ReplayEvidence {
  let evidence = openReplayEvidence(key);
  const text = progress.assistant_text ?? null;
  if (progress.assistant_output === true || text !== null) {
    evidence = appendReplayEvent(evidence, { kind: 'assistant_output', text: text ?? 'output' });
  }
  if (progress.thought === true) evidence = appendReplayEvent(evidence, { kind: 'thought' });
  if (progress.tool_activity === true) evidence = appendReplayEvent(evidence, { kind: 'tool_call' });
  if (progress.partial_result === true) evidence = appendReplayEvent(evidence, { kind: 'partial_result' });
  return snapshotReplayEvidence(evidence);
}
