import type { ScenarioRoute } from './scenario-routes.js';
import {
  describeValue as describe,
  isPlainObjectValue as isPlainObject,
  jsonPointer as pointer,
  manualActions,
  parseEnvelope,
  routeStates,
  type EvidenceEnvelope,
  type FieldIssue,
  type ManualAction,
  type RouteState,
} from '../../core/index.js';

/** What the failed attempt did before it failed (the replay evidence of the simulated prompt). */
export interface Progress {
  readonly assistantOutput: boolean;
  readonly toolActivity: boolean;
  readonly thought: boolean;
  /** Assistant text, when it matters that it is a matching diagnostic of the error (SCN-08). */
  readonly assistantText: string | null;
}

/** Who sends a Cancel: the session's owner, a caller without the right, or the owner naming another task's pair. */
export const cancelCallers = ['owner', 'denied', 'foreign'] as const;
export type CancelCaller = (typeof cancelCallers)[number];

/** Every step but `restart` is about one route (its engine route id). */
export type Step =
  | {
      readonly at: number;
      readonly route: string;
      readonly event: 'failure' | 'late_failure';
      /** The evidence envelope, validated (the engine parses it again, as it does for every caller). */
      readonly evidence: EvidenceEnvelope;
      /** Null: no replay evidence at all, which fails closed. */
      readonly progress: Progress | null;
      readonly promptOpen: boolean;
    }
  | { readonly at: number; readonly route: string; readonly event: 'success' }
  | { readonly at: number; readonly route: string; readonly event: 'prompt' }
  | {
      readonly at: number;
      readonly route: string;
      readonly event: 'action';
      readonly action: ManualAction;
      readonly expectedGeneration: number;
      /** The state the scenario expects the route in: a race within one generation is then refused. */
      readonly expectedState: RouteState | null;
    }
  | { readonly at: number; readonly route: string; readonly event: 'cancel'; readonly by: CancelCaller }
  | { readonly at: number; readonly route: string; readonly event: 'stop' }
  | { readonly at: number; readonly route: string; readonly event: 'lose_next_ack' }
  | { readonly at: number; readonly event: 'restart' };

const stepEvents = [
  'failure',
  'success',
  'prompt',
  'action',
  'lose_next_ack',
  'restart',
  'cancel',
  'stop',
  'late_failure',
] as const;
/** Steps about a task session's retry notice: only an interactive route has one. */
const sessionEvents: ReadonlySet<string> = new Set(['cancel', 'stop', 'late_failure']);
const maxSteps = 10_000;
/** A scenario spans at most a year: far beyond the longest wait (7 days) a policy allows. */
export const maxSeconds = 366 * 86_400;

/**
 * The steps of a scenario. With `routes` (a list), each step but `restart` names its route; otherwise steps are
 * about the scenario's single route and name none.
 */
export function readSteps(
  value: unknown,
  routes: readonly ScenarioRoute[] | null,
  single: StepRoute,
  issues: FieldIssue[],
): Step[] {
  if (!Array.isArray(value) || value.length > maxSteps) {
    issues.push({
      path: '/steps',
      message: `steps must be a list of at most ${maxSteps} steps (got ${describe(value)})`,
    });
    return [];
  }
  const steps: Step[] = [];
  let previous = 0;
  value.forEach((raw: unknown, index) => {
    const path = pointer('/steps', index);
    if (!isPlainObject(raw)) {
      issues.push({ path, message: `a step must be an object {at, event, ...} (got ${describe(raw)})` });
      return;
    }
    const at = raw.at;
    if (!isSeconds(at)) {
      issues.push({
        path: pointer(path, 'at'),
        message: `at must be a number of seconds from start, 0 to ${maxSeconds} (got ${describe(at)})`,
      });
      return;
    }
    if (at < previous) {
      issues.push({
        path: pointer(path, 'at'),
        message: `steps must be in time order: at ${at} comes after at ${previous}`,
      });
    }
    previous = Math.max(previous, at);
    const route = routeOf(raw, path, routes, single, issues);
    if (route === undefined) return;
    const step = readStep(raw, at, route, routes !== null, path, issues);
    if (step !== null) steps.push(step);
  });
  return steps;
}

/** What a step needs to know of its route: its id, and whether it is a task session (interactive). */
export interface StepRoute {
  readonly id: string;
  readonly interactive: boolean;
}

/** The route a step is about: null for `restart`, undefined when it cannot be told (an issue says why). */
function routeOf(
  raw: Record<string, unknown>,
  path: string,
  routes: readonly ScenarioRoute[] | null,
  single: StepRoute,
  issues: FieldIssue[],
): StepRoute | null | undefined {
  const event = raw.event;
  if (routes === null) {
    if (raw.route !== undefined) {
      issues.push({
        path: pointer(path, 'route'),
        message: "route names one of the scenario's routes: give the scenario a routes list",
      });
    }
    return event === 'restart' ? null : single;
  }
  if (event === 'restart') {
    if (raw.route !== undefined)
      issues.push({ path: pointer(path, 'route'), message: 'restart is global: it names no route' });
    return null;
  }
  const found = routes.find((r) => r.id === raw.route);
  if (found === undefined) {
    issues.push({
      path: pointer(path, 'route'),
      message: `route must name one of the scenario's routes (${routes
        .slice(0, 10)
        .map((r) => r.id)
        .join(', ')}${routes.length > 10 ? ', ...' : ''}) (got ${describe(raw.route)})`,
    });
    return undefined;
  }
  return { id: found.id, interactive: found.target.mode === 'interactive' };
}

function readStep(
  raw: Record<string, unknown>,
  at: number,
  target: StepRoute | null,
  routesListed: boolean,
  path: string,
  issues: FieldIssue[],
): Step | null {
  const event = raw.event;
  const allowed: Record<string, readonly string[]> = {
    failure: ['evidence', 'progress', 'prompt_open'],
    late_failure: ['evidence', 'progress'],
    cancel: ['by'],
    stop: [],
    success: [],
    prompt: [],
    action: ['action', 'expected_generation', 'expected_state'],
    lose_next_ack: [],
    restart: [],
  };
  if (typeof event !== 'string' || !(stepEvents as readonly string[]).includes(event)) {
    issues.push({
      path: pointer(path, 'event'),
      message: `event must be one of ${stepEvents.join(', ')} (got ${describe(event)})`,
    });
    return null;
  }
  if (sessionEvents.has(event) && target?.interactive !== true) {
    issues.push({
      path: pointer(path, 'event'),
      message: `${event} is a step of an interactive ${routesListed ? 'route' : 'scenario'} (mode: interactive)`,
    });
    return null;
  }
  for (const key of Object.keys(raw)) {
    if (key !== 'at' && key !== 'event' && key !== 'route' && !allowed[event]!.includes(key)) {
      issues.push({
        path: pointer(path, key),
        message: `unknown field ${describe(key)} for a ${event} step`,
      });
    }
  }
  if (event === 'restart' || target === null) return { at, event: 'restart' };
  const route = target.id;
  switch (event) {
    case 'failure':
    case 'late_failure': {
      const parsed = parseEnvelope(raw.evidence);
      if (!parsed.ok) {
        for (const i of parsed.issues)
          issues.push({ path: `${pointer(path, 'evidence')}${i.path}`, message: i.message });
      }
      const progress = readProgress(raw.progress, pointer(path, 'progress'), issues);
      const promptOpen = raw.prompt_open ?? false;
      if (typeof promptOpen !== 'boolean') {
        issues.push({
          path: pointer(path, 'prompt_open'),
          message: `prompt_open must be true or false (got ${describe(promptOpen)})`,
        });
      }
      return parsed.ok
        ? {
            at,
            route,
            event,
            evidence: raw.evidence as EvidenceEnvelope,
            progress,
            promptOpen: promptOpen === true,
          }
        : null;
    }
    case 'cancel': {
      const by = raw.by ?? 'owner';
      if (!(cancelCallers as readonly unknown[]).includes(by)) {
        issues.push({
          path: pointer(path, 'by'),
          message: `by must be one of ${cancelCallers.join(', ')} (got ${describe(by)})`,
        });
        return null;
      }
      return { at, route, event, by: by as CancelCaller };
    }
    case 'action': {
      const action = raw.action;
      const generation = raw.expected_generation;
      const state = raw.expected_state ?? null;
      let ok = true;
      if (!(manualActions as readonly unknown[]).includes(action)) {
        issues.push({
          path: pointer(path, 'action'),
          message: `action must be one of ${manualActions.join(', ')} (got ${describe(action)})`,
        });
        ok = false;
      }
      if (typeof generation !== 'number' || !Number.isSafeInteger(generation) || generation < 1) {
        issues.push({
          path: pointer(path, 'expected_generation'),
          message: `expected_generation must be a positive integer (got ${describe(generation)})`,
        });
        ok = false;
      }
      if (state !== null && !(routeStates as readonly unknown[]).includes(state)) {
        issues.push({
          path: pointer(path, 'expected_state'),
          message: `expected_state must be one of ${routeStates.join(', ')} (got ${describe(state)})`,
        });
        ok = false;
      }
      return ok
        ? {
            at,
            route,
            event,
            action: action as ManualAction,
            expectedGeneration: generation as number,
            expectedState: state as RouteState | null,
          }
        : null;
    }
    case 'success':
    case 'prompt':
    case 'stop':
    case 'lose_next_ack':
      return { at, route, event };
    default:
      return null;
  }
}

function readProgress(value: unknown, path: string, issues: FieldIssue[]): Progress | null {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) {
    issues.push({
      path,
      message: `progress must be an object {assistant_output, tool_activity} (got ${describe(value)})`,
    });
    return null;
  }
  const flag = (key: string): boolean => {
    const v = value[key] ?? false;
    if (typeof v !== 'boolean')
      issues.push({ path: pointer(path, key), message: `${key} must be true or false (got ${describe(v)})` });
    return v === true;
  };
  for (const key of Object.keys(value)) {
    if (!['assistant_output', 'tool_activity', 'thought', 'assistant_text'].includes(key)) {
      issues.push({
        path: pointer(path, key),
        message: `unknown field ${describe(key)} (fields: assistant_output, tool_activity, thought, assistant_text)`,
      });
    }
  }
  const text = value.assistant_text ?? null;
  if (text !== null && (typeof text !== 'string' || text.length > 4096)) {
    issues.push({
      path: pointer(path, 'assistant_text'),
      message: `assistant_text must be a string of at most 4096 characters (got ${describe(text)})`,
    });
  }
  return {
    assistantOutput: flag('assistant_output'),
    toolActivity: flag('tool_activity'),
    thought: flag('thought'),
    assistantText: typeof text === 'string' ? text : null,
  };
}

export function isSeconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= maxSeconds;
}
