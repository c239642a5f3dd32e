import {
  callerKinds,
  describeValue as describe,
  hasIdShape,
  isPlainObjectValue as isPlainObject,
  jsonPointer as pointer,
  routeModes,
  validateDynamicProfile,
  type CallerKind,
  type DynamicProfile,
  type FieldIssue,
  type SessionRef,
} from '../../core/index.js';

/** What a scenario route runs: a dynamic profile's route, or one concrete profile's task session (interactive). */
export type Target =
  | { readonly mode: 'dynamic'; readonly profile: DynamicProfile }
  | { readonly mode: 'interactive'; readonly session: SessionRef; readonly profileId: string };

/** One route of a scenario; `id` is its route id in the engine and in every printed line. */
export interface ScenarioRoute {
  readonly id: string;
  /** Who runs the session (a Kanban task, an Office session, ...): presentation only, the decisions are the same. */
  readonly caller: CallerKind;
  readonly target: Target;
}

const sessionIdShape = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,119}$/;
export const maxRoutes = 1000;

/** The single route of a scenario with a top-level `profile` (the format before `routes`). */
export function readSingleRoute(value: Record<string, unknown>, issues: FieldIssue[]): ScenarioRoute | null {
  const caller = readCaller(value.caller, '/caller', issues);
  const mode = readMode(value.mode, '/mode', issues);
  if (mode !== 'interactive' && value.session !== undefined) {
    issues.push({
      path: '/session',
      message: 'session belongs to an interactive scenario (mode: interactive)',
    });
  }
  const target =
    mode === 'interactive'
      ? readSession(value.session, value.profile, '', issues)
      : readProfile(value.profile, '/profile', issues);
  if (target === null || caller === null) return null;
  const id = target.mode === 'dynamic' ? 'simulated-route' : `session:${target.session.sessionId}`;
  return { id, caller, target };
}

/** `routes: [{id, mode?, caller?, profile, session?}]`: several routes sharing circuits. */
export function readRoutes(value: unknown, issues: FieldIssue[]): ScenarioRoute[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > maxRoutes) {
    issues.push({
      path: '/routes',
      message: `routes must be a list of 1 to ${maxRoutes} routes {id, profile, ...} (got ${describe(value)})`,
    });
    return [];
  }
  const routes: ScenarioRoute[] = [];
  const ids = new Set<string>();
  const sessions = new Set<string>();
  const profiles = new Map<string, string>();
  value.forEach((raw: unknown, index) => {
    const path = pointer('/routes', index);
    if (!isPlainObject(raw)) {
      issues.push({ path, message: `a route must be an object {id, profile, ...} (got ${describe(raw)})` });
      return;
    }
    for (const key of Object.keys(raw)) {
      if (!['id', 'mode', 'caller', 'profile', 'session'].includes(key)) {
        issues.push({
          path: pointer(path, key),
          message: `unknown field ${describe(key)} (fields: id, mode, caller, profile, session)`,
        });
      }
    }
    const id = raw.id;
    if (!hasIdShape(id)) {
      issues.push({
        path: pointer(path, 'id'),
        message: `id must be 1-128 letters, digits or ._:@/- starting with a letter or digit (got ${describe(id)})`,
      });
    } else if (ids.has(id)) {
      issues.push({ path: pointer(path, 'id'), message: `route id ${describe(id)} is used twice` });
    }
    const caller = readCaller(raw.caller, pointer(path, 'caller'), issues);
    const mode = readMode(raw.mode, pointer(path, 'mode'), issues);
    if (mode !== 'interactive' && raw.session !== undefined) {
      issues.push({
        path: pointer(path, 'session'),
        message: 'session belongs to an interactive route (mode: interactive)',
      });
    }
    const target =
      mode === 'interactive'
        ? readSession(raw.session ?? defaultSession(id), raw.profile, path, issues)
        : readProfile(raw.profile, pointer(path, 'profile'), issues);
    if (target?.mode === 'interactive') {
      if (sessions.has(target.session.sessionId)) {
        issues.push({
          path: pointer(path, 'session'),
          message: `session ${describe(target.session.sessionId)} belongs to another route already`,
        });
      }
      sessions.add(target.session.sessionId);
    }
    if (target?.mode === 'dynamic') {
      // Routes may share a profile by name, but one name is one document: a second one would be a new version.
      const text = JSON.stringify(target.profile);
      const known = profiles.get(target.profile.id);
      if (known !== undefined && known !== text) {
        issues.push({
          path: pointer(pointer(path, 'profile'), 'name'),
          message: `another route defines profile ${describe(target.profile.id)} differently; give this one another name`,
        });
      }
      if (known === undefined) profiles.set(target.profile.id, text);
    }
    if (hasIdShape(id)) ids.add(id);
    if (typeof id === 'string' && target !== null && caller !== null) routes.push({ id, caller, target });
  });
  return routes;
}

function defaultSession(id: unknown): Record<string, unknown> {
  const sessionId = typeof id === 'string' && sessionIdShape.test(id) ? id : 'session';
  return { task_id: 'task', session_id: sessionId };
}

function readCaller(value: unknown, path: string, issues: FieldIssue[]): CallerKind | null {
  const caller = value ?? 'task';
  if (!(callerKinds as readonly unknown[]).includes(caller)) {
    issues.push({
      path,
      message: `caller must be one of ${callerKinds.join(', ')} (got ${describe(caller)})`,
    });
    return null;
  }
  return caller as CallerKind;
}

function readMode(value: unknown, path: string, issues: FieldIssue[]): 'dynamic' | 'interactive' {
  const mode = value ?? 'dynamic';
  if (!(routeModes as readonly unknown[]).includes(mode)) {
    issues.push({ path, message: `mode must be one of ${routeModes.join(', ')} (got ${describe(mode)})` });
  }
  return mode === 'interactive' ? 'interactive' : 'dynamic';
}

function readProfile(value: unknown, path: string, issues: FieldIssue[]): Target | null {
  if (!isPlainObject(value)) {
    issues.push({ path, message: `profile must be an object {name, candidates} (got ${describe(value)})` });
    return null;
  }
  // The scenario format names a profile only; its id defaults to the name when that is a valid id.
  const id = hasIdShape(value.name) ? value.name : 'simulated';
  const checked = validateDynamicProfile({ id, version: 1, ...value }, path);
  if (!checked.ok) {
    issues.push(...checked.issues);
    return null;
  }
  return { mode: 'dynamic', profile: checked.value };
}

/** An interactive route: one task session on one concrete profile, `{"profile":{"profile_id":"a"}}`. */
function readSession(value: unknown, profile: unknown, at: string, issues: FieldIssue[]): Target | null {
  const session = value ?? { task_id: 'task', session_id: 'session' };
  const sessionPath = `${at}/session`;
  const ids: Record<string, string> = {};
  if (!isPlainObject(session)) {
    issues.push({
      path: sessionPath,
      message: `session must be an object {task_id, session_id} (got ${describe(session)})`,
    });
  } else {
    for (const key of Object.keys(session)) {
      if (key !== 'task_id' && key !== 'session_id') {
        issues.push({
          path: pointer(sessionPath, key),
          message: `unknown field ${describe(key)} (fields: task_id, session_id)`,
        });
      }
    }
    for (const key of ['task_id', 'session_id'] as const) {
      const id = session[key];
      if (typeof id !== 'string' || !sessionIdShape.test(id)) {
        issues.push({
          path: pointer(sessionPath, key),
          message: `${key} must be 1-120 letters, digits or ._:@/- (got ${describe(id)})`,
        });
      } else ids[key] = id;
    }
  }
  const profilePath = `${at}/profile`;
  const profileId = isPlainObject(profile) ? profile.profile_id : undefined;
  if (!isPlainObject(profile) || Object.keys(profile).some((k) => k !== 'profile_id')) {
    issues.push({
      path: profilePath,
      message: `an interactive ${at === '' ? 'scenario' : 'route'}'s profile is {"profile_id": "..."} (got ${describe(profile)})`,
    });
  } else if (!hasIdShape(profileId)) {
    issues.push({
      path: pointer(profilePath, 'profile_id'),
      message: `profile_id must be 1-128 letters, digits or ._:@/- (got ${describe(profileId)})`,
    });
  }
  if (ids.task_id === undefined || ids.session_id === undefined || typeof profileId !== 'string') return null;
  return { mode: 'interactive', session: { taskId: ids.task_id, sessionId: ids.session_id }, profileId };
}
