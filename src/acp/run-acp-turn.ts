import { AcpAgent, type AcpAgentOptions } from './acp-agent.js';
import type { TurnResult } from './judge-turn.js';
import type { LaunchRecipe } from './launch-recipe.js';

export interface AcpTurnOptions extends AcpAgentOptions {
  /** The prompt to send (the route's cached prompt). */
  readonly prompt: string;
  /** A provider-native session to resume with `session/load` (when the agent supports it); null: `session/new`. */
  readonly resumeSessionId?: string | null;
  /**
   * Cancels the turn when aborted (Ctrl-C in a terminal, say): while the agent is still starting its process group
   * is ended and the turn is `cancelled` without a prompt; once the prompt is on its way `session/cancel` is sent.
   */
  readonly signal?: AbortSignal;
  /** Called once the prompt is on its way, with a cancel for it (Ctrl-C in a terminal, say). */
  readonly onStarted?: (started: {
    readonly sessionId: string;
    readonly resumed: boolean;
    readonly cancel: () => Promise<void>;
  }) => void;
}

/** A judged turn and the session it ran in (null when the agent failed before a session existed). */
export type AcpTurn = TurnResult & { readonly sessionId: string | null; readonly resumed: boolean };

/**
 * Runs one prompt on a freshly launched agent: launch, `initialize` (+ `authenticate`), `session/load` or
 * `session/new`, `session/prompt`, then shutdown of the process group. Resolves with the judged turn: `success`,
 * `failure` (evidence, classification and the replay-safety verdict) or `cancelled`. Throws only `AcpLaunchError`
 * (a `from_env` variable is missing: nothing was started).
 */
export async function runAcpTurn(recipe: LaunchRecipe, options: AcpTurnOptions): Promise<AcpTurn> {
  const agent = AcpAgent.launch(recipe, options);
  const cancel = () => void agent.cancel();
  if (options.signal?.aborted === true) cancel();
  else options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    const opened = await agent.open(options.resumeSessionId ?? null);
    if (!opened.ok) return { ...opened.failure, sessionId: null, resumed: false };
    options.onStarted?.({
      sessionId: opened.sessionId,
      resumed: opened.resumed,
      cancel: () => agent.cancel(),
    });
    const result = await agent.prompt(options.prompt);
    return { ...result, sessionId: opened.sessionId, resumed: opened.resumed };
  } finally {
    options.signal?.removeEventListener('abort', cancel);
    await agent.shutdown();
  }
}
