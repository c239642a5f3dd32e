/**
 * The lifecycle phases an adapter reports on evidence (`phase`), in launch order (REQUIREMENTS EVD-03 decision).
 * An attempt is everything from launching the agent to the prompt's answer, so evidence from these phases can fail
 * the current attempt: `launch` (starting the agent process), `initialize`, `authenticate`, `session_new`,
 * `session_load` and `prompt`. Evidence from `cancel` (a cancellation the caller asked for) and `shutdown`
 * (ending the process after the turn) cannot: it is stale for recovery, kept as history only.
 */
/** The phases whose evidence can fail the current attempt, in launch order. */
const attemptPhases = [
  'launch',
  'initialize',
  'authenticate',
  'session_new',
  'session_load',
  'prompt',
] as const;

export const lifecyclePhases = [...attemptPhases, 'cancel', 'shutdown'] as const;
export type LifecyclePhase = (typeof lifecyclePhases)[number];

const failsAttempt: ReadonlySet<string> = new Set(attemptPhases);

/** Whether evidence of this phase can fail the current attempt (any phase not listed above cannot). */
export function phaseFailsAttempt(phase: string): boolean {
  return failsAttempt.has(phase);
}
