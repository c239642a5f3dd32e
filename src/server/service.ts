import type { TokenThrottleLimits } from './token-throttle.js';
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { openRecourse, PlanLifecycle, PlanService, type Recourse } from '../app/index.js';
import type { Dispatcher } from '../engine/index.js';
import { catalogueVersion, type DispatchIntent, type JsonValue } from '../core/index.js';
import { AckDispatcher, deliveryFailure, webhookDelivery, webhookUrlProblem } from './ack-dispatcher.js';
import { generatedToken, TokenTable, type Role } from './auth.js';
import type { ServerContext } from './context.js';
import type { Endpoint } from './endpoint.js';
import { EventHub } from './event-hub.js';
import { publishEngineEvent, publishTranscriptEvent } from './event-sources.js';
import { buildHttpServer, type StreamLimits } from './http-server.js';
import { ProfileCache } from './profile-cache.js';
import { Continuations } from './continuations.js';
import { createMetrics, createTracing } from './observability/index.js';
import { metricsEndpoint } from './endpoints/metrics-endpoint.js';
import { planEndpoints } from './endpoints/plan-endpoints.js';

export interface ServiceOptions {
  readonly port: number;
  readonly host: string;
  /** The SQLite database file (unless `databaseUrl` names a PostgreSQL database instead). */
  readonly database?: string;
  /** A PostgreSQL URL (`?schema=NAME` selects the schema); never logged with its password. */
  readonly databaseUrl?: string;
  /**
   * With `databaseUrl`: this server is one of several nodes serving the schema (`openRecourse`'s `nodes: 'shared'`);
   * its event stream carries every node's events (docs/operations.md).
   */
  readonly shared?: { readonly nodeId: string };
  readonly tokens: readonly { readonly role: Role; readonly token: string }[];
  /** Signs browser cookies (shared by every node); derived from the tokens when not given. */
  readonly secret?: string;
  /** Dispatch intents are POSTed here, signed with `webhookSecret`; without it they go out as events only. */
  readonly webhookUrl?: string;
  readonly webhookSecret?: string;
  readonly ackTimeoutMs?: number;
  /** Bounds on open event streams, in all and per role (`defaultStreamLimits`: 512 and 256). */
  readonly streamLimits?: StreamLimits;
  /** Refused tokens one client address may send a minute before it must wait (`HttpServerOptions.tokenThrottle`). */
  readonly tokenThrottle?: TokenThrottleLimits;
  /** How many events the log keeps for clients that resume (100,000 by default; also pruned after 24 h). */
  readonly eventsKept?: number;
  /** Runs attempts in process instead (the demo fleet, an embedding host). */
  readonly dispatcher?: (recourse: () => Recourse | null) => Dispatcher;
  readonly endpoints?: (recourse: Recourse, hub: EventHub) => readonly Endpoint[];
  readonly version: string;
  /** The built web UI's folder; null serves none; by default `dist/web/` beside the running module. */
  readonly webRoot?: string | null;
  readonly logLevel?: string;
  /** Where the log goes (standard error by default). */
  readonly logDestination?: NodeJS.WritableStream;
}

export interface RunningService {
  readonly url: string;
  readonly recourse: Recourse;
  readonly app: FastifyInstance;
  readonly hub: EventHub;
  /** Seed 004's plan error recovery, served under /v1/plans. */
  readonly plans: PlanService;
  readonly log: Logger;
  /** The admin token made for this run when none was configured (print it once, never log it). */
  readonly generatedAdminToken: string | null;
  /** Graceful shutdown: stop accepting, finish requests in flight, end streams, commit what is queued, close. */
  close(): Promise<void>;
}

const loopback = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * `recourse serve`: opens Recourse on its database through the composition root, streams its events through the
 * durable log, and serves the HTTP API. Without configured tokens it listens on loopback only and makes an
 * admin token for the run; binding another address without tokens is refused.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  let tokens = options.tokens;
  let generatedAdminToken: string | null = null;
  if (tokens.length === 0) {
    if (!loopback.has(options.host)) {
      throw new Error(
        `refusing to listen on ${options.host} without tokens: set RECOURSE_TOKENS or --tokens-file, or listen on 127.0.0.1`,
      );
    }
    generatedAdminToken = generatedToken();
    tokens = [{ role: 'admin', token: generatedAdminToken }];
  }
  const webhookProblem = options.webhookUrl === undefined ? null : webhookUrlProblem(options.webhookUrl);
  if (webhookProblem !== null) throw new Error(`the webhook URL ${webhookProblem}`);
  if (options.webhookUrl !== undefined && (options.webhookSecret ?? '').length < 16) {
    throw new Error('a webhook needs RECOURSE_WEBHOOK_SECRET (16 characters or more) to sign what it sends');
  }
  const table = new TokenTable(tokens);
  const cookieKey =
    options.secret === undefined
      ? table.derivedKey()
      : createHash('sha256').update(`recourse-cookie-secret/v1:${options.secret}`).digest();
  const log = pino(
    {
      level: options.logLevel ?? 'info',
      base: { service: 'recourse' },
      // Belt and braces: nothing logs these, and if something did, they would not be written.
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'token', 'evidence', 'envelope'],
        remove: true,
      },
    },
    options.logDestination ?? process.stderr,
  );
  let recourse: Recourse | null = null;
  const hub = new EventHub({
    ...(options.eventsKept === undefined ? {} : { keep: options.eventsKept }),
    now: () => recourse?.clock.now() ?? Date.now(),
    onError: (error) => log.error({ err: messageOf(error) }, 'event log append or read failed'),
  });
  const profiles = new ProfileCache(() => recourse?.store ?? null);
  const continuations = new Continuations();
  let ackDispatcher: AckDispatcher | null = null;
  let dispatcher: Dispatcher;
  if (options.dispatcher !== undefined) {
    dispatcher = options.dispatcher(() => recourse);
  } else {
    const post =
      options.webhookUrl === undefined
        ? null
        : webhookDelivery(options.webhookUrl, options.webhookSecret!, (intent) => continuations.of(intent));
    // Every failed delivery is logged (the route stops for a person as ambiguous_dispatch): never the body, the
    // payload, the secret or the URL.
    const webhook =
      post === null
        ? null
        : async (intent: DispatchIntent, payload: JsonValue | null) => {
            try {
              await post(intent, payload);
            } catch (error) {
              log.warn(
                { route: intent.routeId, dispatch: intent.id, reason: deliveryFailure(error) },
                'webhook delivery failed: the dispatch is uncertain',
              );
              throw error;
            }
          };
    ackDispatcher = new AckDispatcher({
      // Without a webhook, orchestrators follow `route.dispatch` events and acknowledge.
      deliver: webhook ?? (() => Promise.resolve()),
      ...(options.ackTimeoutMs === undefined ? {} : { ackTimeoutMs: options.ackTimeoutMs }),
    });
    dispatcher = ackDispatcher;
  }
  recourse = await openRecourse({
    ...(options.database === undefined ? {} : { database: options.database }),
    ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }),
    ...(options.shared === undefined ? {} : { nodes: 'shared', nodeId: options.shared.nodeId }),
    dispatcher,
    onEvent: (event) => publishEngineEvent(hub, profiles, continuations, event),
    // A session id is an identifier, not evidence; the message says what failed.
    log: (entry) => log.warn({ session: entry.sessionId }, entry.message),
    onError: (error) => log.error({ err: messageOf(error) }, 'a report after an attempt failed'),
  });
  const opened = recourse;
  await hub.attach(opened.events);
  const stopTranscript = opened.transcript.subscribe((event) => publishTranscriptEvent(hub, event));
  for (const summary of await opened.engine.listProfiles()) {
    try {
      const profile = await opened.store.readProfile(summary.id);
      if (profile !== null) profiles.set(profile);
    } catch {
      // An invalid stored profile is reported where it is used (POL-20); the cache just does not hold it.
    }
  }
  const metrics = createMetrics({
    recourse: opened,
    buildInfo: { version: options.version, catalogueVersion },
  });
  const tracing = createTracing({ recourse: opened, version: options.version });
  const plans = new PlanService({ lifecycle: new PlanLifecycle(opened.store, () => opened.clock.now()) });
  const stopPlans = plans.subscribe((event) => {
    const { type, ...data } = event;
    hub.publish({ type, data });
  });
  const context: ServerContext = {
    recourse: opened,
    hub,
    profiles,
    continuations,
    observeAction: (action, result) => metrics.observeAction(action, result),
  };
  const app = buildHttpServer({
    context,
    tokens: table,
    cookieKey,
    version: `${options.version} (catalogue ${catalogueVersion})`,
    logger: log,
    ...(options.webRoot === undefined ? {} : { webRoot: options.webRoot }),
    ...(options.streamLimits === undefined ? {} : { streamLimits: options.streamLimits }),
    ...(options.tokenThrottle === undefined ? {} : { tokenThrottle: options.tokenThrottle }),
    endpoints: [
      metricsEndpoint(metrics),
      ...planEndpoints(plans),
      ...(options.endpoints?.(opened, hub) ?? []),
    ],
    onResponse: (route, method, status, seconds) => metrics.observeHttp(route, method, status, seconds),
  });
  try {
    await app.listen({ port: options.port, host: options.host });
  } catch (error) {
    await opened.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}`,
    recourse: opened,
    app,
    hub,
    plans,
    log,
    generatedAdminToken,
    close() {
      closing ??= (async () => {
        await app.close();
        ackDispatcher?.abandonAll();
        await opened.engine.idle();
        await hub.close();
        stopTranscript();
        stopPlans();
        metrics.close();
        tracing.close();
        await opened.close();
      })();
      return closing;
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
