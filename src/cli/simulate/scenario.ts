import { readRoutes, readSingleRoute, type ScenarioRoute } from './scenario-routes.js';
import { readSteps, isSeconds, maxSeconds, type Step } from './scenario-steps.js';
import {
  describeValue as describe,
  isPlainObjectValue as isPlainObject,
  jsonPointer as pointer,
  parseIsoDateTime,
  type FieldIssue,
} from '../../core/index.js';

export type { ScenarioRoute } from './scenario-routes.js';
export type { CancelCaller, Progress, Step } from './scenario-steps.js';

export interface Scenario {
  readonly startMs: number;
  /** The routes it runs: one for a scenario with `profile`, several with `routes` (they share circuits). */
  readonly routes: readonly ScenarioRoute[];
  /** Declared with `routes`: every printed line then names its route, and circuit changes are printed. */
  readonly multiRoute: boolean;
  readonly steps: readonly Step[];
  /** Seconds from the start to run to; null runs until nothing is scheduled. */
  readonly until: number | null;
}

export type ScenarioResult =
  | { readonly ok: true; readonly scenario: Scenario }
  | { readonly ok: false; readonly issues: readonly FieldIssue[] };

const fields = ['start', 'mode', 'caller', 'session', 'profile', 'routes', 'steps', 'until'];

/** Validates a scenario document; every problem is reported with its JSON pointer. */
export function readScenario(value: unknown): ScenarioResult {
  const issues: FieldIssue[] = [];
  if (!isPlainObject(value)) {
    return {
      ok: false,
      issues: [
        {
          path: '',
          message: `a scenario must be an object {start, profile or routes, steps, until} (got ${describe(value)})`,
        },
      ],
    };
  }
  for (const key of Object.keys(value)) {
    if (!fields.includes(key)) {
      issues.push({
        path: pointer('', key),
        message: `unknown field ${describe(key)} (fields: ${fields.join(', ')})`,
      });
    }
  }
  const startMs = typeof value.start === 'string' ? parseIsoDateTime(value.start) : null;
  // Before 1970 the classifier refuses the clock: the run would stop at its first failure, half printed.
  if (startMs === null || startMs < 0) {
    issues.push({
      path: '/start',
      message: `start must be an ISO-8601 date-time with a zone from 1970 on, like 2026-06-01T12:00:00Z (got ${describe(value.start)})`,
    });
  }
  const multiRoute = value.routes !== undefined;
  let routes: ScenarioRoute[] = [];
  if (multiRoute) {
    for (const key of ['profile', 'mode', 'caller', 'session']) {
      if (value[key] !== undefined)
        issues.push({
          path: pointer('', key),
          message: `${key} belongs to each route when the scenario has routes`,
        });
    }
    routes = readRoutes(value.routes, issues);
  } else {
    const route = readSingleRoute(value, issues);
    if (route !== null) routes = [route];
  }
  // Steps are checked even when the route is not valid, so every problem is reported at once.
  const single = {
    id: routes[0]?.id ?? '',
    interactive: routes[0]?.target.mode === 'interactive' || value.mode === 'interactive',
  };
  const steps = readSteps(value.steps, multiRoute ? routes : null, single, issues);
  let until: number | null = null;
  if (value.until !== undefined) {
    if (!isSeconds(value.until)) {
      issues.push({
        path: '/until',
        message: `until must be a number of seconds from start, 0 to ${maxSeconds} (got ${describe(value.until)})`,
      });
    } else {
      until = value.until;
      const last = steps.at(-1)?.at ?? 0;
      if (until < last)
        issues.push({ path: '/until', message: `until (${until}) is before the last step (at ${last})` });
    }
  }
  if (issues.length > 0 || startMs === null || routes.length === 0) return { ok: false, issues };
  return { ok: true, scenario: { startMs, routes, multiRoute, steps, until } };
}
