import type { EngineEvent, SessionEvent } from '../../engine/index.js';
import type { Route, TranscriptMessage } from '../../core/index.js';

/** One JSON Lines record of `recourse simulate`; `at` and `deadline_at` are seconds from the scenario start. */
export type SimulationLine = Record<string, unknown>;

/** Seconds from the start, to the millisecond. */
export function secondsFrom(startMs: number, atMs: number): number {
  return Math.round(atMs - startMs) / 1000;
}

/** The state line of a transition (acknowledging a same-candidate dispatch is no transition and prints nothing). */
export function stateLine(
  startMs: number,
  event: Extract<EngineEvent, { type: 'transition' }>,
): SimulationLine {
  const route = event.route;
  const line: SimulationLine = {
    at: secondsFrom(startMs, event.atMs),
    state: route.state,
    candidate: route.candidate,
    generation: route.generation,
    code: route.lastFailure?.code ?? null,
    class: route.lastFailure?.class ?? null,
    retry_ordinal: route.state === 'retry_wait' || route.state === 'retrying' ? route.retryOrdinal : null,
    deadline_at: deadlineOf(route) === null ? null : secondsFrom(startMs, deadlineOf(route)!),
    pending_outcome:
      route.state === 'retry_wait' || route.state === 'waiting_for_reset' ? route.pendingOutcome : null,
    reason: route.state === 'action_required' ? route.reason : event.decision,
  };
  if (route.state === 'switching') line.next_candidate = route.nextCandidate;
  if (route.state === 'action_required' && route.detail !== null) line.detail = route.detail;
  if (route.state === 'action_required' && route.recoveryActions.length > 0)
    line.recovery_actions = route.recoveryActions;
  // After an ambiguous dispatch the route names the attempt whose delivery is uncertain.
  if (route.state === 'action_required' && route.reason === 'ambiguous_dispatch' && route.dispatch !== null)
    line.uncertain = { candidate: route.dispatch.candidate, kind: route.dispatch.kind };
  return line;
}

/** A circuit write: `{"circuit":{"key","state","open_until","probe_owner"}}` (scenarios with routes only). */
export function circuitLine(
  startMs: number,
  event: Extract<EngineEvent, { type: 'circuit' }>,
): SimulationLine {
  const c = event.circuit;
  return {
    at: secondsFrom(startMs, event.atMs),
    circuit: {
      key: c.key,
      state: c.state,
      open_until: c.state === 'closed' ? null : secondsFrom(startMs, c.openUntilMs),
      probe_owner: c.probeOwner,
    },
  };
}

export function dispatchLine(
  startMs: number,
  event: Extract<EngineEvent, { type: 'dispatch' }>,
): SimulationLine {
  const { candidate, generation, kind } = event.intent;
  return { at: secondsFrom(startMs, event.atMs), dispatch: { candidate, generation, kind } };
}

function deadlineOf(route: Route): number | null {
  return route.state === 'waiting_for_reset' || route.state === 'retry_wait' ? route.deadlineMs : null;
}

/** A notice operation: `{"notice":{"op","message_id","attempt","max_attempts","deadline_at"}}`. */
export function noticeLine(
  startMs: number,
  event: Extract<SessionEvent, { type: 'notice' }>,
): SimulationLine {
  const m = event.message.metadata;
  const deadline = typeof m.deadline_at === 'string' ? Date.parse(m.deadline_at) : Number.NaN;
  return {
    at: secondsFrom(startMs, event.atMs),
    notice: {
      op: event.op,
      message_id: event.message.id,
      attempt: m.attempt ?? null,
      max_attempts: m.max_attempts ?? null,
      deadline_at: Number.isFinite(deadline) ? secondsFrom(startMs, deadline) : null,
    },
  };
}

/** The session transcript at the end of the run, every message with its metadata. */
export function transcriptLine(startMs: number, messages: readonly TranscriptMessage[]): SimulationLine {
  return {
    transcript: messages.map((m) => ({
      message_id: m.id,
      kind: m.kind,
      content: m.content,
      metadata: m.metadata,
      created_at: secondsFrom(startMs, m.createdAtMs),
      updated_at: secondsFrom(startMs, m.updatedAtMs),
    })),
  };
}
