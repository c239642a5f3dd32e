import { RecourseError, snapshotOf } from '../core/index.js';
import { EngineInputError, VersionConflictError, type ProviderEventResult } from '../engine/index.js';
import { documentOf, type ServerContext } from './context.js';
import { HttpError, invalid, type Reply } from './http-errors.js';

/**
 * A route outcome as an answer, by one table: a change and an idempotent repeat (`unchanged`, RTE-21) are 200
 * with the authoritative snapshot; every refusal (`stale_generation`, `stale_state`, `not_allowed`,
 * `prompt_open`, `stale_evidence`, `stale_invocation`, `route_stopped`, ...) and a fenced late event are 409 with
 * the snapshot and the reason.
 */
export function outcomeReply(context: ServerContext, outcome: ProviderEventResult): Reply {
  if (outcome.outcome === 'ignored') {
    return {
      status: 409,
      body: {
        error: { code: 'fenced', message: 'a late provider event of a retired retry: ignored' },
      },
    };
  }
  const route = documentOf(context, snapshotOf(outcome.route));
  const classification = outcome.classification;
  switch (outcome.outcome) {
    case 'changed':
      return { status: 200, body: { result: 'changed', decision: outcome.decision, route, classification } };
    case 'unchanged':
      return { status: 200, body: { result: 'unchanged', route, classification } };
    case 'refused':
      return {
        status: 409,
        body: { error: { code: outcome.reason, message: outcome.detail }, route, classification },
      };
  }
}

const statusOfCode: Readonly<Record<string, number>> = {
  invalid_input: 422,
  not_found: 404,
  route_exists: 409,
  version_conflict: 409,
  invalid_configuration: 409,
  in_use: 409,
  session_exists: 409,
  closed: 503,
  timeout: 504,
};

/** A thrown Recourse error as an HTTP error, by its stable code; anything else is the server's own fault. */
export function httpErrorOf(error: unknown): HttpError | null {
  if (error instanceof HttpError) return error;
  if (error instanceof EngineInputError) return invalid(error.issues);
  if (error instanceof VersionConflictError) {
    return new HttpError(409, error.code, error.message, { current: error.current });
  }
  if (error instanceof RecourseError) {
    return new HttpError(statusOfCode[error.code] ?? 409, error.code, error.message);
  }
  return null;
}

/** Runs an engine call, its field issues re-addressed to the request's own names (`/after` is the `cursor`). */
export async function renamedIssues<T>(
  run: () => Promise<T>,
  names: Readonly<Record<string, string>>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof EngineInputError)) throw error;
    throw invalid(error.issues.map((i) => ({ path: names[i.path] ?? i.path, message: i.message })));
  }
}

/**
 * Runs an engine call on the route named in the URL path: an id the engine refuses to read (`\u0000`, `../x`)
 * names no route, so it is 404 like an unknown id (as `GET /v1/routes/:id` answers), not a pointer into a body.
 */
export async function onPathRoute<T>(routeId: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof EngineInputError && error.issues.some((i) => i.path === '/route_id')) {
      throw new HttpError(404, 'not_found', `no route ${JSON.stringify(routeId)}`);
    }
    throw error;
  }
}
