import { statSync } from 'node:fs';
import {
  client,
  MessageTooLargeError,
  ndJsonStream,
  PROTOCOL_VERSION,
  type AnyMessage,
  type ClientConnection,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import {
  openReplayEvidence,
  RecourseError,
  type EvidenceEnvelope,
  type LifecyclePhase,
  type ReplayEvent,
  type ReplayKey,
} from '../core/index.js';
import {
  acpErrorEvidence,
  AgentProtocolError,
  isAgentError,
  processExitEvidence,
  protocolErrorEvidence,
  updateEvidence,
  type EvidenceOrigin,
} from './acp-evidence.js';
import { AgentProcess, type ProcessExit } from './agent-process.js';
import { failure, judgeTurn, type Settlement, type TurnResult } from './judge-turn.js';
import { resolveLaunchEnv, type LaunchRecipe } from './launch-recipe.js';
import { PromptTurn, type UpdateListener } from './prompt-turn.js';
import { sessionUpdateOf, tapStream } from './wire-tap.js';

/** How long standard error must stay quiet after an agent's error before the turn is judged, and the most it waits. */
const stderrQuietMs = 25;
const stderrQuietMaxMs = 250;
/** A launch that cannot start: the recipe's environment does not resolve. Nothing was spawned. */
export class AcpLaunchError extends RecourseError {
  constructor(readonly issues: readonly { readonly path: string; readonly message: string }[]) {
    super(
      'invalid_input',
      `cannot launch the agent: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    );
    this.name = 'AcpLaunchError';
  }
}

export interface AcpAgentOptions {
  /** The invocation this agent serves (the dispatch intent id): every piece of evidence carries it. */
  readonly invocationId: string;
  /** Where `from_env` and `inherit_env` values are read. Default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** Every `session/update`, in wire order, after the projection saw it (for live output). */
  readonly onUpdate?: UpdateListener;
  /** Each replay event of the active prompt, as it is recorded (a `ReplayRecorder`, say). */
  readonly record?: (event: ReplayEvent) => void;
  /** `ReplayKey.sessionId` of the turns (the route id); default the ACP session id. */
  readonly replaySessionId?: string;
  /** The clock for evidence times, epoch ms. Default `Date.now`. */
  readonly now?: () => number;
}

/** The outcome of opening a session: its id and whether it resumed, or the failure of a lifecycle phase. */
export type OpenResult =
  | { readonly ok: true; readonly sessionId: string; readonly resumed: boolean }
  | { readonly ok: false; readonly failure: TurnResult };

/** Evidence kept per agent (oldest dropped first): enough for a report, bounded for a long session. */
const evidenceLogLimit = 256;

/**
 * One agent CLI driven over ACP: launched from its recipe, initialized (and authenticated when the recipe names a
 * method the agent offers), with one session at a time. Evidence from every source (structured JSON-RPC errors,
 * ordered updates, the stderr tail, the process exit) carries the invocation, the prompt generation and the
 * lifecycle phase. `prompt` resolves only after the prompt barrier, with the judged turn; while it is pending the
 * agent owns its own retry and nothing is scheduled here.
 */
export class AcpAgent {
  /** Evidence observed so far, oldest first (bounded). */
  readonly evidence: EvidenceEnvelope[] = [];
  /** Permission requests answered, in order: the tool kind and whether the rule allowed it. */
  readonly permissions: { readonly toolKind: string | null; readonly allowed: boolean }[] = [];
  private readonly connection: ClientConnection;
  private readonly turn: PromptTurn;
  private readonly now: () => number;
  private sessionId: string | null = null;
  private loadSession = false;
  private authMethods: readonly string[] = [];
  private generation = 0;
  /** The generation the wire tap stamps on arriving updates: non-zero only while a prompt is open. */
  private openGeneration = 0;
  private phase: LifecyclePhase = 'launch';
  private cancelRequested = false;
  /** A `prompt` call has not returned yet. */
  private prompting = false;
  /** `cancel()` came before any prompt was open: the starting agent was ended and every later step is cancelled. */
  private startCancelled = false;

  private constructor(
    readonly recipe: LaunchRecipe,
    readonly process: AgentProcess,
    private readonly options: AcpAgentOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.turn = new PromptTurn(
      recipe.agent,
      options.onUpdate ?? (() => undefined),
      options.record ?? (() => undefined),
    );
    const { input, output } = process.streams();
    const stream = tapStream(ndJsonStream(input, output), (message) => this.observe(message));
    this.connection = client({ name: 'recourse' })
      .onRequest('session/request_permission', ({ params }) => this.answerPermission(params))
      // Updates are read from the wire tap, in order; the SDK's own delivery of them is not needed.
      .onNotification('session/update', () => undefined)
      .connect(stream);
  }

  /**
   * Spawns the agent in its own process group. Throws `AcpLaunchError` (nothing spawned) when a `from_env`
   * variable is missing or the working folder is not one; a command that cannot start shows up as a `launch`
   * failure of `open`.
   */
  static launch(recipe: LaunchRecipe, options: AcpAgentOptions): AcpAgent {
    const env = resolveLaunchEnv(recipe, options.environment ?? process.env);
    if (!env.ok) throw new AcpLaunchError(env.issues);
    // Checked here, not left to spawn: a missing folder fails as `spawn COMMAND ENOENT`, blaming the command.
    const folderProblem = workingFolderProblem(recipe.cwd);
    if (folderProblem !== null) {
      throw new AcpLaunchError([
        { path: '/cwd', message: `the working folder ${recipe.cwd} ${folderProblem}` },
      ]);
    }
    return new AcpAgent(recipe, new AgentProcess(recipe, env.env), options);
  }

  /**
   * `initialize`, `authenticate` (when the recipe names a method the agent offers), then `session/load` of
   * `resume` when given and the agent supports it, else `session/new`.
   */
  async open(resume: string | null = null): Promise<OpenResult> {
    const failed = await this.step('initialize', async () => {
      const reply: unknown = await this.connection.agent.request('initialize', {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'recourse', version: '0.1.0' },
      });
      if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) {
        throw new AgentProtocolError('the agent answered initialize with no object');
      }
      // Read as untyped: the SDK does not check an answer's shape, and a capability of the wrong shape is absent.
      const { agentCapabilities, authMethods } = reply as {
        agentCapabilities?: unknown;
        authMethods?: unknown;
      };
      this.loadSession = (agentCapabilities as { loadSession?: unknown } | null)?.loadSession === true;
      this.authMethods = Array.isArray(authMethods)
        ? authMethods
            .map((m: unknown) => (m as { id?: unknown } | null)?.id)
            .filter((id): id is string => typeof id === 'string')
        : [];
    });
    if (failed) return { ok: false, failure: failed };
    const method = this.recipe.authMethod;
    if (method !== null && this.authMethods.includes(method)) {
      const authFailed = await this.step('authenticate', () =>
        this.connection.agent.request('authenticate', { methodId: method }),
      );
      if (authFailed) return { ok: false, failure: authFailed };
    }
    if (resume !== null && this.loadSession) {
      const loadFailed = await this.step('session_load', () =>
        this.connection.agent.request('session/load', {
          sessionId: resume,
          cwd: this.recipe.cwd,
          mcpServers: [],
        }),
      );
      if (loadFailed) return { ok: false, failure: loadFailed };
      this.sessionId = resume;
      // The history the agent replays arrives before its answer: let the worker take it in as generation 0.
      await this.turn.drain();
      return { ok: true, sessionId: resume, resumed: true };
    }
    let created = '';
    const newFailed = await this.step('session_new', async () => {
      const reply: unknown = await this.connection.agent.request('session/new', {
        cwd: this.recipe.cwd,
        mcpServers: [],
      });
      const sessionId = (reply as { sessionId?: unknown } | null)?.sessionId;
      // Every later request and the resume of a retry name this id: an answer without one is a broken agent.
      if (typeof sessionId !== 'string' || sessionId === '') {
        throw new AgentProtocolError(
          'the agent answered session/new without a session id (a non-empty string)',
        );
      }
      created = sessionId;
    });
    if (newFailed) return { ok: false, failure: newFailed };
    this.sessionId = created;
    return { ok: true, sessionId: created, resumed: false };
  }

  /**
   * Sends one prompt and judges the turn after the prompt barrier: the request settled (answered, rejected, or the
   * agent gone) and every update that arrived before was applied. Rejects only a misuse (`invalid_input`): no session
   * open yet, or another prompt of this agent still open.
   */
  async prompt(text: string): Promise<TurnResult> {
    const sessionId = this.sessionId;
    if (sessionId === null) throw new RecourseError('invalid_input', 'prompt before a session was opened');
    // One prompt at a time: a second would take over the first one's generation, updates and evidence.
    if (this.prompting) throw new RecourseError('invalid_input', 'a prompt is already open on this agent');
    this.prompting = true;
    try {
      return await this.promptOnce(sessionId, text);
    } finally {
      this.prompting = false;
    }
  }

  private async promptOnce(sessionId: string, text: string): Promise<TurnResult> {
    const generation = ++this.generation;
    // Cancelled before the prompt was sent (the agent was ended while starting): nothing is sent.
    if (this.startCancelled) return { outcome: 'cancelled', generation };
    const key: ReplayKey = {
      sessionId: this.options.replaySessionId ?? sessionId,
      executionId: this.options.invocationId,
      promptGeneration: generation,
    };
    this.cancelRequested = false;
    await this.turn.begin(key, sessionId);
    // Cancelled while the generation opened: the prompt is not sent at all.
    if (this.cancelRequested) return { outcome: 'cancelled', generation };
    this.phase = 'prompt';
    const stderrMark = this.process.stderr.totalBytes;
    // Stamp before the request is written: an update can only follow it.
    this.openGeneration = generation;
    const settlement = await this.settle(
      this.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }),
    );
    // The response has passed the wire tap, so every update written before it is queued: drain, then judge.
    this.openGeneration = 0;
    await this.turn.drain();
    // An agent's error may name its cause only on standard error, a separate pipe read after the answer: let it
    // arrive (quiet for 25 ms, 250 ms at most) before the judge reads it. Only errors wait; an answer does not.
    if (settlement.kind === 'error') await this.process.stderr.quiet(stderrQuietMs, stderrQuietMaxMs);
    const origin = this.origin(generation);
    const stderrText = this.process.stderr.textSince(stderrMark);
    const result = await this.turn.examine((projection, replay) =>
      judgeTurn({
        settlement,
        cancelRequested: this.cancelRequested,
        projection,
        replay,
        stderrText,
        origin,
        key,
      }),
    );
    if (result.outcome === 'failure') this.keep(result.evidence);
    return result;
  }

  /**
   * Asks the agent to stop the open prompt (`session/cancel`); the prompt then resolves as `cancelled`. Before the
   * first prompt (the agent is still starting: `initialize`, `authenticate`, `session/new` or `session/load` may
   * never be answered) there is nothing to send it to: the agent's process group is ended instead (SIGTERM, SIGKILL
   * after the grace), `open` resolves with a `cancelled` turn and `prompt` sends nothing.
   */
  async cancel(): Promise<void> {
    if (this.generation === 0) {
      this.startCancelled = true;
      await this.process.shutdown();
      return;
    }
    if (this.sessionId === null) return;
    this.cancelRequested = true;
    this.phase = 'cancel';
    await this.connection.agent
      .notify('session/cancel', { sessionId: this.sessionId })
      .catch(() => undefined);
  }

  /** Closes the connection and ends the agent's process group (SIGTERM, SIGKILL after the grace). */
  async shutdown(): Promise<ProcessExit> {
    this.phase = 'shutdown';
    this.connection.close();
    const exit = await this.process.shutdown();
    return exit;
  }

  /** Runs one lifecycle request; a failure becomes the phase's judged failure (classified and gated). */
  private async step(phase: LifecyclePhase, work: () => Promise<unknown>): Promise<TurnResult | null> {
    this.phase = phase;
    const settled = await this.settle(work());
    // Cancelled while starting: the agent was ended on purpose, so its exit is no failure to classify.
    if (this.startCancelled) return { outcome: 'cancelled', generation: 0 };
    if (settled.kind === 'response') return null;
    const origin = this.origin(0);
    const key = {
      sessionId: this.options.replaySessionId ?? '',
      executionId: this.options.invocationId,
      promptGeneration: 0,
    };
    // Nothing was prompted yet, so nothing can have been done: the replay record is known and empty.
    const replay = openReplayEvidence(key);
    const result = failure({ replay, stderrText: this.process.stderr.text(), origin, key }, settled.evidence);
    this.keep(result.outcome === 'failure' ? result.evidence : settled.evidence);
    return result;
  }

  /** How a request settled: the answer, the agent's structured error, or (transport gone) the process exit. */
  private async settle(request: Promise<unknown>): Promise<Settlement> {
    try {
      const reply = await request;
      const stopReason = (reply as { stopReason?: unknown } | null)?.stopReason;
      return { kind: 'response', stopReason: typeof stopReason === 'string' ? stopReason : 'end_turn' };
    } catch (error) {
      if (isAgentError(error)) {
        return { kind: 'error', evidence: acpErrorEvidence(this.origin(this.openGeneration), error) };
      }
      if (error instanceof AgentProtocolError) {
        return { kind: 'error', evidence: protocolErrorEvidence(this.origin(this.openGeneration), error) };
      }
      const { exit, ended } = await this.exitWithinGrace();
      // A command that never started failed its launch, whichever request noticed it first.
      if (this.process.spawnError !== null) this.phase = 'launch';
      const origin = this.origin(this.openGeneration);
      // The SDK closed the connection itself: the agent's exit (a broken pipe, the grace's signal) follows from it.
      // Or the connection closed and the agent lived on: the signal in the evidence is then the one Recourse sent.
      const cause =
        error instanceof MessageTooLargeError
          ? new Error(
              `the agent sent an ACP message over ${error.maxMessageBytes} bytes; Recourse closed the connection`,
            )
          : ended
            ? new Error(
                `the ACP connection closed while the agent ran on; Recourse ended it after the ${this.recipe.shutdownGraceMs} ms grace`,
              )
            : null;
      return {
        kind: 'error',
        evidence: processExitEvidence(
          origin,
          exit,
          this.process.stderr.text(),
          this.process.spawnError ?? cause,
        ),
      };
    }
  }

  /** The exit of an agent whose transport closed; one still running after the grace is ended (`ended`). */
  private async exitWithinGrace(): Promise<{ readonly exit: ProcessExit; readonly ended: boolean }> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.recipe.shutdownGraceMs);
    });
    const exit = await Promise.race([this.process.exited, late]);
    clearTimeout(timer);
    if (exit !== null) return { exit, ended: false };
    return { exit: await this.process.shutdown(), ended: true };
  }

  private observe(message: AnyMessage): void {
    const notification = sessionUpdateOf(message);
    if (notification === null) return;
    if (this.sessionId !== null && notification.sessionId !== this.sessionId) return;
    const generation = this.openGeneration;
    this.keep(updateEvidence(this.origin(generation), notification.update));
    this.turn.enqueue(generation, notification.update);
  }

  /**
   * Deny by default: allow only the tool kinds the recipe lists, choosing the agent's "allow once" option. A
   * request outside this agent's open, uncancelled prompt (after `session/cancel`, for another session, between
   * prompts) is answered `cancelled`, as ACP asks of a client that cancelled: the tool must not run.
   */
  private answerPermission(params: RequestPermissionRequest): RequestPermissionResponse {
    const toolKind = params.toolCall.kind ?? null;
    const current = !this.cancelRequested && this.openGeneration !== 0 && params.sessionId === this.sessionId;
    if (!current) {
      this.permissions.push({ toolKind, allowed: false });
      return { outcome: { outcome: 'cancelled' } };
    }
    const allowed = toolKind !== null && (this.recipe.allowToolKinds as readonly string[]).includes(toolKind);
    this.permissions.push({ toolKind, allowed });
    const wanted = allowed ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
    const option = wanted
      .map((kind) => params.options.find((o) => o.kind === kind))
      .find((o) => o !== undefined);
    return option === undefined
      ? { outcome: { outcome: 'cancelled' } }
      : { outcome: { outcome: 'selected', optionId: option.optionId } };
  }

  private origin(promptGeneration: number): EvidenceOrigin {
    return {
      agent: this.recipe.agent,
      provider: this.recipe.provider,
      invocationId: this.options.invocationId,
      promptGeneration,
      phase: this.phase,
      observedAtMs: this.now(),
    };
  }

  private keep(envelope: EvidenceEnvelope): void {
    this.evidence.push(envelope);
    if (this.evidence.length > evidenceLogLimit) this.evidence.shift();
  }
}

/** Why `cwd` cannot be an agent's working folder, or null when it can. */
function workingFolderProblem(cwd: string): string | null {
  try {
    return statSync(cwd).isDirectory() ? null : 'is not a folder';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : `cannot be used (${String(code)})`;
  }
}
