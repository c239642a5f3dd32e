import type { EvidenceEnvelope, ReplayProgress } from '../core/index.js';

/**
 * The provider faults the demo fleet meets, each as the evidence an agent would really report. The envelopes are
 * provider-neutral on purpose (no vendor name, no vendor error type): the catalogue's generic rules classify them,
 * and `test/demo/demo-faults.test.ts` pins each to the code and class it is meant to show.
 */
export const demoFaultNames = [
  'overload',
  'throttled',
  'quota',
  'login_expired',
  'stream_cut',
  'after_tool',
  'unknown',
] as const;
export type DemoFaultName = (typeof demoFaultNames)[number];

export interface DemoFault {
  /** The terminal error of the attempt, without its identity (the agent adds the invocation and generation). */
  readonly evidence: EvidenceEnvelope;
  /** What the attempt did before it failed: the effect-safety gate reads it. */
  readonly progress: ReplayProgress;
}

/** Nothing was produced before the error: the safe point where an automatic replay is allowed. */
const untouched: ReplayProgress = { assistant_output: false, tool_activity: false, thought: false };

/** Seconds the scripted rate limit asks to wait (its `Retry-After`): shorter than the demo's reset waits. */
export const demoRetryAfterSeconds = 4;

const overloadedResponse: EvidenceEnvelope = {
  kind: 'http',
  status: 529,
  body: '{"error":{"message":"Overloaded"}}',
};

export const demoFaults: Readonly<Record<DemoFaultName, DemoFault>> = {
  overload: { evidence: overloadedResponse, progress: untouched },
  throttled: {
    evidence: {
      kind: 'http',
      status: 429,
      headers: { 'retry-after': String(demoRetryAfterSeconds) },
      body: '{"error":{"message":"Too many requests, please slow down"}}',
    },
    progress: untouched,
  },
  quota: {
    evidence: {
      kind: 'http',
      status: 402,
      body: '{"error":{"message":"Usage quota exhausted for this billing period"}}',
    },
    progress: untouched,
  },
  login_expired: {
    evidence: {
      kind: 'http',
      status: 401,
      body: '{"error":{"message":"OAuth token has expired. Please log in again."}}',
    },
    progress: untouched,
  },
  stream_cut: {
    evidence: { kind: 'stderr', text: 'Error: stream disconnected before completion' },
    progress: untouched,
  },
  // The same overload, but the agent had already run a tool: replaying could repeat its effect.
  after_tool: {
    evidence: overloadedResponse,
    progress: { assistant_output: true, tool_activity: true, thought: false },
  },
  unknown: {
    evidence: { kind: 'stderr', text: 'Error: the workspace daemon answered in an unexpected dialect' },
    progress: untouched,
  },
};
