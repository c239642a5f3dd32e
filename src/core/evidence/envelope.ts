/**
 * The evidence envelope: the wire format adapters submit (snake_case JSON, one object per observation).
 * `parseEnvelope` validates it into the bounded, normalized `Evidence` the classifier reads.
 */

export const evidenceKinds = [
  'http',
  'acp_error',
  'acp_update',
  'stderr',
  'process_exit',
  'sdk_exception',
] as const;
export type EvidenceKind = (typeof evidenceKinds)[number];

/** A header value as HTTP clients expose it. */
export type HeaderValue = string | number | readonly string[];

/** Fields every envelope may carry. Ids follow the corpus (`anthropic`, `claude-code`, ...); unknown ids are fine. */
export interface EnvelopeCommon {
  /** API provider id (`anthropic`, `openai`, `gemini`, ...). */
  readonly provider?: string | null;
  /** Agent CLI id (`claude-code`, `codex`, `cursor`, ...). */
  readonly agent?: string | null;
  readonly model?: string | null;
  /** ISO-8601 time with a zone; relative timing hints are measured from it. */
  readonly observed_at?: string | null;
  readonly invocation_id?: string | null;
  readonly prompt_generation?: number | null;
  readonly phase?: string | null;
}

export interface HttpEnvelope extends EnvelopeCommon {
  readonly kind: 'http';
  /** HTTP status; 0 when no response status is known. */
  readonly status: number;
  readonly headers?: Readonly<Record<string, HeaderValue>>;
  /** Response body as text (a JSON value is accepted and serialized). */
  readonly body?: unknown;
}

export interface AcpErrorEnvelope extends EnvelopeCommon {
  readonly kind: 'acp_error';
  /** The JSON-RPC error object answering `session/prompt`. */
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown };
}

export interface AcpUpdateEnvelope extends EnvelopeCommon {
  readonly kind: 'acp_update';
  /** An ACP `SessionUpdate` (`{sessionUpdate: 'agent_message_chunk', content: {...}}`, ...). */
  readonly update: Readonly<Record<string, unknown>>;
}

export interface StderrEnvelope extends EnvelopeCommon {
  readonly kind: 'stderr';
  readonly text: string;
}

export interface ProcessExitEnvelope extends EnvelopeCommon {
  readonly kind: 'process_exit';
  readonly exit_code: number | null;
  readonly signal?: string | null;
  readonly stderr_tail?: string | null;
}

export interface SdkExceptionEnvelope extends EnvelopeCommon {
  readonly kind: 'sdk_exception';
  /** Exception class name (`RateLimitError`, `ThrottlingException`, or just `Error`). */
  readonly name: string;
  readonly message: string;
  readonly status?: number | null;
  readonly headers?: Readonly<Record<string, HeaderValue>>;
}

export type EvidenceEnvelope =
  | HttpEnvelope
  | AcpErrorEnvelope
  | AcpUpdateEnvelope
  | StderrEnvelope
  | ProcessExitEnvelope
  | SdkExceptionEnvelope;
