import { fileURLToPath } from 'node:url';
import { parseLaunchRecipe, type LaunchRecipe } from '../../src/acp/index.js';

/** The scripted ACP agent: a real child process speaking ACP over real stdio pipes. */
export const scriptedAgent = fileURLToPath(new URL('../fixtures/acp/scripted-agent.mjs', import.meta.url));
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

/** A validated recipe launching the scripted agent with `scenario`, labelled `agent`. */
export function scriptedRecipe(scenario: string, fields: Record<string, unknown> = {}): LaunchRecipe {
  const parsed = parseLaunchRecipe({
    agent: 'scripted',
    command: process.execPath,
    args: [scriptedAgent, ...scenario.split(' ')],
    cwd: repoRoot,
    shutdown_grace_ms: 2_000,
    ...fields,
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.recipe;
}
