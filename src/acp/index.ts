/**
 * The ACP adapter's entry point (docs/acp.md): run one prompt on an agent CLI (`runAcpTurn`), drive an agent step by
 * step (`AcpAgent`), or dispatch route attempts to agents (`AcpDispatcher`); recipes validate with
 * `parseLaunchRecipe`.
 */
export { AcpAgent, AcpLaunchError } from './acp-agent.js';
export { AcpDispatcher } from './acp-dispatcher.js';
export { killAgentGroups } from './agent-process.js';
export type { TurnResult } from './judge-turn.js';
export { parseLaunchRecipe, resolveLaunchEnv, type LaunchRecipe } from './launch-recipe.js';
export type { UpdateInfo } from './prompt-turn.js';
export { runAcpTurn, type AcpTurn } from './run-acp-turn.js';
