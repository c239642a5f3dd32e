/**
 * The closed set of codes a thrown Recourse error carries: an HTTP layer maps them to statuses without parsing
 * messages. Expected outcomes of route work (a stale generation, an action not allowed) are returned values
 * with a `RefusalReason`, never thrown.
 */
export const errorCodes = [
  /** Bad input: nothing was changed; `issues` name each field (JSON pointers). */
  'invalid_input',
  /** The route or profile named does not exist. */
  'not_found',
  /** A route with this id exists already. */
  'route_exists',
  /** The expected version of a document is not the stored one. */
  'version_conflict',
  /** Stored configuration no longer validates (POL-20): it authorizes no work until it is fixed. */
  'invalid_configuration',
  /** The engine was closed. */
  'closed',
  /** A wait for a route (`Engine.waitFor`) ran out of time. */
  'timeout',
  /** The database is held by another open Recourse (one engine per SQLite file), or a profile is named by routes. */
  'in_use',
  /** A task session with this id exists already. */
  'session_exists',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

/** The base of every error Recourse throws on purpose. */
export class RecourseError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RecourseError';
  }
}

/**
 * A stored document that no longer validates (a profile written by an older version, or edited by hand): the
 * message names the document and every invalid field, so a person can fix it.
 */
export class ConfigurationError extends RecourseError {
  constructor(
    readonly documentId: string,
    readonly issues: readonly { readonly path: string; readonly message: string }[],
    /** The stored version that failed, when it could be read. */
    readonly version: number | null = null,
  ) {
    super(
      'invalid_configuration',
      `stored dynamic profile ${JSON.stringify(documentId)}${version === null ? '' : ` (version ${version})`} is invalid: ${issues
        .slice(0, 5)
        .map((i) => `${i.path || '/'}: ${i.message}`)
        .join('; ')}${issues.length > 5 ? ` (and ${issues.length - 5} more)` : ''}; save a corrected version`,
    );
    this.name = 'ConfigurationError';
  }
}
