import type { EvidenceKind } from './envelope.js';

/** Header entries with lower-cased names, in the order given, bounded. */
export type HeaderList = ReadonlyArray<readonly [name: string, value: string]>;

interface EvidenceBase {
  readonly kind: EvidenceKind;
  readonly providerId: string | null;
  readonly agentId: string | null;
  readonly modelId: string | null;
  /** Epoch ms of `observed_at`, or null when the adapter gave none. */
  readonly observedAtMs: number | null;
  readonly invocationId: string | null;
  readonly promptGeneration: number | null;
  readonly phase: string | null;
  /** JSON pointers of the fields that were cut to their bound. */
  readonly truncated: readonly string[];
}

export interface HttpEvidence extends EvidenceBase {
  readonly kind: 'http';
  /** Null when the envelope said 0 (no status known). */
  readonly status: number | null;
  readonly headers: HeaderList;
  readonly body: string;
}

export interface AcpErrorEvidence extends EvidenceBase {
  readonly kind: 'acp_error';
  readonly rpcCode: number;
  readonly message: string;
  /** `error.data` serialized as bounded JSON text, or null. */
  readonly data: string | null;
}

export interface AcpUpdateEvidence extends EvidenceBase {
  readonly kind: 'acp_update';
  /** The `sessionUpdate` discriminator, when present. */
  readonly updateType: string | null;
  /** Text of a content chunk update, when it carries text. */
  readonly text: string | null;
}

export interface StderrEvidence extends EvidenceBase {
  readonly kind: 'stderr';
  readonly text: string;
}

export interface ProcessExitEvidence extends EvidenceBase {
  readonly kind: 'process_exit';
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stderrTail: string;
}

export interface SdkExceptionEvidence extends EvidenceBase {
  readonly kind: 'sdk_exception';
  readonly name: string;
  readonly message: string;
  readonly status: number | null;
  readonly headers: HeaderList;
}

/** Validated, bounded evidence: what the classifier reads. Produced only by `parseEnvelope`. */
export type Evidence =
  | HttpEvidence
  | AcpErrorEvidence
  | AcpUpdateEvidence
  | StderrEvidence
  | ProcessExitEvidence
  | SdkExceptionEvidence;
