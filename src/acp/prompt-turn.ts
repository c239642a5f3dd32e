import {
  appendReplayEvent,
  observeUpdate,
  openReplayEvidence,
  snapshotReplayEvidence,
  startTurn,
  type ReplayEvent,
  type ReplayEvidence,
  type ReplayKey,
  type TurnProjection,
} from '../core/index.js';
import { EvidenceMutex } from './evidence-mutex.js';

/** What the session's listener is told about each update, in wire order. */
export interface UpdateInfo {
  /** The prompt generation the update belongs to; 0 outside a prompt (the history `session/load` replays). */
  readonly generation: number;
  /** The update is a control chunk a projection took as a failure marker: it is not assistant output. */
  readonly suppressed: boolean;
}
export type UpdateListener = (update: Readonly<Record<string, unknown>>, info: UpdateInfo) => void;

/**
 * The prompt-turn state of one ACP session and its ordered notification worker. Updates are applied one at a
 * time in wire order under the evidence mutex: the Cursor/Codex projection observes each (and may suppress a
 * control chunk), and the replay evidence of the active generation records output, thoughts and tool activity.
 * Updates of any other generation (stale, or the history a `session/load` replays) change neither.
 */
export class PromptTurn {
  readonly mutex = new EvidenceMutex();
  private projection: TurnProjection | null = null;
  private replay: ReplayEvidence | null = null;

  constructor(
    private readonly adapterId: string,
    private readonly listener: UpdateListener,
    private readonly record: (event: ReplayEvent) => void,
  ) {}

  /** Opens generation `key.promptGeneration` (call before `session/prompt` is written). */
  begin(key: ReplayKey, providerSessionId: string): Promise<void> {
    return this.mutex.run(() => {
      this.projection = startTurn(this.adapterId, key.promptGeneration);
      this.replay = openReplayEvidence(key, providerSessionId);
    });
  }

  /** Queues one update the wire tap saw; `generation` is the generation active when it arrived. */
  enqueue(generation: number, update: Readonly<Record<string, unknown>>): void {
    void this.mutex.run(() => this.apply(generation, update));
  }

  /** Resolves once every update queued so far has been applied (the second half of the prompt barrier). */
  drain(): Promise<void> {
    return this.mutex.run(() => undefined);
  }

  /** Runs `judge` on the turn's projection and an immutable replay snapshot, under the evidence mutex. */
  examine<T>(judge: (projection: TurnProjection | null, replay: ReplayEvidence | null) => T): Promise<T> {
    return this.mutex.run(() =>
      judge(this.projection, this.replay ? snapshotReplayEvidence(this.replay) : null),
    );
  }

  private apply(generation: number, update: Readonly<Record<string, unknown>>): void {
    const active = this.projection?.activeGeneration ?? 0;
    let suppressed = false;
    if (generation !== 0 && generation === active && this.projection !== null) {
      const observed = observeUpdate(this.projection, {
        adapterId: this.adapterId,
        promptGeneration: generation,
        update,
      });
      this.projection = observed.turn;
      suppressed = observed.suppress;
      const event = suppressed ? null : replayEventOf(update);
      if (event !== null && this.replay !== null) {
        this.replay = appendReplayEvent(this.replay, event);
        this.record(event);
      }
    }
    try {
      this.listener(update, { generation, suppressed });
    } catch {
      // A listener must never break the worker.
    }
  }
}

/** What an update amounts to for the safety gate; null for updates that are neither output nor activity. */
function replayEventOf(update: Readonly<Record<string, unknown>>): ReplayEvent | null {
  switch (update.sessionUpdate) {
    case 'agent_message_chunk': {
      const text = textOf(update.content);
      // A non-text block (an image, a resource) is output too.
      return { kind: 'assistant_output', text: text ?? 'non-text output' };
    }
    case 'agent_thought_chunk':
      return (textOf(update.content) ?? 'x').trim() === '' ? null : { kind: 'thought' };
    case 'tool_call':
      return { kind: 'tool_call' };
    case 'tool_call_update':
      return { kind: 'tool_update' };
    default:
      return null;
  }
}

function textOf(content: unknown): string | null {
  if (typeof content !== 'object' || content === null) return null;
  const c = content as { type?: unknown; text?: unknown };
  return c.type === 'text' && typeof c.text === 'string' ? c.text : null;
}
