/**
 * A session's route in plain words, for people glancing between other work: a wait is never "running"
 * (issue 12). `state` is the route's state, `outcome` its turn (`running|waiting|succeeded|needs_action`).
 */
export function sessionStateWords(state: string | null, outcome: string | null): string {
  if (outcome === 'succeeded') return 'Idle: the last turn succeeded';
  switch (state) {
    case 'active':
      return 'The agent is working';
    case 'retry_wait':
      return 'Waiting to retry';
    case 'waiting_for_reset':
      return 'Waiting for the usage limit to reset';
    case 'retrying':
      return 'Retrying now';
    case 'switching':
      return 'Switching provider';
    case 'action_required':
      return 'Needs your action';
    case null:
      return 'No route';
    default:
      return 'State not known';
  }
}
