/**
 * Replay evidence of one prompt: what the agent did before it failed, kept per (session, execution, prompt
 * generation). It is a bounded fold of the stream (flags and counts, plus the assistant text up to a bound),
 * so its order of arrival does not matter; the lifecycle takes an immutable snapshot before it marks the
 * terminal completion, and the gate decides on that snapshot alone.
 */
export interface ReplayKey {
  readonly sessionId: string;
  readonly executionId: string;
  readonly promptGeneration: number;
}

export const replayEventKinds = [
  'assistant_output',
  'thought',
  'tool_call',
  'tool_update',
  'ambiguous_delivery',
  'partial_result',
] as const;
export type ReplayEventKind = (typeof replayEventKinds)[number];

export interface ReplayEvent {
  readonly kind: ReplayEventKind;
  /** The text of an assistant chunk (other kinds carry none). */
  readonly text?: string;
}

export interface ReplayEvidence {
  readonly key: ReplayKey;
  /** The provider-native session, when the agent reports one (a resumable-retry guarantee must name it). */
  readonly providerSessionId: string | null;
  readonly counts: Readonly<Record<ReplayEventKind, number>>;
  /** Non-empty assistant text of this generation, in order, up to `assistantTextBytes`. */
  readonly assistantText: string;
  /** The assistant text went past its bound: it is output, never a diagnostic. */
  readonly assistantOverflow: boolean;
}

/** Assistant text kept for the diagnostic comparison; longer output is certainly not a diagnostic. */
export const assistantTextLimit = 4096;

const zeroCounts = Object.freeze(Object.fromEntries(replayEventKinds.map((k) => [k, 0]))) as Record<
  ReplayEventKind,
  number
>;

export function openReplayEvidence(key: ReplayKey, providerSessionId: string | null = null): ReplayEvidence {
  return Object.freeze({
    key: Object.freeze({ ...key }),
    providerSessionId,
    counts: zeroCounts,
    assistantText: '',
    assistantOverflow: false,
  });
}

/** Folds one event in; returns a new record (the input is never changed). Empty assistant chunks do not count. */
export function appendReplayEvent(evidence: ReplayEvidence, event: ReplayEvent): ReplayEvidence {
  if (event.kind === 'assistant_output' && (event.text ?? '').trim() === '') return evidence;
  const counts = Object.freeze({ ...evidence.counts, [event.kind]: evidence.counts[event.kind] + 1 });
  if (event.kind !== 'assistant_output') return Object.freeze({ ...evidence, counts });
  const text = evidence.assistantText + (event.text ?? '');
  const overflow = evidence.assistantOverflow || text.length > assistantTextLimit;
  return Object.freeze({
    ...evidence,
    counts,
    assistantText: overflow ? '' : text,
    assistantOverflow: overflow,
  });
}

/**
 * The immutable snapshot the gate decides on. Records are already immutable values; the snapshot is a named
 * copy so that later appends to the live record can never change a decision already taken.
 */
export function snapshotReplayEvidence(evidence: ReplayEvidence): ReplayEvidence {
  return Object.freeze({
    ...evidence,
    key: Object.freeze({ ...evidence.key }),
    counts: Object.freeze({ ...evidence.counts }),
  });
}

export function sameReplayKey(a: ReplayKey, b: ReplayKey): boolean {
  return (
    a.sessionId === b.sessionId &&
    a.executionId === b.executionId &&
    a.promptGeneration === b.promptGeneration
  );
}
