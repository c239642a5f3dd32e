import type { RouteSnapshot } from '../core/index.js';

/**
 * The exit codes of `recourse run` (docs/cli.md): 0 the prompt was answered; 1 the profile document is invalid;
 * 2 usage, or a file or database that cannot be used; 3 the route needs a person (unsafe to replay, unclassified,
 * candidates exhausted, ...); 4 it was stopped or cancelled (also a prompt cancelled by Ctrl-C, when the run is
 * started again); 130 interrupted (Ctrl-C), 143 terminated (SIGTERM), 129 hung up (SIGHUP: the terminal closed),
 * handled alike.
 */
export const runExit = {
  success: 0,
  invalidProfile: 1,
  usage: 2,
  actionRequired: 3,
  stopped: 4,
  interrupted: 130,
  terminated: 143,
  hungUp: 129,
} as const;

/** The exit code of a route that reached a final state; null while it still runs or waits. */
export function exitCodeOf(route: RouteSnapshot): number | null {
  if (route.outcome === 'succeeded') return runExit.success;
  if (route.state !== 'action_required') return null;
  // A prompt cancelled by Ctrl-C is classified `cancelled` (not a provider failure): it counts as cancelled too.
  const cancelled =
    route.reason === 'cancelled' || route.reason === 'stopped' || route.lastFailure?.code === 'cancelled';
  return cancelled ? runExit.stopped : runExit.actionRequired;
}

/** One line for a route's final state: "succeeded on claude" or "action_required (unsafe: tool_activity) on claude". */
export function finalStateWords(route: RouteSnapshot): string {
  if (route.state !== 'action_required') return `${route.outcome} on ${route.candidate}`;
  return `action_required (${route.reason}${route.detail === null ? '' : `: ${route.detail}`}) on ${route.candidate}`;
}
