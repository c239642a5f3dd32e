import { credentialIdMessage, idProblem } from '../core/index.js';
import { redactSecrets } from '../core/sanitize/redact-secrets.js';
import { escapeControlCharacters } from '../core/text/escape-controls.js';
import { defaultServer, serverPortProblem, serverUrlSecretProblem, tokenProblem } from './server-flags.js';
import { shapeProblem, type AnswerShape } from './answer-shape.js';

/** A server to talk to: its base URL and the bearer token, if any (never printed). */
export interface ServerConnection {
  readonly baseUrl: string;
  readonly token: string | null;
}

/**
 * A request that did not get a usable answer, with the exit code the command ends with (docs/cli.md's table): 2 a
 * usage error (a bad `--server`, a plan id that cannot be one), 3 the server could not serve it (not reachable, no
 * answer in 30 s, a 5xx, an answer that is not JSON), 4 the token was refused (401, 403), 1 any other refusal
 * (4xx, including a 409 refusal of a plan action). `message` is one line, safe to print; a failure of a request
 * starts with the server's URL.
 */
export class ServerClientError extends Error {
  constructor(
    readonly exitCode: 1 | 2 | 3 | 4,
    message: string,
  ) {
    super(message);
    this.name = 'ServerClientError';
  }
}

/** The connection of `--server`/`--token`; a server that is not an http(s) URL is exit 2. */
export function serverConnection(flags: {
  readonly server?: string;
  readonly token?: string;
}): ServerConnection {
  const raw = flags.server ?? defaultServer;
  let url: URL | null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ServerClientError(
      2,
      `--server must be an http:// or https:// URL (got ${JSON.stringify(raw)})`,
    );
  }
  const secret = serverUrlSecretProblem(url) ?? serverPortProblem(url);
  if (secret !== null) throw new ServerClientError(2, secret);
  const token = flags.token === undefined || flags.token === '' ? null : flags.token;
  const unusable = token === null ? null : tokenProblem(token);
  if (unusable !== null) throw new ServerClientError(2, unusable);
  return { baseUrl: url.href.replace(/\/+$/, ''), token };
}

/** How long one request may take before the server counts as unreachable. */
const requestTimeoutMs = 30_000;

/**
 * Each request names the shape of the answer it reads (or a function of the answer's top-level fields that names
 * it, when the shape depends on a `status`): other JSON is `not a Recourse answer` (exit 3).
 */
export type ExpectedShape = AnswerShape | ((answer: Readonly<Record<string, unknown>>) => AnswerShape);

export function getJson<T>(server: ServerConnection, path: string, shape: ExpectedShape): Promise<T> {
  return request<T>(server, 'GET', path, shape);
}

export function postJson<T>(
  server: ServerConnection,
  path: string,
  body: unknown,
  shape: ExpectedShape,
): Promise<T> {
  return request<T>(server, 'POST', path, shape, body);
}

export function putJson<T>(
  server: ServerConnection,
  path: string,
  body: unknown,
  shape: ExpectedShape,
  headers: Readonly<Record<string, string>> = {},
): Promise<T> {
  return request<T>(server, 'PUT', path, shape, body, headers);
}

async function request<T>(
  server: ServerConnection,
  method: string,
  path: string,
  shape: ExpectedShape,
  body?: unknown,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<T> {
  const url = `${server.baseUrl}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(server.token === null ? {} : { authorization: `Bearer ${server.token}` }),
        ...extraHeaders,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
  } catch (error) {
    throw new ServerClientError(
      3,
      `${server.baseUrl}: cannot reach the Recourse server (${reasonOf(error)}); start it with \`recourse serve\` or pass --server`,
    );
  }
  const at = server.baseUrl;
  const text = await response.text().catch(() => '');
  if (response.status === 401 || response.status === 403) {
    throw new ServerClientError(
      4,
      `${at}: the server refused the request (${response.status}${detailOf(text)}); pass --token or set RECOURSE_TOKEN`,
    );
  }
  if (response.status >= 500) {
    throw new ServerClientError(3, `${at}: the server failed (${response.status}${detailOf(text)})`);
  }
  let answer: unknown;
  try {
    // A refusal without a body is still a refusal (its status says it); an answer must be JSON.
    answer = text === '' && !response.ok ? null : (JSON.parse(text) as unknown);
  } catch {
    throw new ServerClientError(
      3,
      `${at}: the answer to ${method} ${path} (${response.status}) is not JSON: is it a Recourse server?`,
    );
  }
  if (!response.ok)
    throw new ServerClientError(1, `${at}: the server answered ${response.status}${detailOf(text)}`);
  const problem =
    typeof shape === 'function'
      ? (shapeProblem(answer, {}) ?? shapeProblem(answer, shape(answer as Record<string, unknown>)))
      : shapeProblem(answer, shape);
  if (problem !== null) {
    throw new ServerClientError(
      3,
      `${at}: the answer to ${method} ${path} (${response.status}) is not a Recourse answer (${problem}): is it a Recourse server?`,
    );
  }
  return answer as T;
}

/** A plan id the server could hold (`idProblem`), or a usage error (exit 2) before any request is made. */
export function checkedPlanId(planId: string): string {
  const problem = idProblem(planId);
  if (problem === null) return planId;
  throw new ServerClientError(
    2,
    problem === 'credential'
      ? `PLAN_ID ${credentialIdMessage}`
      : `PLAN_ID must be 1 to 128 letters, digits and . _ : @ / -, starting with a letter or digit (got ${escapeControlCharacters(JSON.stringify(planId))})`,
  );
}

/** Why fetch failed, in a few words: the system error code when there is one (ECONNREFUSED), else its message. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (error instanceof Error && error.name === 'TimeoutError')
    return `no answer in ${requestTimeoutMs / 1000} s`;
  return escapeControlCharacters(error instanceof Error ? error.message : String(error));
}

/**
 * `: <code> (<reason>): <message>` from an error body `{"error": {code, reason?, message, issues?}, errors?}`, with
 * the field issues (`/path: problem; ...`) the message does not already say appended; the raw text, cut, when the body has another shape. One line, credentials redacted, controls escaped.
 */
function detailOf(text: string): string {
  // What a server says is redacted before it is printed: a proxy or a misconfigured server may echo a credential.
  const line = escapeControlCharacters(redactSecrets(errorText(text)).replace(/\s+/g, ' ')).slice(0, 500);
  return line === '' ? '' : `: ${line}`;
}

const objectOf = (value: unknown): Record<string, unknown> | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;

function errorText(text: string): string {
  let body: Record<string, unknown> | null;
  try {
    body = objectOf(JSON.parse(text));
  } catch {
    return text.trim();
  }
  const error = objectOf(body?.error) ?? body;
  if (error === null) return text.trim();
  const head = [error.code, typeof error.reason === 'string' ? `(${error.reason})` : undefined]
    .filter((p) => typeof p === 'string')
    .join(' ');
  const message = typeof error.message === 'string' ? error.message : '';
  // A 422 lists its field issues beside the error (`errors`, as the server sends them; `issues` inside it is read
  // too): each one the message does not already say is added, so "2 invalid fields" says which and why.
  const listed = Array.isArray(body?.errors) ? body.errors : Array.isArray(error.issues) ? error.issues : [];
  const issues = listed
    .map((i) => objectOf(i))
    .filter((i) => i !== null)
    .map((i) => `${typeof i.path === 'string' && i.path !== '' ? i.path : '/'}: ${String(i.message)}`)
    .filter((issue) => !message.includes(issue))
    .join('; ');
  return [head, message, issues].filter((p) => p !== '').join(': ');
}

/**
 * Runs a client command: its exit code becomes the process's; a `ServerClientError` is one line on standard error
 * (`recourse <name>: <message>`) and its exit code.
 */
export async function runClientCommand(name: string, work: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await work();
  } catch (error) {
    if (!(error instanceof ServerClientError)) throw error;
    process.stderr.write(`recourse ${name}: ${error.message}\n`);
    process.exitCode = error.exitCode;
  }
}
