import type { EngineEvent } from '../engine/index.js';
import {
  isProviderCode,
  providerCodeInfo,
  type Classification,
  type DispatchIntent,
  type Route,
} from '../core/index.js';
import { escapeControlCharacters } from '../core/text/escape-controls.js';
import { duration } from './schedule-text.js';

/** Every progress line starts with this, so it is told from the agent's own output at a glance. */
export const progressPrefix = '[recourse] ';

/**
 * Turns the engine's events into the progress lines of `recourse run` (standard error): one per attempt sent, one
 * per classification and decision, saying what happens next. It remembers the candidate last sent to, so a switch
 * names both sides.
 */
export class RunProgress {
  private lastCandidate: string | null = null;

  constructor(private readonly routeId: string) {}

  /** The line for `event`, or null when it concerns another route or says nothing a person needs. */
  lineFor(event: EngineEvent): string | null {
    if (event.type === 'dispatch') return this.dispatchLine(event.intent);
    if (event.type === 'error') return `${progressPrefix}engine error: ${clean(event.message)}`;
    if (event.type !== 'transition' || event.route.id !== this.routeId) return null;
    return this.transitionLine(event.route, event.decision, event.classification, event.atMs);
  }

  private dispatchLine(intent: DispatchIntent): string | null {
    if (intent.routeId !== this.routeId) return null;
    this.lastCandidate = intent.candidate;
    return `${progressPrefix}sending the prompt to ${clean(intent.candidate)} (${kindWords[intent.kind]})`;
  }

  private transitionLine(
    route: Route,
    decision: string,
    classification: Classification | null,
    atMs: number,
  ): string | null {
    const failed = classification === null ? '' : `${failureWords(route, classification)}: `;
    switch (route.state) {
      case 'retry_wait': {
        const seconds = Math.max(0, Math.round((route.deadlineMs - atMs) / 1000));
        return `${progressPrefix}${failed}retrying in ${duration(seconds)} (retry ${route.retryOrdinal} of ${route.maxRetries})`;
      }
      case 'waiting_for_reset': {
        const seconds = Math.max(0, Math.round((route.deadlineMs - atMs) / 1000));
        return `${progressPrefix}${failed}waiting for the reset at ${new Date(route.deadlineMs).toISOString()} (${duration(seconds)})`;
      }
      case 'switching':
        return `${progressPrefix}switching from ${clean(route.candidate)} to ${clean(route.nextCandidate)} because ${because(classification, decision)}`;
      case 'action_required':
        return (
          `${progressPrefix}${failed}stopped: the route needs a person (${route.reason}${route.detail === null ? '' : `: ${clean(route.detail)}`})` +
          saidLine(classification)
        );
      case 'active':
      case 'retrying':
        return this.activeLine(route, decision, classification, failed);
    }
  }

  private activeLine(
    route: Route,
    decision: string,
    classification: Classification | null,
    failed: string,
  ): string | null {
    if (decision === 'success') return `${progressPrefix}done: ${clean(route.candidate)} answered`;
    const previous = this.lastCandidate;
    if (previous !== null && previous !== route.candidate) {
      // A skip straight to the next candidate (no `switching` step in between).
      return `${progressPrefix}switching from ${clean(previous)} to ${clean(route.candidate)} because ${because(classification, decision)}`;
    }
    return failed === '' ? null : `${progressPrefix}${failed}${decision}`;
  }
}

const kindWords: Readonly<Record<DispatchIntent['kind'], string>> = {
  initial: 'first attempt',
  retry: 'retry',
  reset_retry: 'after the reset wait',
  successor: 'next candidate',
  manual: 'manual retry',
  prompt: 'new prompt',
};

/** "claude failed: provider overloaded (provider_overloaded, transient, provider anthropic)". */
function failureWords(route: Route, c: Classification): string {
  return `${clean(route.candidate)} failed: ${classificationWords(c)}`;
}

function classificationWords(c: Classification): string {
  const what =
    c.class === 'unclassified' ? `unclassified${c.reason === undefined ? '' : `: ${c.reason}`}` : c.class;
  const provider = c.provider_id === null ? '' : `, provider ${clean(c.provider_id)}`;
  if (c.code === null) return `an unrecognized error (${what}${provider})`;
  const words = isProviderCode(c.code) ? providerCodeInfo[c.code].summary.toLowerCase() : clean(c.code);
  return `${words} (${c.code}, ${what}${provider})`;
}

function because(c: Classification | null, decision: string): string {
  return c === null ? `of ${decision}` : `it failed: ${classificationWords(c)}`;
}

/** What the error said, sanitized by the classifier (credentials redacted, bounded), on a line of its own. */
function saidLine(c: Classification | null): string {
  if (c === null || c.safe_excerpt === '') return '';
  const excerpt = c.safe_excerpt.length > 200 ? `${c.safe_excerpt.slice(0, 200)}…` : c.safe_excerpt;
  return `\n${progressPrefix}  the error said: ${clean(excerpt)}`;
}

/** Standard error may be a terminal: names from the profile and engine text are printed with controls escaped. */
function clean(text: string): string {
  return escapeControlCharacters(text);
}

/** The countdown of a wait: "waiting: 1 min 5 s left (retry at 2026-...)". */
export function countdownLine(deadlineMs: number, nowMs: number): string {
  const seconds = Math.max(0, Math.ceil((deadlineMs - nowMs) / 1000));
  return `${progressPrefix}waiting: ${duration(seconds)} left (until ${new Date(deadlineMs).toISOString()})`;
}

/**
 * What an answered turn's ACP stop reason says beyond "answered", or null when it says nothing more: a turn cut
 * short by a limit or refused by the model still counts as answered (exit 0, nothing to recover), but a person
 * must not take it for a whole answer.
 */
export function stopReasonLine(stopReason: string): string | null {
  switch (stopReason) {
    case 'end_turn':
    case 'cancelled':
      return null;
    case 'max_tokens':
      return `${progressPrefix}the answer stopped at the agent's output token limit (max_tokens): it may be cut short`;
    case 'max_turn_requests':
      return `${progressPrefix}the agent stopped at its limit of model requests for one turn (max_turn_requests): the work may be unfinished`;
    case 'refusal':
      return `${progressPrefix}the agent refused to go on with this prompt (refusal)`;
    default:
      return `${progressPrefix}the agent ended its turn with stop reason ${clean(stopReason)}`;
  }
}
