import { redactSecrets, type FieldIssue } from '../core/index.js';
import type { z } from 'zod';

/** A reply an endpoint returns: a status and a JSON body. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A refusal the client can act on, thrown by a handler and answered as `{"error":{code,message}, ...extra}`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Readonly<Record<string, unknown>> = {},
    /** Headers the answer carries beside the body (a 401's `WWW-Authenticate` challenge). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/**
 * How many field errors a `422` lists. A 1 MiB body can hold 100,000 unknown fields: listed in full, the answer would
 * be several times the request and take the server seconds to build (every other request waiting behind it), and
 * no client reads past the first few.
 */
export const maxListedIssues = 50;

/**
 * `422` with its problems addressed by JSON pointer: the first `maxListedIssues` of them, the message counting all
 * (`total`, when the caller stopped collecting early).
 */
export function invalid(issues: readonly FieldIssue[], total = issues.length): HttpError {
  const listed = issues.slice(0, maxListedIssues);
  return new HttpError(
    422,
    'invalid_input',
    total === 1
      ? `${issues[0]!.path || '/'}: ${issues[0]!.message}`
      : `${total} invalid fields${total > listed.length ? `; the first ${listed.length} are listed` : ''}`,
    { errors: listed.map((i) => ({ path: i.path, message: i.message })) },
  );
}

/**
 * `reason` (a refusal's stable sub-code, as for plans) belongs with the code; everything else beside `error`. The
 * message is redacted: it may quote what the client sent (a route id, a path), and a key there must not come back.
 */
export function errorBody(code: string, message: string, extra: Readonly<Record<string, unknown>> = {}) {
  const { reason, ...rest } = extra;
  return {
    error: { code, message: redactSecrets(message), ...(reason === undefined ? {} : { reason }) },
    ...rest,
  };
}

/**
 * A request's path as a refusal may quote it: its leading segments that are lower-case words or a version (`/v1/nope`),
 * then `/…` for the rest. What follows is the client's (an id, a key sent by mistake), and a key in a path segment
 * has no key word before it (`/` and `+` even arrive as `%2F`, `%2B`): the redactor could not tell it from an id.
 */
export function quotedPath(url: string): string {
  const segments = url.split('?')[0]!.split('/');
  const words = segments.findIndex((segment, i) => i > 0 && !pathWord.test(segment));
  return words === -1 ? segments.join('/').slice(0, 200) : `${segments.slice(0, words).join('/')}/…`;
}

const pathWord = /^(?:[a-z]{1,40}(?:-[a-z]{1,40}){0,4}|v[0-9]{1,2})$/;

/**
 * zod's issues as JSON pointers (`/a/0/b`); an unknown key is reported at its own path, redacted (a client may send a
 * key as a field's name, as the envelope parser knows). Only the first `maxListedIssues` are built (each unknown key
 * is redacted, which costs); `total` counts them all.
 */
export function issuesOfZod(error: z.ZodError, base = ''): { issues: FieldIssue[]; total: number } {
  const issues: FieldIssue[] = [];
  let total = 0;
  for (const issue of error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : null;
    total += keys?.length ?? 1;
    if (issues.length >= maxListedIssues) continue;
    const path = base + issue.path.map((p) => `/${escapePointer(String(p))}`).join('');
    if (keys === null) {
      issues.push({ path, message: issue.message });
      continue;
    }
    for (const key of keys.slice(0, maxListedIssues - issues.length)) {
      issues.push({ path: `${path}/${escapePointer(redactSecrets(key))}`, message: 'unknown field' });
    }
  }
  return { issues, total };
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
