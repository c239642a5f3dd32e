import { cursorConstantDiagnostic, matchCursorRetriableDiagnostic } from './cursor-diagnostic.js';
import type { AcpErrorEnvelope } from '../evidence/envelope.js';
import { trimUnicode } from '../text/whitespace.js';
import { formatIsoUtc } from '../time/iso-time.js';

/**
 * Normal-completion failure projection: some agents report an upstream failure as an ordinary assistant
 * chunk and then end the turn normally. The ACP transport feeds every ordered update of a turn through
 * `observeUpdate` (suppressing the control chunks it flags) and, after `session/prompt` has returned and the
 * notification queue is drained, calls `settleTurn`: the turn ends either as a normal completion or as exactly
 * one provider error carrying a bounded constant diagnostic, never the raw assistant text.
 *
 * Cursor (`cursor-acp`): a chunk `Error: RetriableError: <suffix>` arms the marker.
 * Codex (`codex-acp`): a `session_info_update` whose `_meta` reports a system error, together with a chunk
 * saying "(Selected) model is at capacity" in the same generation, arms it.
 * In both, a later non-empty assistant or thought chunk, or a new tool call, of the same generation clears the
 * marker (the agent resumed on its own); a tool-call update does not; a later matching chunk re-arms it.
 */
export const projectionAdapterIds = ['cursor-acp', 'codex-acp'] as const;
export type ProjectionAdapterId = (typeof projectionAdapterIds)[number];

export const codexCapacityDiagnostic = 'Selected model is at capacity. Please try a different model.';

interface ProjectionSpec {
  readonly source: 'cursor_acp' | 'codex_acp';
  readonly diagnostic: string;
}

const specs: Record<ProjectionAdapterId, ProjectionSpec> = {
  'cursor-acp': { source: 'cursor_acp', diagnostic: cursorConstantDiagnostic },
  'codex-acp': { source: 'codex_acp', diagnostic: codexCapacityDiagnostic },
};

/** One ordered ACP notification as the transport received it. */
export interface TurnNotification {
  /** Identity of the adapter that received the notification. */
  readonly adapterId: string;
  readonly promptGeneration: number;
  /** The ACP `SessionUpdate` object (`{sessionUpdate: 'agent_message_chunk', content: {...}}`, ...). */
  readonly update: unknown;
}

/** Projection state of the active turn; immutable, replaced by each observation. */
export interface TurnProjection {
  readonly adapterId: string;
  readonly activeGeneration: number;
  /** The marker: the turn must end as a provider error unless the agent resumes. */
  readonly pending: boolean;
  /** Codex only: a system-error session-info update was seen in this generation. */
  readonly systemErrorSeen: boolean;
  /** Codex only: a capacity chunk was seen in this generation. */
  readonly capacityChunkSeen: boolean;
}

export interface Observation {
  readonly turn: TurnProjection;
  /** The chunk is a control chunk: do not pass it on as assistant output. */
  readonly suppress: boolean;
}

export type TurnOutcome =
  { readonly outcome: 'complete' } | { readonly outcome: 'error'; readonly error: ProjectedProviderError };

/** The single error a projected turn ends with. `evidence` is ready for the classifier. */
export interface ProjectedProviderError {
  readonly source: 'cursor_acp' | 'codex_acp';
  readonly provider_id: ProjectionAdapterId;
  readonly diagnostic: string;
  readonly prompt_generation: number;
  readonly occurred_at: string;
  readonly evidence: AcpErrorEnvelope;
}

export function startTurn(adapterId: string, promptGeneration: number): TurnProjection {
  return {
    adapterId,
    activeGeneration: promptGeneration,
    pending: false,
    systemErrorSeen: false,
    capacityChunkSeen: false,
  };
}

/** Applies one ordered notification to the turn. Unrelated adapters and stale generations change nothing. */
export function observeUpdate(turn: TurnProjection, notification: TurnNotification): Observation {
  const unchanged = { turn, suppress: false };
  // Check 1: identity. Only the two projecting adapters, and only their own notifications.
  if (!isProjectionAdapter(turn.adapterId) || notification.adapterId !== turn.adapterId) return unchanged;
  // Check 2 (generation half): a non-zero generation that matches the active turn.
  if (notification.promptGeneration === 0 || notification.promptGeneration !== turn.activeGeneration)
    return unchanged;
  const update = readUpdate(notification.update);
  if (update === null) return unchanged;
  return turn.adapterId === 'cursor-acp' ? observeCursor(turn, update) : observeCodex(turn, update);
}

function observeCursor(turn: TurnProjection, update: NormalizedUpdate): Observation {
  // Checks 2-4: a non-empty assistant chunk whose trimmed text has the prefix and a bounded, non-empty suffix.
  if (update.type === 'agent_message_chunk' && update.text !== null && trimUnicode(update.text) !== '') {
    if (matchCursorRetriableDiagnostic(update.text).matched)
      return { turn: { ...turn, pending: true }, suppress: true };
  }
  return { turn: clearedBy(update) ? { ...turn, pending: false } : turn, suppress: false };
}

const capacityChunk = /^(?:selected )?model is at capacity\b/i;

function observeCodex(turn: TurnProjection, update: NormalizedUpdate): Observation {
  if (update.type === 'session_info_update' && update.systemError) {
    const next = { ...turn, systemErrorSeen: true };
    return { turn: { ...next, pending: next.capacityChunkSeen }, suppress: false };
  }
  if (
    update.type === 'agent_message_chunk' &&
    update.text !== null &&
    capacityChunk.test(trimUnicode(update.text))
  ) {
    // Suppress only once the system error is known; a capacity sentence alone stays ordinary output.
    const next = { ...turn, capacityChunkSeen: true };
    return { turn: { ...next, pending: next.systemErrorSeen }, suppress: next.systemErrorSeen };
  }
  if (clearedBy(update))
    return { turn: { ...turn, pending: false, capacityChunkSeen: false }, suppress: false };
  return { turn, suppress: false };
}

/** Renewed provider activity: a non-empty assistant or thought chunk, or a new tool call (not a tool update). */
function clearedBy(update: NormalizedUpdate): boolean {
  if (update.type === 'tool_call') return true;
  if (update.type === 'agent_message_chunk' || update.type === 'agent_thought_chunk') {
    return update.text !== null && trimUnicode(update.text) !== '';
  }
  return false;
}

/**
 * Decides how the turn ends. Call only after the prompt request returned and the notification queue was
 * drained (the prompt barrier), so the agent's own retry has either resumed or finished.
 */
export function settleTurn(turn: TurnProjection, occurredAtMs: number): TurnOutcome {
  if (!turn.pending || !isProjectionAdapter(turn.adapterId)) return { outcome: 'complete' };
  const spec = specs[turn.adapterId];
  const occurredAt = formatIsoUtc(occurredAtMs);
  return {
    outcome: 'error',
    error: {
      source: spec.source,
      provider_id: turn.adapterId,
      diagnostic: spec.diagnostic,
      prompt_generation: turn.activeGeneration,
      occurred_at: occurredAt,
      evidence: {
        kind: 'acp_error',
        provider: turn.adapterId,
        observed_at: occurredAt,
        prompt_generation: turn.activeGeneration,
        error: { code: -32603, message: spec.diagnostic },
      },
    },
  };
}

function isProjectionAdapter(id: string): id is ProjectionAdapterId {
  return id === 'cursor-acp' || id === 'codex-acp';
}

interface NormalizedUpdate {
  readonly type: string;
  readonly text: string | null;
  readonly systemError: boolean;
}

function readUpdate(value: unknown): NormalizedUpdate | null {
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  const type = record.sessionUpdate;
  if (typeof type !== 'string') return null;
  const content = record.content;
  const text =
    typeof content === 'object' && content !== null && (content as Record<string, unknown>).type === 'text'
      ? (content as Record<string, unknown>).text
      : null;
  return {
    type,
    text: typeof text === 'string' ? text : null,
    systemError: reportsSystemError(record._meta),
  };
}

/** `_meta.systemError === true`, `_meta.system_error === true` or `_meta.codex.systemError === true`. */
function reportsSystemError(meta: unknown): boolean {
  if (typeof meta !== 'object' || meta === null) return false;
  const m = meta as Record<string, unknown>;
  if (m.systemError === true || m.system_error === true) return true;
  const codex = m.codex;
  return (
    typeof codex === 'object' && codex !== null && (codex as Record<string, unknown>).systemError === true
  );
}
