import type { Dispatcher } from '../engine/dispatcher.js';
import type { Engine } from '../engine/engine.js';
import { ReplayRecorder } from '../engine/replay-recorder.js';
import type { DispatchIntent, EvidenceEnvelope, JsonValue, ReplayKey } from '../core/index.js';
import type { AcpAgentOptions } from './acp-agent.js';
import type { LaunchRecipe } from './launch-recipe.js';
import { runAcpTurn, type AcpTurn } from './run-acp-turn.js';

/** How a retry continues: `resume` the provider-native session (`session/load`), or start `fresh` (`session/new`). */
export type ContinuationMode = 'resume' | 'fresh';

export interface AcpDispatcherOptions {
  /** The launch recipe of each candidate, by the candidate's profile id. */
  readonly recipes: Readonly<Record<string, LaunchRecipe>>;
  /** The engine the outcomes are reported to (a function: the engine is usually built after its dispatcher). */
  readonly engine: () => Pick<Engine, 'reportFailure' | 'reportSuccess'>;
  /** Default continuation of a retry on the same candidate: `resume` (default) or `fresh`. */
  readonly continuation?: ContinuationMode;
  /** Where a report that could not be made goes (the engine closed meanwhile, say). */
  readonly onError?: (error: unknown) => void;
  /** Each judged turn, with the intent it ran (for live progress). */
  readonly onTurn?: (intent: DispatchIntent, turn: AcpTurn) => void;
  readonly onUpdate?: AcpAgentOptions['onUpdate'];
  readonly environment?: AcpAgentOptions['environment'];
}

/**
 * The engine's Dispatcher over ACP. Each dispatch starts the candidate's agent from its recipe and sends the
 * route's cached prompt (the payload: a string, or `{"prompt": TEXT, "continuation": "resume" | "fresh"}`). A
 * retry of the same candidate resumes the provider-native session of the route's last turn with `session/load`
 * plus the cached prompt when the continuation is `resume` and the agent supports it (the recovery message's
 * Resume); otherwise, and for a successor candidate, it opens `session/new` (Start fresh). The attempt is accepted
 * once the prompt is on its way (or the turn ended before that); its judged outcome is reported to the engine
 * with the attempt's identity and replay evidence, only after the prompt barrier: nothing is decided while the
 * agent's own `session/prompt` is open.
 */
export class AcpDispatcher implements Dispatcher {
  private readonly recorder = new ReplayRecorder();
  /** The provider-native session of each route's last turn, by route and candidate. */
  private readonly sessions = new Map<string, string>();
  private readonly cancels = new Map<string, () => Promise<void>>();

  constructor(private readonly options: AcpDispatcherOptions) {}

  dispatch(intent: DispatchIntent, payload: JsonValue | null): Promise<void> {
    const key: ReplayKey = {
      sessionId: intent.routeId,
      executionId: intent.id,
      promptGeneration: intent.generation,
    };
    const recipe = this.options.recipes[intent.candidate];
    const cached = readPayload(payload);
    if (recipe === undefined || cached === null) {
      const message =
        recipe === undefined
          ? `no launch recipe for candidate ${JSON.stringify(intent.candidate)}`
          : 'the route payload has no prompt (a string, or {"prompt": TEXT})';
      // Nothing was started: the attempt ends at once, as a failure a person must look at.
      void this.report(intent, key, { kind: 'sdk_exception', name: 'AcpDispatchError', message }).catch(
        (error: unknown) => this.tell(error),
      );
      return Promise.resolve();
    }
    const sessionKey = `${intent.routeId}\u0000${intent.candidate}`;
    const mode = cached.continuation ?? this.options.continuation ?? 'resume';
    const resumable = intent.kind !== 'initial' && intent.kind !== 'successor' && mode === 'resume';
    const resumeSessionId = resumable ? (this.sessions.get(sessionKey) ?? null) : null;
    this.recorder.begin(key);
    let accept: () => void = () => undefined;
    // Cancellable from the start: an agent that never answers `initialize` or `session/new` is ended on cancel.
    const abort = new AbortController();
    const ownCancel = () => {
      abort.abort();
      return Promise.resolve();
    };
    this.cancels.set(intent.routeId, ownCancel);
    // Once the turn ended there is nothing to cancel; the route's next attempt may already have registered its own.
    const ended = () => {
      accept();
      if (this.cancels.get(intent.routeId) === ownCancel) this.cancels.delete(intent.routeId);
    };
    const accepted = new Promise<void>((resolve) => (accept = resolve));
    void runAcpTurn(recipe, {
      prompt: cached.prompt,
      invocationId: intent.id,
      replaySessionId: intent.routeId,
      resumeSessionId,
      record: (event) => void this.recorder.record(key, event),
      ...(this.options.onUpdate === undefined ? {} : { onUpdate: this.options.onUpdate }),
      ...(this.options.environment === undefined ? {} : { environment: this.options.environment }),
      signal: abort.signal,
      onStarted: (started) => {
        this.sessions.set(sessionKey, started.sessionId);
        accept();
      },
    })
      .then(
        async (turn) => {
          ended();
          this.options.onTurn?.(intent, turn);
          await this.settle(intent, key, turn);
        },
        // Only the launch throws (a `from_env` variable is missing): the attempt ends as a failure.
        async (error: unknown) => {
          ended();
          const message = error instanceof Error ? error.message : String(error);
          await this.report(intent, key, { kind: 'sdk_exception', name: 'AcpLaunchError', message });
        },
      )
      .catch((error: unknown) => this.tell(error))
      .finally(() => {
        this.recorder.end(key);
      });
    return accepted;
  }

  /**
   * Cancels the route's running attempt: `session/cancel` for an open prompt, or, while its agent is still starting,
   * the end of the agent's process group. The attempt then reports a `Cancelled` failure, which stops for a person.
   * False when the route has no attempt running here.
   */
  async cancel(routeId: string): Promise<boolean> {
    const cancel = this.cancels.get(routeId);
    if (cancel === undefined) return false;
    await cancel();
    return true;
  }

  private async settle(intent: DispatchIntent, key: ReplayKey, turn: AcpTurn): Promise<void> {
    const identity = { routeId: intent.routeId, generation: intent.generation, invocationId: intent.id };
    if (turn.outcome === 'success') {
      await this.options.engine().reportSuccess(identity);
      return;
    }
    const evidence: EvidenceEnvelope =
      turn.outcome === 'failure'
        ? turn.evidence
        : { kind: 'sdk_exception', name: 'Cancelled', message: 'the prompt was cancelled on request' };
    await this.report(intent, key, evidence);
  }

  private async report(intent: DispatchIntent, key: ReplayKey, evidence: EvidenceEnvelope): Promise<void> {
    // The engine fences by the attempt's identity: the evidence names the intent and its generation.
    await this.options.engine().reportFailure({
      routeId: intent.routeId,
      generation: intent.generation,
      invocationId: intent.id,
      evidence: { ...evidence, invocation_id: intent.id, prompt_generation: intent.generation },
      replay: this.recorder.snapshot(key),
    });
  }

  private tell(error: unknown): void {
    try {
      this.options.onError?.(error);
    } catch {
      // Nowhere left to report to.
    }
  }
}

function readPayload(
  payload: JsonValue | null,
): { readonly prompt: string; readonly continuation: ContinuationMode | null } | null {
  if (typeof payload === 'string')
    return payload.trim() === '' ? null : { prompt: payload, continuation: null };
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  const fields = payload as { readonly prompt?: JsonValue; readonly continuation?: JsonValue };
  const prompt = fields.prompt;
  if (typeof prompt !== 'string' || prompt.trim() === '') return null;
  const c = fields.continuation;
  return { prompt, continuation: c === 'resume' || c === 'fresh' ? c : null };
}
