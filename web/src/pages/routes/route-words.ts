import { failureInWords, recoveryReason } from '../../../../src/core/notice/recovery-reason.js';
import { retryDelaySeconds } from '../../../../src/core/policy/schedule.js';
import type { AttemptDoc, RouteDoc } from './route-types.js';

/**
 * Words for a route, for people glancing between other work: one plain headline per state (a wait is never
 * "running"), the cause in words (never provider text, UI-12), and what happens next.
 */

/** The board's groups, most urgent first. `running` and `finished` split `active` by whether an attempt runs. */
export const routeGroups = [
  'action_required',
  'switching',
  'waiting_for_reset',
  'retry_wait',
  'retrying',
  'running',
  'finished',
] as const;
export type RouteGroup = (typeof routeGroups)[number];

export function groupOf(route: RouteDoc): RouteGroup {
  switch (route.state) {
    case 'action_required':
    case 'switching':
    case 'waiting_for_reset':
    case 'retry_wait':
    case 'retrying':
      return route.state;
    default:
      return route.outcome === 'running' ? 'running' : 'finished';
  }
}

export const groupTitles: Readonly<Record<RouteGroup, string>> = {
  action_required: 'Needs your action',
  switching: 'Switching candidates',
  waiting_for_reset: 'Waiting for a usage limit to reset',
  retry_wait: 'Waiting to retry',
  retrying: 'Retrying now',
  running: 'Running',
  finished: 'Finished',
};

/** The failure's cause in words: the service's own words when it sends them, else the catalogue's words. */
export function causeWords(route: RouteDoc): string | null {
  if (typeof route.cause === 'string' && route.cause !== '') return route.cause;
  if (route.last_failure === null) return null;
  return failureInWords(route.last_failure);
}

/** Why a route needs a person, in words. */
export function reasonWords(route: RouteDoc): string {
  const failure = route.last_failure;
  switch (route.reason) {
    case 'stopped':
      return 'Stopped by a person';
    case 'cancelled':
      return 'Retrying was cancelled by a person';
    case 'candidates_exhausted':
      return `${causeWords(route) ?? 'The attempt failed'}, and no other candidate is left to try in this cycle`;
    default:
      return recoveryReason(route.reason ?? '', route.detail, failure);
  }
}

/** The one headline of a route's state (the board's row and the route view's title line). */
export function headline(route: RouteDoc): string {
  switch (groupOf(route)) {
    case 'retry_wait':
      return `Waiting to retry ${route.candidate}`;
    case 'waiting_for_reset':
      return 'Waiting for the usage limit to reset';
    case 'switching':
      return `Switching to ${route.next_candidate ?? 'the next candidate'} from ${route.candidate}`;
    case 'action_required':
      return 'Needs your action';
    case 'retrying':
      return 'Retrying now';
    case 'running':
      return 'Running';
    case 'finished':
      return 'Finished';
  }
}

/** The line under the headline: why (the cause, or the reason a person is needed). */
export function whyWords(route: RouteDoc): string | null {
  const group = groupOf(route);
  if (group === 'action_required') return reasonWords(route);
  if (group === 'switching') return `Why: ${causeWords(route) ?? 'a person chose to skip'}`;
  if (group === 'waiting_for_reset') return `Why: ${causeWords(route) ?? 'the provider gave a reset time'}`;
  if (group === 'retry_wait' || group === 'retrying') {
    const cause = causeWords(route);
    return cause === null ? null : `Why: ${cause}`;
  }
  return null;
}

/** How a state reads inside a sentence ("it was waiting to retry and now needs your action"). */
export function stateInWords(state: string, outcome?: string): string {
  switch (state) {
    case 'retry_wait':
      return 'waiting to retry';
    case 'waiting_for_reset':
      return 'waiting for a usage limit to reset';
    case 'switching':
      return 'switching candidates';
    case 'action_required':
      return 'waiting for your action';
    case 'retrying':
      return 'retrying';
    case 'active':
      return outcome === 'succeeded' ? 'finished' : 'running';
    default:
      return 'in an unknown state';
  }
}

/** What a refused action found: the route as the person saw it against the route as it is now. */
export function changeWords(before: RouteDoc, now: RouteDoc): string {
  const was = stateInWords(before.state, before.outcome);
  const is = stateInWords(now.state, now.outcome);
  const parts = [
    was === is
      ? `Someone else acted first: the route is still ${is}, on a newer attempt`
      : `Someone else acted first: the route was ${was} and is now ${is}`,
  ];
  if (now.state === 'action_required') parts.push(`(${reasonWords(now).toLowerCase()})`);
  if (now.candidate !== before.candidate) parts.push(`on ${now.candidate}`);
  return `${parts.join(' ')}. Nothing was changed by your request; look again and choose.`;
}

/** "Retry 2 of 3", when the route counts retries. */
export function retryOrdinalWords(route: RouteDoc): string | null {
  if (route.retry_ordinal === null) return null;
  return route.max_retries === null
    ? `Retry ${route.retry_ordinal}`
    : `Retry ${route.retry_ordinal} of ${route.max_retries}`;
}

/** What happens if the next attempt fails too. */
export function nextOutcomeWords(route: RouteDoc): string | null {
  if (route.state !== 'retry_wait' && route.state !== 'waiting_for_reset') return null;
  const exhausted =
    route.pending_outcome === 'skip'
      ? `skip to ${route.next_candidate ?? 'the next candidate'}`
      : route.pending_outcome === 'stop'
        ? 'stop and ask you'
        : 'the policy decides again';
  const ordinal = route.retry_ordinal;
  const max = route.max_retries;
  if (route.state === 'retry_wait' && ordinal !== null && max !== null && ordinal < max)
    return `If this fails: retry ${ordinal + 1} of ${max}; after the last retry, ${exhausted}`;
  return `If this fails: ${exhausted}`;
}

/** Where an attempt's delay came from. */
export function delaySourceWords(attempt: AttemptDoc): string {
  switch (attempt.delay_source ?? derivedDelaySource(attempt)) {
    case 'retry_after':
      return "the provider's Retry-After";
    case 'reset_at':
      return "the provider's reset time";
    case 'policy':
      return "the policy's schedule";
    default:
      return attempt.deadline_at === null ? 'no wait' : 'not recorded';
  }
}

/**
 * When the service does not say where a delay came from: a reset wait's deadline is the reset itself; a retry
 * whose delay is the policy snapshot's schedule for its ordinal (the same function the engine uses, within the
 * second the times are rounded to) came from the policy; any other retry delay was the provider's Retry-After.
 */
function derivedDelaySource(attempt: AttemptDoc): AttemptDoc['delay_source'] {
  if (attempt.deadline_at === null) return null;
  if (attempt.decision === 'wait_for_reset') return 'reset_at';
  const interval = attempt.policy?.retry?.initial_interval_seconds;
  if (attempt.decision !== 'retry' || typeof interval !== 'number' || attempt.retry_ordinal === null)
    return null;
  const delaySeconds = (Date.parse(attempt.deadline_at) - Date.parse(attempt.at)) / 1000;
  return Math.abs(delaySeconds - retryDelaySeconds(interval, attempt.retry_ordinal)) <= 1
    ? 'policy'
    : 'retry_after';
}

/** An attempt row's decision, in words. */
export function decisionWords(decision: string): string {
  const words: Readonly<Record<string, string>> = {
    start: 'Started',
    prompt: 'New prompt',
    retry: 'Retry scheduled',
    wait_for_reset: 'Wait for the reset',
    skip: 'Skipped to the next candidate',
    stop: 'Stopped for you',
    reject_unsafe: 'Not safe to repeat: stopped for you',
    reject_unclassified: 'Not recognized: stopped for you',
    invalid_configuration: 'Profile invalid: stopped for you',
    deadline: 'Wait ended',
    circuit_hold: 'Held by a shared circuit',
    circuit_closed: 'Shared circuit closed: goes now',
    circuit_skip: 'Skipped: shared circuit open',
    retry_now: 'Retried now by a person',
    skip_now: 'Skipped now by a person',
    cancel: 'Cancelled by a person',
    success: 'Succeeded',
    successor_active: 'Next candidate took over',
    dispatch_acknowledged: 'Delivered',
    ambiguous_dispatch: 'Delivery uncertain: stopped for you',
    orphaned: 'Attempt lost in a restart',
  };
  return words[decision] ?? 'Recorded';
}

/** A policy class in words (the raw class is in Details). */
export function classWords(policyClass: string): string {
  switch (policyClass) {
    case 'transient':
      return 'Transient: temporary, usually passes on its own (overload, rate limit, network)';
    case 'hard':
      return 'Hard: needs something to change (usage limit, sign-in, subscription, model access)';
    default:
      return 'Not recognized: a person decides';
  }
}
