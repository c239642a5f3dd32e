import type { RouteDocument } from '../server/route-document.js';
import { escapeControlCharacters } from '../core/text/escape-controls.js';
import { duration } from './schedule-text.js';
import { paint, type Tone } from './terminal-style.js';
import { renderTable, type Cell } from './text-table.js';

/** A route's state in plain words, and its tone. A state a newer server adds is shown as it is named. */
const stateWords: Readonly<Record<string, { readonly words: string; readonly tone: Tone }>> = {
  active: { words: 'active', tone: 'fine' },
  waiting_for_reset: { words: 'waiting for reset', tone: 'waiting' },
  retry_wait: { words: 'waiting to retry', tone: 'waiting' },
  retrying: { words: 'retrying', tone: 'waiting' },
  switching: { words: 'switching', tone: 'waiting' },
  action_required: { words: 'needs action', tone: 'alert' },
};

/** Why a route needs a person, in words (the codes are `actionReasons` in the core). */
const reasonWords: Readonly<Record<string, string>> = {
  exhausted: 'recovery ran out',
  unclassified: 'the failure was not recognised',
  unsafe: 'the attempt had output or tool activity, so replaying it is unsafe',
  candidates_exhausted: 'no candidate is left',
  ambiguous_dispatch: 'the last attempt may or may not have been delivered',
  cancelled: 'cancelled',
  stopped: 'stopped',
  not_retriable: 'the failure is not retriable',
  invalid_configuration: 'the profile is invalid',
  circuit_open: 'a shared circuit stays open longer than the policy waits',
};

const clean = escapeControlCharacters;
const dash = (value: string | number | null) => (value === null ? '-' : clean(String(value)));

/** `waiting to retry` or `needs action (cancelled)`, as the list shows it. */
export function stateCell(route: RouteDocument): Cell {
  const known = stateWords[route.state];
  const words = known?.words ?? clean(route.state);
  return {
    text: route.reason === null ? words : `${words} (${clean(route.reason)})`,
    tone: known?.tone ?? null,
  };
}

/** One sentence for the route as it is now: what it does, on which candidate, with which retry. */
export function routeHeadline(route: RouteDocument): string {
  const c = clean(route.candidate);
  switch (route.state) {
    case 'active':
      return `active on ${c}`;
    case 'waiting_for_reset':
      return `waiting for the provider's reset before retrying ${c}`;
    case 'retry_wait':
      return `waiting to retry ${c} (retry ${dash(route.retry_ordinal)} of ${dash(route.max_retries)})`;
    case 'retrying':
      return `retrying ${c}${route.retry_ordinal === null ? '' : ` (retry ${route.retry_ordinal})`}`;
    case 'switching':
      return `switching from ${c} to ${dash(route.next_candidate)}`;
    case 'action_required': {
      const reason = route.reason === null ? null : (reasonWords[route.reason] ?? clean(route.reason));
      return `needs action${reason === null ? '' : `: ${reason}`}`;
    }
    default:
      return `${clean(route.state)} on ${c}`;
  }
}

/** `2026-06-01 12:00:05Z (in 12 s)`; the date is left out when it is today's (UTC), `short` in the list. */
export function timeWithDistance(iso: string | null, nowMs: number, short = false): string {
  if (iso === null) return '-';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return clean(iso);
  const text = new Date(at)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
  const sameDay = text.slice(0, 10) === new Date(nowMs).toISOString().slice(0, 10);
  return `${short && sameDay ? text.slice(11) : text} (${distance(at - nowMs)})`;
}

/** `in 12 s`, `3 min 5 s ago`, `now`: the two largest units, whole seconds. */
export function distance(ms: number): string {
  const seconds = Math.round(Math.abs(ms) / 1000);
  if (seconds === 0) return 'now';
  const words = duration(seconds).split(' ').slice(0, 4).join(' ');
  return ms > 0 ? `in ${words}` : `${words} ago`;
}

/** What follows the wait when recovery runs out: `skip → b`, `stop`. */
function pendingText(route: RouteDocument): string {
  if (route.pending_outcome === null) return '-';
  const next =
    route.pending_outcome === 'skip' && route.next_candidate !== null
      ? ` → ${clean(route.next_candidate)}`
      : '';
  return `${clean(route.pending_outcome)}${next}`;
}

function retryText(route: RouteDocument): string {
  if (route.retry_ordinal === null) return '-';
  return route.max_retries === null
    ? String(route.retry_ordinal)
    : `${route.retry_ordinal}/${route.max_retries}`;
}

/** The list: one row per route. */
export function renderRouteTable(routes: readonly RouteDocument[], nowMs: number): string {
  return renderTable(
    ['ID', 'STATE', 'CANDIDATE', 'CODE', 'RETRY', 'DEADLINE', 'THEN'],
    routes.map((r) => [
      clean(r.id),
      stateCell(r),
      clean(r.candidate),
      dash(r.code),
      retryText(r),
      timeWithDistance(r.deadline_at, nowMs, true),
      pendingText(r),
    ]),
  );
}

/** `routes show`: the headline, then one labelled line for each fact the route has. */
export function renderRouteDetail(route: RouteDocument, nowMs: number): string {
  const tone = stateWords[route.state]?.tone ?? null;
  const lines: [string, string | null][] = [
    ['state', `${clean(route.state)}, generation ${route.generation}, cycle ${route.cycle}`],
    ['profile', `${clean(route.profile_id)} (${clean(route.mode)}, caller ${clean(route.caller)})`],
    ['candidate', clean(route.candidate)],
    [
      'cause',
      route.code === null && route.class === null ? null : `${dash(route.code)} (${dash(route.class)})`,
    ],
    ['rule', route.last_failure?.classifier_rule == null ? null : clean(route.last_failure.classifier_rule)],
    ['retry', route.retry_ordinal === null ? null : `${route.retry_ordinal} of ${dash(route.max_retries)}`],
    ['deadline', route.deadline_at === null ? null : timeWithDistance(route.deadline_at, nowMs)],
    [
      'then',
      route.pending_outcome === null
        ? null
        : `${pendingText(route)} (when recovery on this candidate runs out)`,
    ],
    ['next', route.next_candidate === null ? null : clean(route.next_candidate)],
    [
      'uncertain',
      route.uncertain_candidate === null
        ? null
        : `${clean(route.uncertain_candidate)}: the last dispatch may have reached it; check before retrying`,
    ],
    ['reason', route.reason === null ? null : clean(route.reason)],
    ['detail', route.detail === null ? null : clean(route.detail)],
    ['can do', route.recovery_actions.length === 0 ? null : route.recovery_actions.map(clean).join(', ')],
    ['excluded', route.excluded.length === 0 ? null : route.excluded.map(clean).join(', ')],
    ['dispatch', route.dispatch === null ? null : dispatchText(route.dispatch)],
    ['updated', timeWithDistance(route.updated_at, nowMs)],
  ];
  return (
    `${clean(route.id)}: ${paint(routeHeadline(route), tone)}\n` +
    lines
      .filter((l): l is [string, string] => l[1] !== null)
      .map(([label, value]) => `  ${label.padEnd(10)} ${value}\n`)
      .join('')
  );
}

function dispatchText(d: NonNullable<RouteDocument['dispatch']>): string {
  const status = d.orphaned
    ? 'orphaned'
    : d.finished
      ? 'finished'
      : d.acknowledged
        ? 'acknowledged, running'
        : 'not yet acknowledged';
  return `${clean(d.kind)} attempt on ${clean(d.candidate)}, ${status}`;
}

/** One row of `GET /v1/routes/{id}/attempts` (the fields the history shows). */
export interface AttemptDocument {
  readonly seq: number;
  readonly candidate: string;
  readonly generation: number;
  readonly code: string | null;
  readonly class: string | null;
  readonly decision: string;
  readonly retry_ordinal: number | null;
  readonly deadline_at: string | null;
  readonly note: string | null;
  readonly at: string;
}

export function renderAttempts(attempts: readonly AttemptDocument[], nowMs: number): string {
  if (attempts.length === 0) return 'No attempts recorded yet.\n';
  return renderTable(
    ['#', 'AT', 'CANDIDATE', 'GEN', 'CODE', 'CLASS', 'DECISION', 'RETRY', 'DEADLINE', 'NOTE'],
    attempts.map((a) => [
      String(a.seq),
      timeWithDistance(a.at, nowMs, true),
      clean(a.candidate),
      String(a.generation),
      dash(a.code),
      dash(a.class),
      clean(a.decision),
      dash(a.retry_ordinal),
      a.deadline_at === null ? '-' : timeWithDistance(a.deadline_at, nowMs, true),
      dash(a.note),
    ]),
  );
}
