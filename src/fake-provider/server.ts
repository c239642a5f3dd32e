import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { redactSecrets } from '../core/index.js';
import type { AnswerContent, ApiName, Frame, RequestContext, StreamParts } from './dialect.js';
import { countBody, modelsBody, routeOf, type Route } from './routes.js';
import { StepCursor, type Script, type Step } from './script.js';

/** One request as the log shows it: never a header, the query's `key` redacted, the line redacted again. */
export interface RequestLogLine {
  readonly time: string;
  readonly method: string;
  readonly path: string;
  readonly api: string | null;
  /** Which part of the script served it (`steps/0`, `then`), or null when it consumed nothing. */
  readonly step: string | null;
  /** `answer`, `answer+tool_call`, a fault name, `models`, `count_tokens`, `probe` or `not_found`. */
  readonly served: string;
  readonly stream: boolean;
  readonly status: number | null;
}

export interface FakeProviderOptions {
  readonly script: Script;
  /** 0 picks a free port. */
  readonly port: number;
  readonly log: (line: RequestLogLine) => void;
  /** How long a `hang` holds a connection before closing it: ten minutes unless a test says otherwise. */
  readonly hangMs?: number;
}

export interface RunningFakeProvider {
  readonly port: number;
  readonly url: string;
  /** Stops listening and drops every open connection (a hung one too). */
  close(): Promise<void>;
}

const defaultHangMs = 10 * 60 * 1000;
/** Agents send whole conversations; a body past this is not read further. */
const maxBodyBytes = 32 * 1024 * 1024;

/** A partial answer for `cut_after_text`, and the tool call `cut_after_tool_call` sends before the cut. */
const cutText = 'Here is the first part of the answer, and then';
const cutToolCall = { name: 'read_file', arguments: { path: 'README.md' } };

/** Starts the fake provider on 127.0.0.1 only: it serves scripted answers and faults to local clients. */
export async function startFakeProvider(options: FakeProviderOptions): Promise<RunningFakeProvider> {
  const cursor = new StepCursor(options.script);
  let serial = 0;
  const server: Server = createServer((req, res) => {
    serial += 1;
    void serve(req, res, { cursor, serial, log: options.log, hangMs: options.hangMs ?? defaultHangMs }).catch(
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface ServeContext {
  readonly cursor: StepCursor;
  readonly serial: number;
  readonly log: (line: RequestLogLine) => void;
  readonly hangMs: number;
}

async function serve(req: IncomingMessage, res: ServerResponse, context: ServeContext): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const method = req.method ?? 'GET';
  const { bytes: body, tooLarge } = await readBody(req);
  const route = routeOf(method, url.pathname, url.searchParams, req.headers);
  const log = (entry: Omit<RequestLogLine, 'time' | 'method' | 'path'>) =>
    context.log({ time: new Date().toISOString(), method, path: loggedPath(url), ...entry });
  if (route === null) {
    sendJson(
      res,
      404,
      {},
      { error: { type: 'not_found', message: `no endpoint here for ${method} ${loggedPath(url)}` } },
    );
    log({ api: null, step: null, served: 'not_found', stream: false, status: 404 });
    return;
  }
  if (route.kind !== 'generate') {
    const answer = answerWithoutStep(route, body);
    sendJson(res, 200, {}, answer.body, method === 'HEAD');
    log({ api: answer.api, step: null, served: answer.served, stream: false, status: 200 });
    return;
  }
  const parsed = tooLarge ? null : parseJson(body);
  if (parsed === null) {
    const refusal = unreadableRequest(route.dialect.api, tooLarge);
    sendJson(res, refusal.status, {}, refusal.body);
    log({
      api: route.dialect.api,
      step: null,
      served: tooLarge ? 'too_large' : 'malformed_request',
      stream: false,
      status: refusal.status,
    });
    return;
  }
  const model = route.pathModel ?? (typeof parsed.model === 'string' ? parsed.model : 'fake-model');
  const stream = route.geminiStream !== null || parsed.stream === true;
  const request: RequestContext = {
    model,
    inputTokens: Math.max(1, Math.ceil(body.length / 4)),
    serial: context.serial,
    nowMs: Date.now(),
  };
  const { step, from } = context.cursor.next();
  const status = perform(step, route, request, stream, res, context.hangMs);
  log({ api: route.dialect.api, step: from, served: servedName(step), stream, status });
}

/** Serves one step; returns the HTTP status sent, or null when none was (a hang). */
function perform(
  step: Step,
  route: Extract<Route, { kind: 'generate' }>,
  request: RequestContext,
  stream: boolean,
  res: ServerResponse,
  hangMs: number,
): number | null {
  const dialect = route.dialect;
  if (step.kind === 'answer') {
    const content = { text: step.text, toolCall: step.toolCall };
    if (stream) sendStream(res, route, dialect.stream(content, request), 'complete');
    else sendJson(res, 200, {}, dialect.body(content, request));
    return 200;
  }
  switch (step.fault) {
    case 'hang':
      hang(res, hangMs);
      return null;
    case 'cut_after_text':
    case 'cut_after_tool_call': {
      const content: AnswerContent =
        step.fault === 'cut_after_text'
          ? { text: cutText, toolCall: null }
          : { text: '', toolCall: cutToolCall };
      if (stream) sendStream(res, route, dialect.stream(content, request), step.fault);
      else sendCutJson(res, dialect.body(content, request));
      return 200;
    }
    default: {
      const error = dialect.error(step.fault, request, step.retryAfterSeconds);
      sendJson(res, error.status, error.headers, error.body);
      return error.status;
    }
  }
}

function answerWithoutStep(route: Exclude<Route, { kind: 'generate' }>, body: Buffer) {
  switch (route.kind) {
    case 'count':
      return {
        api: route.api,
        served: 'count_tokens',
        body: countBody(route.api, Math.max(1, Math.ceil(body.length / 4))),
      };
    case 'models':
      return { api: route.api, served: 'models', body: modelsBody(route.api, route.id) };
    case 'probe':
      return { api: null, served: 'probe', body: { status: 'ok', service: 'recourse fake-provider' } };
  }
}

const servedName = (step: Step): string =>
  step.kind === 'fault' ? step.fault : step.toolCall === null ? 'answer' : 'answer+tool_call';

function sendJson(
  res: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: unknown,
  headOnly = false,
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(headOnly ? undefined : text);
}

/**
 * A whole answer announced with its full length, of which half is sent before the connection drops: a client
 * reading a non-streamed answer sees the body end early.
 */
function sendCutJson(res: ServerResponse, body: unknown): void {
  const text = Buffer.from(JSON.stringify(body));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': text.length });
  res.write(text.subarray(0, Math.floor(text.length / 2)), () => res.destroy());
}

/** Writes a streamed answer; a cut stops after the text or the tool call and drops the connection. */
function sendStream(
  res: ServerResponse,
  route: Extract<Route, { kind: 'generate' }>,
  parts: StreamParts,
  until: 'complete' | 'cut_after_text' | 'cut_after_tool_call',
): void {
  const array = route.geminiStream === 'array';
  res.writeHead(200, {
    'content-type': array ? 'application/json' : 'text/event-stream',
    'cache-control': 'no-cache',
  });
  const frames =
    until === 'complete'
      ? [...parts.head, ...parts.text, ...parts.tool, ...parts.tail]
      : until === 'cut_after_text'
        ? [...parts.head, ...parts.text]
        : [...parts.head, ...parts.text, ...parts.tool];
  // Gemini without `alt=sse` streams one JSON array, an element at a time; SSE frames end with a blank line
  // (Gemini's with CRLF, as its servers send them).
  const encoded = frames.map((frame, i) =>
    array ? `${i === 0 ? '[' : ',\r\n'}${JSON.stringify(frame.data)}` : sse(frame, route),
  );
  const text = encoded.join('');
  if (until === 'complete') {
    res.end(array ? `${text}]` : text);
    return;
  }
  // Flushed first, then the socket is destroyed: no terminating event, no end of the chunked body.
  res.write(text, () => res.destroy());
}

function sse(frame: Frame, route: Extract<Route, { kind: 'generate' }>): string {
  const data = frame.raw === true ? String(frame.data) : JSON.stringify(frame.data);
  const end = route.dialect.api === 'gemini' ? '\r\n\r\n' : '\n\n';
  return `${frame.event === undefined ? '' : `event: ${frame.event}\n`}data: ${data}${end}`;
}

/** Holds the request open without answering until the client goes away or `hangMs` pass, then closes it. */
function hang(res: ServerResponse, hangMs: number): void {
  const timer = setTimeout(() => res.destroy(), hangMs);
  res.on('close', () => clearTimeout(timer));
}

interface RequestBody {
  readonly bytes: Buffer;
  /** More than `maxBodyBytes` arrived: the rest was read and dropped, never kept. */
  readonly tooLarge: boolean;
}

async function readBody(req: IncomingMessage): Promise<RequestBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size <= maxBodyBytes) chunks.push(buffer);
  }
  return { bytes: Buffer.concat(chunks), tooLarge: size > maxBodyBytes };
}

/**
 * A generation request the fake cannot read (not a JSON object, or past the size limit) is answered as the real
 * API answers a bad request, in its own shape, and consumes no step: a script counts what the agent asked for.
 */
function unreadableRequest(api: ApiName, tooLarge: boolean): { status: number; body: unknown } {
  const status = tooLarge ? 413 : 400;
  const message = tooLarge
    ? `request body is larger than ${maxBodyBytes} bytes`
    : 'the request body is not a JSON object';
  switch (api) {
    case 'anthropic-messages':
      return {
        status,
        body: {
          type: 'error',
          error: { type: tooLarge ? 'request_too_large' : 'invalid_request_error', message },
        },
      };
    case 'openai-chat':
    case 'openai-responses':
      return { status, body: { error: { message, type: 'invalid_request_error', param: null, code: null } } };
    case 'gemini':
      return { status, body: { error: { code: status, message, status: 'INVALID_ARGUMENT' } } };
  }
}

function parseJson(body: Buffer): Record<string, unknown> | null {
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The path with its query, the `key` parameter (Gemini's API key) replaced and any other secret redacted. */
function loggedPath(url: URL): string {
  const query = new URLSearchParams(url.searchParams);
  if (query.has('key')) query.set('key', 'REDACTED');
  const search = query.toString();
  return redactSecrets(`${url.pathname}${search === '' ? '' : `?${search}`}`);
}
