import { RecourseError, type DynamicProfile, type FieldIssue } from '../core/index.js';

/** Bad input to the engine (code `invalid_input`): nothing was changed. Each issue names the field and why. */
export class EngineInputError extends RecourseError {
  constructor(readonly issues: readonly FieldIssue[]) {
    super('invalid_input', issues.map((i) => `${i.path || '/'}: ${i.message}`).join('; '));
    this.name = 'EngineInputError';
  }
}

/** Code `not_found`. */
export class RouteNotFoundError extends RecourseError {
  constructor(readonly routeId: string) {
    super('not_found', `route ${JSON.stringify(routeId)} does not exist`);
    this.name = 'RouteNotFoundError';
  }
}

/** Code `not_found`. */
export class ProfileNotFoundError extends RecourseError {
  constructor(readonly profileId: string) {
    super('not_found', `dynamic profile ${JSON.stringify(profileId)} does not exist`);
    this.name = 'ProfileNotFoundError';
  }
}

/** Code `route_exists`. */
export class RouteExistsError extends RecourseError {
  constructor(readonly routeId: string) {
    super('route_exists', `route ${JSON.stringify(routeId)} already exists`);
    this.name = 'RouteExistsError';
  }
}

/** Code `session_exists`: a task session with this id exists already (another open of it came first). */
export class SessionExistsError extends RecourseError {
  constructor(readonly sessionId: string) {
    super('session_exists', `task session ${JSON.stringify(sessionId)} exists`);
    this.name = 'SessionExistsError';
  }
}

/** Code `closed`: the engine was closed; nothing was done. */
export class EngineClosedError extends RecourseError {
  constructor() {
    super('closed', 'the engine is closed');
    this.name = 'EngineClosedError';
  }
}

/** Code `version_conflict`: the profile changed since the version the caller edited; `current` is the latest. */
export class VersionConflictError extends RecourseError {
  constructor(
    readonly profileId: string,
    readonly expectedVersion: number,
    readonly current: DynamicProfile | null,
  ) {
    super(
      'version_conflict',
      `dynamic profile ${JSON.stringify(profileId)} is at version ${current?.version ?? 0}, not ${expectedVersion}`,
    );
    this.name = 'VersionConflictError';
  }
}
