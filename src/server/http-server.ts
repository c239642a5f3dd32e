import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import {
  cookieValue,
  isSameOrigin,
  reachedOverHttps,
  roleMayAccess,
  sessionCookieName,
  sessionCookie,
  sessionExpiryMs,
  sessionFingerprint,
  verifySession,
  type Access,
  type Role,
  type TokenTable,
} from './auth.js';
import type { ServerContext } from './context.js';
import type { Endpoint } from './endpoint.js';
import { adapterEndpoints } from './endpoints/adapter-endpoints.js';
import { eventEndpoints } from './endpoints/event-endpoints.js';
import { metaEndpoints } from './endpoints/meta-endpoints.js';
import { profileEndpoints } from './endpoints/profile-endpoints.js';
import { routeEndpoints } from './endpoints/route-endpoints.js';
import { sessionEndpoints } from './endpoints/session-endpoints.js';
import { signInEndpoints } from './endpoints/sign-in-endpoints.js';
import {
  defaultTokenThrottle,
  refuseWhileThrottled,
  throttledAddress,
  TokenThrottle,
  type TokenThrottleLimits,
} from './token-throttle.js';
import { errorBody, HttpError, invalid, issuesOfZod, quotedPath } from './http-errors.js';
import { openApiDocument } from './openapi.js';
import { installRequestEdges } from './request-edges.js';
import { z, type ZodType } from 'zod';
import { httpErrorOf } from './outcome-reply.js';
import { landingPage } from './landing-page.js';
import {
  assetOf,
  defaultWebRoot,
  htmlSecurityHeaders,
  loadWebAssets,
  uiPaths,
  type WebAssets,
} from './web-assets.js';

export const bodyLimitBytes = 1024 * 1024;

/** Route ids are at most 128 characters; `/`, `:` and `@` may arrive percent-encoded (3 characters each). */
const maxPathParamLength = 512;

/** The query of an endpoint that declares none: an unknown parameter is an error, as in a body. */
const noQuery = z.strictObject({});

/**
 * The body of an endpoint that declares none: nothing, or `{}`. A field there is an error rather than dropped: a
 * `DELETE /v1/profiles/{id}` sent with `{"version": 3}` (the fence a PUT takes in its body) would otherwise delete
 * whatever version is stored now.
 */
const noBody = z.strictObject({}).optional();

/**
 * How many event streams may be open at once: in all, for one role, and for one token (so one holder of a token,
 * a runaway script or a browser with hundreds of tabs, cannot take every place of the people who share its role).
 */
export interface StreamLimits {
  readonly total: number;
  readonly perRole: number;
  /** 64 when not given. */
  readonly perToken?: number;
}

export const defaultStreamLimits = { total: 512, perRole: 256, perToken: 64 } as const satisfies StreamLimits;

/** An open stream: the role it was opened with, and the token (its keyed fingerprint, never the token itself). */
interface OpenStream {
  readonly role: Role | null;
  readonly token: string | null;
}

/** What a refused stream is told to wait before it tries again. */
const streamRetryAfterSeconds = 30;

export interface HttpServerOptions {
  readonly context: ServerContext;
  readonly tokens: TokenTable;
  /** Signs the browser's session cookie; every node with the same key accepts it. */
  readonly cookieKey: Buffer;
  readonly version: string;
  readonly logger?: FastifyBaseLogger;
  /** More endpoints (plans, metrics) registered and documented like the built-in ones. */
  readonly endpoints?: readonly Endpoint[];
  /**
   * The built web UI's folder (`index.html`, `assets/`); null serves none (the plain landing page). By default
   * `dist/web/` beside the running module (`defaultWebRoot`).
   */
  readonly webRoot?: string | null;
  /**
   * Bounds on open event streams: in all, and per role (512 and 256 by default). A stream over either is refused
   * with `503 too_many_streams` and `Retry-After`, before it holds anything.
   */
  readonly streamLimits?: StreamLimits;
  /**
   * Refused tokens one client address may send in a window (30 a minute by default) before every token it sends
   * is refused with `429 too_many_refused_tokens` and `Retry-After` until the window lets it try again.
   */
  readonly tokenThrottle?: TokenThrottleLimits;
  /** Called after every answer with the route template (never the concrete URL), for metrics. */
  readonly onResponse?: (route: string, method: string, status: number, seconds: number) => void;
}

/**
 * The Fastify application: every endpoint declared as data (`Endpoint`), authorized by role, its body and query
 * validated by its zod schema, its refusals and errors answered by one table; no stack trace and no 5xx for a
 * client's mistake. It holds no state of its own: the context does.
 */
export function buildHttpServer(options: HttpServerOptions): FastifyInstance {
  const { context } = options;
  // A monotonic clock: the wall clock stepped back (NTP) would hold an address for the step, stepped forward free it.
  const throttle = new TokenThrottle(options.tokenThrottle ?? defaultTokenThrottle, () => performance.now());
  const app: FastifyInstance = Fastify({
    bodyLimit: bodyLimitBytes,
    ...(options.logger === undefined ? { logger: false } : { loggerInstance: options.logger }),
    // Requests are logged by the onResponse hook below, with the route template: a URL may carry a token.
    logController: new LogController({ disableRequestLogging: true }),
    // Refused by `installRequestEdges` instead: Fastify's own 503 body is not the shape every error has.
    return503OnClosing: false,
    routerOptions: { maxParamLength: maxPathParamLength },
    // Every refusal has the same shape, the router's and Node's too.
    frameworkErrors: (error, _request, reply) => routerErrorReply(error, reply as FastifyReply),
    clientErrorHandler: clientErrorReply,
  });
  const startClosing = installRequestEdges(app);
  const endpoints = [
    ...metaEndpoints(context),
    ...signInEndpoints(options.tokens, options.cookieKey, throttle, () => Date.now()),
    ...profileEndpoints(context),
    ...routeEndpoints(context),
    ...adapterEndpoints(context),
    ...sessionEndpoints(context),
    ...eventEndpoints(context),
    ...(options.endpoints ?? []),
  ];
  // Every open stream, its role and its token, so each new one can be counted against the limits.
  const streams = new Map<FastifyReply, OpenStream>();
  const limits = options.streamLimits ?? defaultStreamLimits;
  const roles = new WeakMap<FastifyRequest, Role | null>();
  for (const e of endpoints) {
    const bodyOptional = e.body === undefined || e.body.safeParse(undefined).success;
    app.route({
      method: e.method,
      url: e.url,
      // Before the body is read: a caller without a valid credential, or without the role, gets 401 or 403
      // whatever it sent, and the server parses no body for it.
      onRequest: (request, _reply, done) => {
        try {
          roles.set(request, authorize(request, e.access, options, throttle));
          // An empty body is no body, whatever its type says (`curl -d ''`, a client that always sends the JSON
          // type): an endpoint that needs none is not refused for it (415, or 400 for empty JSON).
          if (bodyOptional && isEmptyBody(request.headers)) delete request.headers['content-type'];
          done();
        } catch (error) {
          done(error as Error);
        }
      },
      ...(e.beforeBody === undefined
        ? {}
        : {
            preParsing: async (request: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
              await e.beforeBody!(request.params as Record<string, string>);
              return payload;
            },
          }),
      handler: async (request, reply) => {
        const role = roles.get(request) ?? null;
        let body: unknown;
        try {
          if (e.body === undefined) parse(noBody, request.body);
          else body = parse(e.body, request.body);
        } catch (error) {
          e.onInvalidBody?.(request.body);
          throw error;
        }
        const query = parse(e.query ?? noQuery, request.query ?? {});
        if (e.streams === true) {
          const opened = { role, token: callerToken(request, options) };
          const refusal = streamRefusal(streams, opened, limits);
          if (refusal !== null) {
            return reply
              .code(503)
              .header('retry-after', String(streamRetryAfterSeconds))
              .send(errorBody('too_many_streams', refusal));
          }
          reply.hijack();
          streams.set(reply, opened);
          reply.raw.on('close', () => streams.delete(reply));
        }
        const result = await e.handler({
          params: request.params as Record<string, string>,
          body,
          query,
          role,
          credentialExpiresAtMs: credentialExpiry(request),
          headers: request.headers,
          request,
          reply,
        });
        if (result === null) return reply;
        reply.code(result.status);
        if (result.headers !== undefined) reply.headers(result.headers);
        return result.status === 204 ? reply.send() : reply.send(result.body);
      },
    });
  }
  const document = openApiDocument(endpoints, options.version);
  app.get('/openapi.json', () => document);
  const web = loadWebAssets(options.webRoot === undefined ? defaultWebRoot() : options.webRoot);
  // Metrics and logs name every page of the UI `ui`, never the path a browser asked for.
  const ui = { config: { metricRoute: 'ui' } };
  app.get('/', (request, reply) => browserEntry(request, reply, options, web, throttle));
  for (const path of [...uiPaths.flatMap((p) => [p, `${p}/*`]), '/sign-in']) {
    app.get(path, ui, (request, reply) => page(request, reply, web));
  }
  app.get('/assets/*', ui, (request, reply) => {
    const asset =
      web === null ? null : assetOf(web, request.url, (request.params as Record<string, string>)['*'] ?? '');
    if (asset === null) return reply.callNotFound();
    return reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .type(asset.type)
      .send(asset.body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody('not_found', `no endpoint ${request.method} ${quotedPath(request.url)}`)),
  );
  app.setErrorHandler((error, request, reply) => {
    const known = httpErrorOf(error) ?? clientError(error);
    if (known !== null) {
      // A 401 names the scheme that would be accepted (RFC 9110 section 11.6.1: it must carry a challenge).
      if (known.status === 401) void reply.header('www-authenticate', bearerChallenge);
      return reply
        .code(known.status)
        .headers(known.headers)
        .send(errorBody(known.code, known.message, known.extra));
    }
    request.log.error(
      { err: { message: (error as Error).message, name: (error as Error).name } },
      'internal error',
    );
    return reply.code(500).send(errorBody('internal', 'the server failed; the log has the details'));
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route =
      (request.routeOptions.config as { metricRoute?: string }).metricRoute ??
      request.routeOptions.url ??
      'unmatched';
    const seconds = reply.elapsedTime / 1000;
    options.onResponse?.(route, request.method, reply.statusCode, seconds);
    request.log.info(
      { method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
    done();
  });
  // Event streams never end on their own: end them so closing waits only for ordinary requests.
  app.addHook('preClose', (done) => {
    startClosing();
    for (const reply of streams.keys()) reply.raw.end();
    done();
  });
  return app;
}

/** Why one more event stream is refused (a limit is reached), or null when it may open. */
function streamRefusal(
  streams: ReadonlyMap<FastifyReply, OpenStream>,
  opened: OpenStream,
  limits: StreamLimits,
): string | null {
  if (streams.size >= limits.total) {
    return `the server has ${limits.total} event streams open, its limit: try again in ${streamRetryAfterSeconds} s`;
  }
  let ofRole = 0;
  let ofToken = 0;
  for (const s of streams.values()) {
    if (s.role === opened.role) ofRole += 1;
    if (s.token !== null && s.token === opened.token) ofToken += 1;
  }
  if (ofRole >= limits.perRole) {
    return `the ${opened.role ?? 'public'} role has ${limits.perRole} event streams open, its limit: close one or try again in ${streamRetryAfterSeconds} s`;
  }
  const perToken = limits.perToken ?? defaultStreamLimits.perToken;
  if (ofToken >= perToken) {
    return `this token has ${perToken} event streams open, its limit: close one or try again in ${streamRetryAfterSeconds} s`;
  }
  return null;
}

/**
 * Which configured token an authorized request came with, as the keyed fingerprint a session cookie carries: a
 * bearer token and the cookie traded for it name the same token. Null when there is none (a public request).
 */
function callerToken(request: FastifyRequest, options: HttpServerOptions): string | null {
  const bearer = bearerToken(request.headers.authorization ?? '');
  if (bearer !== null) return options.tokens.session(options.cookieKey, bearer)?.fingerprint ?? null;
  const cookie = cookieValue(request.headers.cookie, sessionCookieName);
  return cookie === null ? null : sessionFingerprint(cookie);
}

/**
 * What the plain landing page says for the `?error=` a refused `/?token=` was sent back with. A Map, not an object:
 * `?error=constructor` (or `toString`, `__proto__`) must name no problem, not an inherited member.
 */
const signInProblems: ReadonlyMap<string, string> = new Map([
  ['invalid_token', 'That token is not valid.'],
  [
    'too_many_refused_tokens',
    'Too many tokens were refused from this address: wait a minute, then try again.',
  ],
]);

/** The challenge of every 401 (RFC 6750 section 3); a token that was sent and refused adds `error="invalid_token"`. */
const bearerChallenge = 'Bearer realm="recourse"';

/**
 * When the credential of an authorized request stops being accepted: a session cookie's expiry; null for a bearer
 * token (it lasts while it is configured) or a public request.
 */
function credentialExpiry(request: FastifyRequest): number | null {
  if (request.headers.authorization !== undefined) return null;
  const cookie = cookieValue(request.headers.cookie, sessionCookieName);
  return cookie === null ? null : sessionExpiryMs(cookie);
}

/** The token of an `Authorization: Bearer TOKEN` header, or null. */
function bearerToken(header: string): string | null {
  // The scheme is case-insensitive (RFC 9110 section 11.1): `bearer`, `BEARER` are the same; one or more spaces
  // may follow it (`"Bearer" 1*SP b64token`, RFC 6750 section 2.1).
  return /^Bearer +([\x21-\x7e]{1,512})$/i.exec(header)?.[1] ?? null;
}

/** The caller's role, or an error: 401 without a valid credential, 403 when the role may not do this. */
function authorize(
  request: FastifyRequest,
  access: Access,
  options: HttpServerOptions,
  throttle: TokenThrottle,
): Role | null {
  if (access === 'public') return null;
  const header = request.headers.authorization;
  let role: Role | null;
  if (header !== undefined) {
    refuseWhileThrottled(throttle, throttledAddress(request.ip, request.headers));
    const bearer = bearerToken(header);
    role = bearer === null ? null : options.tokens.lookup(bearer);
    if (role === null) {
      throttle.refused(throttledAddress(request.ip, request.headers));
      throw new HttpError(
        401,
        'unauthorized',
        'the bearer token is not valid',
        {},
        {
          'www-authenticate': `${bearerChallenge}, error="invalid_token"`,
        },
      );
    }
  } else {
    const cookie = cookieValue(request.headers.cookie, sessionCookieName);
    role = cookie === null ? null : verifySession(options.cookieKey, cookie, Date.now(), options.tokens);
    if (role === null) {
      throw new HttpError(
        401,
        'unauthorized',
        'send Authorization: Bearer TOKEN (or open /?token=TOKEN in a browser)',
      );
    }
    // A cookie rides along with any request a browser makes: a change must come from our own pages.
    if (
      request.method !== 'GET' &&
      request.method !== 'HEAD' &&
      !isSameOrigin(request.headers.origin, request.headers.host)
    ) {
      throw new HttpError(
        403,
        'cross_origin',
        'a change made with the session cookie needs a same-origin Origin header',
      );
    }
  }
  if (!roleMayAccess(role, access)) {
    throw new HttpError(403, 'forbidden', `the ${role} role may not do this (it needs ${access} access)`);
  }
  return role;
}

function isEmptyBody(headers: FastifyRequest['headers']): boolean {
  return headers['content-length'] === '0' && headers['transfer-encoding'] === undefined;
}

function parse<T>(schema: ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    const { issues, total } = issuesOfZod(result.error);
    throw invalid(issues, total);
  }
  return result.data;
}

/** Fastify's own refusals of a request (body too large, malformed JSON, an unsupported media type). */
function clientError(error: unknown): HttpError | null {
  const e = error as { statusCode?: number; code?: string; message?: string };
  const status = e.statusCode;
  if (status === undefined || status < 400 || status > 499) return null;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpError(413, 'body_too_large', `the body is larger than ${bodyLimitBytes} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpError(415, 'unsupported_media_type', 'send the body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HttpError(400, 'malformed_json', 'the body is empty but says it is JSON');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case undefined:
      return new HttpError(400, 'malformed_json', 'the body is not valid JSON');
    default:
      return new HttpError(status, 'bad_request', 'the request is malformed');
  }
}

/** The router's refusals (a path segment too long, bad percent-encoding), without echoing the URL. */
function routerErrorReply(error: FastifyError, reply: FastifyReply): void {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  void reply
    .code(tooLong ? 414 : 400)
    .send(
      tooLong
        ? errorBody('uri_too_long', `a path segment is longer than ${maxPathParamLength} characters`)
        : errorBody('bad_url', 'the path is not a valid URL (check its percent-encoding)'),
    );
}

/**
 * Node's refusals before a request exists (headers too large, a malformed request line, a timeout), in the same
 * shape as every error; the connection is closed as Node does.
 */
function clientErrorReply(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', 'the request line and headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'the request took too long to arrive']
        : [400, 'bad_request', 'the request is not valid HTTP'];
  const body = JSON.stringify(errorBody(code, message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * `/?token=TOKEN` trades a token for the session cookie (EventSource cannot send a header) and drops it from the
 * URL; an unknown token goes to the sign-in page, so it does not stay in the address bar either.
 */
function browserEntry(
  request: FastifyRequest,
  reply: FastifyReply,
  options: HttpServerOptions,
  web: WebAssets | null,
  throttle: TokenThrottle,
) {
  const token = (request.query as Record<string, unknown>).token;
  if (token !== undefined) {
    if (throttle.waitMs(throttledAddress(request.ip, request.headers)) > 0)
      return reply.code(303).header('location', '/sign-in?error=too_many_refused_tokens').send();
    // `?token=A&token=B` (an array) signs nobody in, and the tokens do not stay in the address bar either.
    const grant = typeof token === 'string' ? options.tokens.session(options.cookieKey, token) : null;
    if (grant === null) {
      throttle.refused(throttledAddress(request.ip, request.headers));
      return reply.code(303).header('location', '/sign-in?error=invalid_token').send();
    }
    return reply
      .code(303)
      .header('location', '/')
      .header(
        'set-cookie',
        sessionCookie(options.cookieKey, grant, Date.now(), reachedOverHttps(request.headers)),
      )
      .send();
  }
  return page(request, reply, web);
}

/** A page of the UI: its `index.html` (the client routes), else the plain landing page. */
function page(request: FastifyRequest, reply: FastifyReply, web: WebAssets | null) {
  void reply
    .headers(htmlSecurityHeaders)
    .header('cache-control', 'no-cache')
    .type('text/html; charset=utf-8');
  if (web !== null) return reply.send(web.index);
  const error = (request.query as Record<string, unknown>).error;
  return reply.send(landingPage(typeof error === 'string' ? (signInProblems.get(error) ?? null) : null));
}
