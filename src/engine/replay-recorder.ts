import {
  appendReplayEvent,
  openReplayEvidence,
  sameReplayKey,
  snapshotReplayEvidence,
  type ReplayEvent,
  type ReplayEvidence,
  type ReplayKey,
} from '../core/index.js';

export interface ReplayRecorderOptions {
  /** Live prompts kept at once; the oldest is dropped past it (its snapshot is then missing: unsafe). */
  readonly maxPrompts?: number;
}

/**
 * Records the replay evidence of every prompt (REQUIREMENTS SAF-09 to SAF-12): what the agent said, thought and
 * did, per (session, execution, prompt generation), for dynamic routes and interactive sessions alike. An adapter
 * `begin`s each prompt, `record`s its stream in delivery order, and takes the immutable `snapshot` before it
 * marks the turn complete; the snapshot travels with the failure report, so whatever order another consumer
 * sees stream events and the failure in, the replay decision is the same. Events for a key that was never begun
 * (a stale execution or generation) are dropped: they cannot change the current prompt's evidence.
 */
export class ReplayRecorder {
  private readonly live = new Map<string, ReplayEvidence>();
  private readonly maxPrompts: number;

  constructor(options: ReplayRecorderOptions = {}) {
    this.maxPrompts = options.maxPrompts ?? 10_000;
  }

  /** A prompt begins: its evidence starts empty (a prompt begun twice starts over). */
  begin(key: ReplayKey, providerSessionId: string | null = null): void {
    const id = keyOf(key);
    this.live.delete(id);
    this.live.set(id, openReplayEvidence(key, providerSessionId));
    if (this.live.size > this.maxPrompts) this.live.delete(this.live.keys().next().value!);
  }

  /** One stream event of the prompt; false when the key is not a live prompt (the event is dropped). */
  record(key: ReplayKey, event: ReplayEvent): boolean {
    const id = keyOf(key);
    const evidence = this.live.get(id);
    if (evidence === undefined || !sameReplayKey(evidence.key, key)) return false;
    this.live.set(id, appendReplayEvent(evidence, event));
    return true;
  }

  /** The immutable snapshot of the prompt so far, or null when it was never begun (which fails closed). */
  snapshot(key: ReplayKey): ReplayEvidence | null {
    const evidence = this.live.get(keyOf(key));
    return evidence === undefined ? null : snapshotReplayEvidence(evidence);
  }

  /** The prompt's turn is over: its live record is released (snapshots already taken stay valid). */
  end(key: ReplayKey): void {
    this.live.delete(keyOf(key));
  }

  /** Live prompts (a leak test reads this). */
  size(): number {
    return this.live.size;
  }
}

function keyOf(key: ReplayKey): string {
  return JSON.stringify([key.sessionId, key.executionId, key.promptGeneration]);
}
