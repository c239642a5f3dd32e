import type { FieldIssue } from '../core/index.js';

/** Bad input to the engine: nothing was changed. Each issue names the field (a JSON pointer) and why. */
export class EngineInputError extends Error {
  constructor(readonly issues: readonly FieldIssue[]) {
    super(issues.map((i) => `${i.path || '/'}: ${i.message}`).join('; '));
    this.name = 'EngineInputError';
  }
}

export class RouteNotFoundError extends Error {
  constructor(readonly routeId: string) {
    super(`route ${JSON.stringify(routeId)} does not exist`);
    this.name = 'RouteNotFoundError';
  }
}

export class ProfileNotFoundError extends Error {
  constructor(readonly profileId: string) {
    super(`dynamic profile ${JSON.stringify(profileId)} does not exist`);
    this.name = 'ProfileNotFoundError';
  }
}

export class RouteExistsError extends Error {
  constructor(readonly routeId: string) {
    super(`route ${JSON.stringify(routeId)} already exists`);
    this.name = 'RouteExistsError';
  }
}
