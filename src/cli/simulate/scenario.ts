import {
  describeValue as describe,
  isPlainObjectValue as isPlainObject,
  jsonPointer as pointer,
  manualActions,
  parseEnvelope,
  parseIsoDateTime,
  routeModes,
  callerKinds,
  routeStates,
  validateDynamicProfile,
  type DynamicProfile,
  type FieldIssue,
  type ManualAction,
  type RouteMode,
  type CallerKind,
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

export type Step =
  | {
      readonly at: number;
      readonly event: 'failure';
      /** The evidence envelope, validated (the engine parses it again, as it does for every caller). */
      readonly evidence: unknown;
      /** Null: no replay evidence at all, which fails closed. */
      readonly progress: Progress | null;
      readonly promptOpen: boolean;
    }
  | { readonly at: number; readonly event: 'success' }
  | {
      readonly at: number;
      readonly event: 'action';
      readonly action: ManualAction;
      readonly expectedGeneration: number;
      /** The state the scenario expects the route in: a race within one generation is then refused. */
      readonly expectedState: RouteState | null;
    }
  | { readonly at: number; readonly event: 'lose_next_ack' }
  | { readonly at: number; readonly event: 'restart' };

export interface Scenario {
  readonly startMs: number;
  readonly mode: RouteMode;
  /** Who runs the session (a Kanban task, an Office session, ...): presentation only, the decisions are the same. */
  readonly caller: CallerKind;
  readonly profile: DynamicProfile;
  readonly steps: readonly Step[];
  /** Seconds from the start to run to; null runs until nothing is scheduled. */
  readonly until: number | null;
}

export type ScenarioResult =
  | { readonly ok: true; readonly scenario: Scenario }
  | { readonly ok: false; readonly issues: readonly FieldIssue[] };

const stepEvents = ['failure', 'success', 'action', 'lose_next_ack', 'restart'] as const;
const maxSteps = 10_000;
/** A scenario spans at most a year: far beyond the longest wait (7 days) a policy allows. */
const maxSeconds = 366 * 86_400;

/** Validates a scenario document; every problem is reported with its JSON pointer. */
export function readScenario(value: unknown): ScenarioResult {
  const issues: FieldIssue[] = [];
  if (!isPlainObject(value)) {
    return {
      ok: false,
      issues: [
        {
          path: '',
          message: `a scenario must be an object {start, profile, steps, until} (got ${describe(value)})`,
        },
      ],
    };
  }
  for (const key of Object.keys(value)) {
    if (!['start', 'mode', 'caller', 'profile', 'steps', 'until'].includes(key)) {
      issues.push({
        path: pointer('', key),
        message: `unknown field ${describe(key)} (fields: start, mode, caller, profile, steps, until)`,
      });
    }
  }
  const startMs = typeof value.start === 'string' ? parseIsoDateTime(value.start) : null;
  if (startMs === null) {
    issues.push({
      path: '/start',
      message: `start must be an ISO-8601 date-time with a zone, like 2026-06-01T12:00:00Z (got ${describe(value.start)})`,
    });
  }
  const caller = value.caller ?? 'task';
  if (!(callerKinds as readonly unknown[]).includes(caller)) {
    issues.push({
      path: '/caller',
      message: `caller must be one of ${callerKinds.join(', ')} (got ${describe(caller)})`,
    });
  }
  const mode = value.mode ?? 'dynamic';
  if (!(routeModes as readonly unknown[]).includes(mode)) {
    issues.push({
      path: '/mode',
      message: `mode must be one of ${routeModes.join(', ')} (got ${describe(mode)})`,
    });
  }
  const profile = readProfile(value.profile, mode === 'interactive', issues);
  const steps = readSteps(value.steps, issues);
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
  if (issues.length > 0 || startMs === null || profile === null) return { ok: false, issues };
  return {
    ok: true,
    scenario: { startMs, mode: mode as RouteMode, caller: caller as CallerKind, profile, steps, until },
  };
}

function readProfile(value: unknown, interactive: boolean, issues: FieldIssue[]): DynamicProfile | null {
  if (!isPlainObject(value)) {
    issues.push({
      path: '/profile',
      message: `profile must be an object {name, candidates} (got ${describe(value)})`,
    });
    return null;
  }
  // The scenario format names a profile only; its id defaults to the name when that is a valid id.
  const id =
    typeof value.name === 'string' && /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/.test(value.name)
      ? value.name
      : 'simulated';
  const checked = validateDynamicProfile({ id, version: 1, ...value }, '/profile');
  if (!checked.ok) {
    issues.push(...checked.issues);
    return null;
  }
  if (interactive && checked.value.candidates.length !== 1) {
    issues.push({
      path: '/profile/candidates',
      message: 'an interactive scenario runs one concrete profile: give exactly one candidate',
    });
  }
  return checked.value;
}

function readSteps(value: unknown, issues: FieldIssue[]): Step[] {
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
    const step = readStep(raw, at, path, issues);
    if (step !== null) steps.push(step);
  });
  return steps;
}

function readStep(raw: Record<string, unknown>, at: number, path: string, issues: FieldIssue[]): Step | null {
  const event = raw.event;
  const allowed: Record<string, readonly string[]> = {
    failure: ['evidence', 'progress', 'prompt_open'],
    success: [],
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
  for (const key of Object.keys(raw)) {
    if (key !== 'at' && key !== 'event' && !allowed[event]!.includes(key)) {
      issues.push({
        path: pointer(path, key),
        message: `unknown field ${describe(key)} for a ${event} step`,
      });
    }
  }
  switch (event) {
    case 'failure': {
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
        ? { at, event, evidence: raw.evidence, progress, promptOpen: promptOpen === true }
        : null;
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
            event,
            action: action as ManualAction,
            expectedGeneration: generation as number,
            expectedState: state as RouteState | null,
          }
        : null;
    }
    case 'success':
    case 'lose_next_ack':
    case 'restart':
      return { at, event };
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

function isSeconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= maxSeconds;
}
