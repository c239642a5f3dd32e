import { RequestError } from '@agentclientprotocol/sdk';
import { formatIsoUtc, type EvidenceEnvelope, type LifecyclePhase } from '../core/index.js';
import type { ProcessExit } from './agent-process.js';

/** Who and when a piece of evidence belongs to: the invocation, its prompt generation and lifecycle phase. */
export interface EvidenceOrigin {
  readonly agent: string;
  readonly provider: string | null;
  readonly invocationId: string;
  readonly promptGeneration: number;
  readonly phase: LifecyclePhase;
  readonly observedAtMs: number;
}

function common(origin: EvidenceOrigin) {
  return {
    agent: origin.agent,
    ...(origin.provider === null ? {} : { provider: origin.provider }),
    invocation_id: origin.invocationId,
    prompt_generation: origin.promptGeneration,
    phase: origin.phase,
    observed_at: formatIsoUtc(origin.observedAtMs),
  };
}

/** A structured JSON-RPC error, as the agent answered a request. */
export function acpErrorEvidence(origin: EvidenceOrigin, error: RequestError): EvidenceEnvelope {
  return {
    kind: 'acp_error',
    ...common(origin),
    error: {
      code: error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    },
  };
}

/**
 * The agent process ended (or never started), with the managed stderr tail; `cause`, when known, says why in the
 * tail's last line (the spawn error, or the transport Recourse closed).
 */
export function processExitEvidence(
  origin: EvidenceOrigin,
  exit: ProcessExit,
  stderrTail: string,
  cause: Error | null,
): EvidenceEnvelope {
  const tail = cause === null ? stderrTail : `${stderrTail}\n${cause.message}`.trim();
  return {
    kind: 'process_exit',
    ...common(origin),
    exit_code: exit.code,
    signal: exit.signal,
    stderr_tail: tail,
  };
}

export function stderrEvidence(origin: EvidenceOrigin, text: string): EvidenceEnvelope {
  return { kind: 'stderr', ...common(origin), text };
}

export function updateEvidence(
  origin: EvidenceOrigin,
  update: Readonly<Record<string, unknown>>,
): EvidenceEnvelope {
  return { kind: 'acp_update', ...common(origin), update };
}

/** The SDK rejects a request with a `RequestError` when the agent answered with one; anything else is transport. */
export function isAgentError(error: unknown): error is RequestError {
  return error instanceof RequestError;
}

/** An answer of the agent that breaks the protocol (a `session/new` without a session id): nothing can follow it. */
export class AgentProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AcpProtocolError';
  }
}

/** Evidence of an `AgentProtocolError`: what the agent answered wrong, in the phase it answered it. */
export function protocolErrorEvidence(origin: EvidenceOrigin, error: AgentProtocolError): EvidenceEnvelope {
  return { kind: 'sdk_exception', ...common(origin), name: error.name, message: error.message };
}
