import { readSteps, isSeconds, maxSeconds, type Step } from './scenario-steps.js';
import {
  callerKinds,
  describeValue as describe,
  isPlainObjectValue as isPlainObject,
  jsonPointer as pointer,
  parseIsoDateTime,
  routeModes,
  validateDynamicProfile,
  type CallerKind,
  type DynamicProfile,
  type FieldIssue,
  type SessionRef,
} from '../../core/index.js';

export type { CancelCaller, Progress, Step } from './scenario-steps.js';

/** What a scenario runs: a dynamic profile's route, or one concrete profile's task session (interactive). */
export type Target =
  | { readonly mode: 'dynamic'; readonly profile: DynamicProfile }
  | { readonly mode: 'interactive'; readonly session: SessionRef; readonly profileId: string };

export interface Scenario {
  readonly startMs: number;
  /** Who runs the session (a Kanban task, an Office session, ...): presentation only, the decisions are the same. */
  readonly caller: CallerKind;
  readonly target: Target;
  readonly steps: readonly Step[];
  /** Seconds from the start to run to; null runs until nothing is scheduled. */
  readonly until: number | null;
}

export type ScenarioResult =
  | { readonly ok: true; readonly scenario: Scenario }
  | { readonly ok: false; readonly issues: readonly FieldIssue[] };

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
    if (!['start', 'mode', 'caller', 'session', 'profile', 'steps', 'until'].includes(key)) {
      issues.push({
        path: pointer('', key),
        message: `unknown field ${describe(key)} (fields: start, mode, caller, session, profile, steps, until)`,
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
  const target = mode === 'interactive' ? readSession(value, issues) : readProfile(value.profile, issues);
  if (mode !== 'interactive' && value.session !== undefined) {
    issues.push({
      path: '/session',
      message: 'session belongs to an interactive scenario (mode: interactive)',
    });
  }
  const steps = readSteps(value.steps, mode === 'interactive', issues);
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
  if (issues.length > 0 || startMs === null || target === null) return { ok: false, issues };
  return { ok: true, scenario: { startMs, caller: caller as CallerKind, target, steps, until } };
}

function readProfile(value: unknown, issues: FieldIssue[]): Target | null {
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
  return { mode: 'dynamic', profile: checked.value };
}

/** An interactive scenario: one task session on one concrete profile, `{"profile":{"profile_id":"a"}}`. */
function readSession(value: Record<string, unknown>, issues: FieldIssue[]): Target | null {
  const session = value.session ?? { task_id: 'task', session_id: 'session' };
  const ids: Record<string, string> = {};
  if (!isPlainObject(session)) {
    issues.push({
      path: '/session',
      message: `session must be an object {task_id, session_id} (got ${describe(session)})`,
    });
  } else {
    for (const key of Object.keys(session)) {
      if (key !== 'task_id' && key !== 'session_id') {
        issues.push({
          path: pointer('/session', key),
          message: `unknown field ${describe(key)} (fields: task_id, session_id)`,
        });
      }
    }
    for (const key of ['task_id', 'session_id'] as const) {
      const id = session[key];
      if (typeof id !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,119}$/.test(id)) {
        issues.push({
          path: pointer('/session', key),
          message: `${key} must be 1-120 letters, digits or ._:@/- (got ${describe(id)})`,
        });
      } else ids[key] = id;
    }
  }
  const profile = value.profile;
  const profileId = isPlainObject(profile) ? profile.profile_id : undefined;
  if (!isPlainObject(profile) || Object.keys(profile).some((k) => k !== 'profile_id')) {
    issues.push({
      path: '/profile',
      message: `an interactive scenario's profile is {"profile_id": "..."} (got ${describe(profile)})`,
    });
  } else if (typeof profileId !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/.test(profileId)) {
    issues.push({
      path: '/profile/profile_id',
      message: `profile_id must be 1-128 letters, digits or ._:@/- (got ${describe(profileId)})`,
    });
  }
  if (ids.task_id === undefined || ids.session_id === undefined || typeof profileId !== 'string') return null;
  return { mode: 'interactive', session: { taskId: ids.task_id, sessionId: ids.session_id }, profileId };
}
