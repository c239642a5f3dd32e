import { redactSecrets } from '../core/sanitize/redact-secrets.js';
import { escapeControlCharacters } from '../core/text/escape-controls.js';
import { shapeProblem, type AnswerShape } from './answer-shape.js';

/** Where a client command sends its requests (`--server`, `RECOURSE_SERVER`) and the bearer token it shows. */
export interface ServerTarget {
  /** The base URL, without a trailing slash. */
  readonly url: string;
  readonly token: string | null;
}

/**
 * Why a request failed, with the exit code its command ends with: 3 when the server could not serve it (not
 * reachable, no answer in time, a 5xx, not a Recourse answer), 4 when the token was refused (401, 403), 1 for any
 * other refusal (4xx). `message` is one line for standard error.
 */
export interface RequestFailure {
  readonly kind: 'unreachable' | 'auth' | 'refused';
  readonly status: number | null;
  /** The server's stable error code (`stale_generation`, `invalid_input`, ...) when it sent one. */
  readonly code: string | null;
  readonly message: string;
  /** The whole error document (a 409 carries the route, a 422 its `errors`). */
  readonly body: unknown;
  readonly exitCode: 1 | 3 | 4;
}

export type JsonReply =
  | { readonly ok: true; readonly status: number; readonly body: unknown; readonly headers: Headers }
  | { readonly ok: false; readonly failure: RequestFailure };

export type StreamReply =
  | { readonly ok: true; readonly response: Response }
  | { readonly ok: false; readonly failure: RequestFailure };

/** An ordinary request gives up after this long: the server answers in milliseconds when it is well. */
const requestTimeoutMs = 30_000;

/** The requests whose answer a command reads name the answer's shape: other JSON is `not a Recourse answer` (exit 3). */
export const getJson = (target: ServerTarget, path: string, shape: AnswerShape) =>
  sendJson(target, 'GET', path, { shape });
export const deleteJson = (
  target: ServerTarget,
  path: string,
  headers: Readonly<Record<string, string>> = {},
) => sendJson(target, 'DELETE', path, { headers });
export const postJson = (target: ServerTarget, path: string, body: unknown, shape: AnswerShape) =>
  sendJson(target, 'POST', path, { body, shape });
export const putJson = (
  target: ServerTarget,
  path: string,
  body: unknown,
  shape: AnswerShape,
  headers: Readonly<Record<string, string>> = {},
) => sendJson(target, 'PUT', path, { body, headers, shape });

async function sendJson(
  target: ServerTarget,
  method: string,
  path: string,
  options: {
    readonly body?: unknown;
    readonly headers?: Readonly<Record<string, string>>;
    readonly shape?: AnswerShape;
  } = {},
): Promise<JsonReply> {
  const sent = await send(target, method, path, {
    headers: {
      accept: 'application/json',
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(requestTimeoutMs),
  });
  if (!sent.ok) return sent;
  const response = sent.response;
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    return {
      ok: false,
      failure: failure(target, 'unreachable', null, `the answer broke off (${networkReason(error)})`, null),
    };
  }
  let body: unknown = null;
  try {
    if (text !== '') body = JSON.parse(text) as unknown;
  } catch {
    const why = `did not answer with JSON (${response.status}): is it a Recourse server?`;
    return { ok: false, failure: failure(target, 'unreachable', response.status, why, null) };
  }
  const problem = response.ok && options.shape !== undefined ? shapeProblem(body, options.shape) : null;
  if (problem !== null) {
    const why = `the answer to ${method} ${path} (${response.status}) is not a Recourse answer (${problem}): is it a Recourse server?`;
    return { ok: false, failure: failure(target, 'unreachable', response.status, why, null) };
  }
  if (response.ok) return { ok: true, status: response.status, body, headers: response.headers };
  return { ok: false, failure: failureOfStatus(target, response.status, body) };
}

/**
 * A streaming GET (`/v1/events`): the open response on 2xx, the same failures as the JSON requests otherwise. Only
 * the wait for the answer is bounded (as a request's is): the stream it opens lasts as long as `signal` allows.
 */
export async function openStream(
  target: ServerTarget,
  path: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<StreamReply> {
  const opening = new AbortController();
  const timer = setTimeout(
    () => opening.abort(new DOMException('no answer', 'TimeoutError')),
    requestTimeoutMs,
  );
  const stop = () => opening.abort(signal.reason);
  signal.addEventListener('abort', stop, { once: true });
  const sent = await send(target, 'GET', path, { headers, signal: opening.signal });
  clearTimeout(timer);
  if (sent.ok && sent.response.ok && !isEventStream(sent.response)) {
    opening.abort();
    const type = sent.response.headers.get('content-type') ?? 'none';
    const why = `did not answer with an event stream (${sent.response.status}, content-type ${type}): is it a Recourse server?`;
    return { ok: false, failure: failure(target, 'unreachable', sent.response.status, why, null) };
  }
  if (!sent.ok || sent.response.ok) return sent;
  const text = await sent.response.text().catch(() => '');
  let body: unknown = null;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    // Not JSON: the status alone says what went wrong.
  }
  return { ok: false, failure: failureOfStatus(target, sent.response.status, body) };
}

function isEventStream(response: Response): boolean {
  return /^text\/event-stream\s*(;|$)/i.test(response.headers.get('content-type') ?? '');
}

async function send(
  target: ServerTarget,
  method: string,
  path: string,
  init: RequestInit,
): Promise<StreamReply> {
  const headers = new Headers(init.headers);
  if (target.token !== null) headers.set('authorization', `Bearer ${target.token}`);
  try {
    return { ok: true, response: await fetch(`${target.url}${path}`, { ...init, method, headers }) };
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    const why = timedOut ? `no answer within ${requestTimeoutMs / 1000} s` : networkReason(error);
    const message = `cannot reach the server (${why}): is \`recourse serve\` running there?`;
    return { ok: false, failure: failure(target, 'unreachable', null, message, null) };
  }
}

function failureOfStatus(target: ServerTarget, status: number, body: unknown): RequestFailure {
  const error = errorOf(body);
  const issues = fieldIssuesOf(body, error?.message ?? '');
  const said =
    error === null
      ? `${status}`
      : `${status} ${error.code}: ${error.message}${issues === '' ? '' : `: ${issues}`}`;
  if (status === 401) {
    const hint = target.token === null ? 'no token was given' : 'the token was refused';
    return failure(target, 'auth', status, `${hint} (${said}): set --token or RECOURSE_TOKEN`, body);
  }
  if (status === 403) return failure(target, 'auth', status, `not allowed (${said})`, body);
  if (status >= 400 && status < 500) return failure(target, 'refused', status, said, body);
  return failure(target, 'unreachable', status, `the server failed (${said})`, body);
}

const exitCodes = { unreachable: 3, auth: 4, refused: 1 } as const satisfies Record<
  RequestFailure['kind'],
  RequestFailure['exitCode']
>;

function failure(
  target: ServerTarget,
  kind: RequestFailure['kind'],
  status: number | null,
  message: string,
  body: unknown,
): RequestFailure {
  const code = errorOf(body)?.code ?? null;
  return { kind, status, code, message: `${target.url}: ${message}`, body, exitCode: exitCodes[kind] };
}

/** `{"error": {"code", "message"}}`, the server's error document, or null. */
export function errorOf(body: unknown): { readonly code: string; readonly message: string } | null {
  if (typeof body !== 'object' || body === null || !('error' in body)) return null;
  const error = body.error;
  if (typeof error !== 'object' || error === null) return null;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : 'error';
  const message = 'message' in error && typeof error.message === 'string' ? error.message : '';
  return { code, message };
}

/**
 * The field issues a 422 lists beside its error (`errors: [{path, message}]`) as `/path: problem; ...`, each one the
 * message does not already say: "2 invalid fields" then says which and why.
 */
function fieldIssuesOf(body: unknown, message: string): string {
  if (typeof body !== 'object' || body === null || !('errors' in body) || !Array.isArray(body.errors))
    return '';
  return (body.errors as unknown[])
    .filter((issue): issue is Record<string, unknown> => typeof issue === 'object' && issue !== null)
    .map(
      (issue) =>
        `${typeof issue.path === 'string' && issue.path !== '' ? issue.path : '/'}: ${String(issue.message)}`,
    )
    .filter((issue) => !message.includes(issue))
    .slice(0, 20)
    .join('; ');
}

/** fetch says "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND) is on its cause. */
function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string') {
    return cause.code;
  }
  return error instanceof Error
    ? error.cause instanceof Error
      ? error.cause.message
      : error.message
    : String(error);
}

/** Ends the command: the failure as one line on standard error (`recourse <command>: ...`), then its exit code. */
export function exitWithFailure(command: string, failure: RequestFailure): never {
  // What a server says is redacted before it is printed: a proxy or a misconfigured server may echo a credential.
  process.stderr.write(`recourse ${command}: ${escapeControlCharacters(redactSecrets(failure.message))}\n`);
  process.exit(failure.exitCode);
}
