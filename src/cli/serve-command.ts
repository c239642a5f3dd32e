import { readFileSync, statSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { parseTokens, type Role } from '../server/auth.js';
import type { RunningService, ServiceOptions } from '../server/service.js';
import { webhookUrlProblem } from '../server/ack-dispatcher.js';
import { escapeControlCharacters } from '../core/text/escape-controls.js';
import { parsePostgresUrl } from '../store/postgres/postgres-url.js';
import { uuidv7 } from '../support/ids.js';
import { badPortProblem } from '../support/fetch-bad-ports.js';

/** The levels `--log-level` takes (pino's), quietest last. */
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

interface ServeFlags {
  readonly port: string;
  readonly host: string;
  readonly db?: string;
  readonly databaseUrl?: string;
  readonly shared?: boolean;
  readonly nodeId?: string;
  readonly tokensFile?: string;
  readonly webhook?: string;
  readonly ackTimeout: string;
  readonly maxEventStreams: string;
  readonly maxEventStreamsPerRole: string;
  readonly maxEventStreamsPerToken: string;
  readonly logLevel: string;
  readonly demo?: boolean;
}

/**
 * `recourse serve`: the HTTP service on one SQLite file, or on one schema of a PostgreSQL database
 * (`--database-url` or RECOURSE_DATABASE_URL). Tokens come from RECOURSE_TOKENS or --tokens-file
 * (`role:token` pairs); without them it listens on loopback and prints a URL with a token made for this run.
 * `--shared` makes it one of several nodes serving one PostgreSQL schema (`--node-id` names it).
 * SIGTERM and SIGINT shut it down gracefully: requests in flight finish, queued decisions commit.
 */
export function registerServeCommand(program: Command, demo?: DemoHook): void {
  program
    .command('serve')
    .description(
      'serve the HTTP API (and the event stream) on an embedded SQLite database, or on PostgreSQL with --database-url',
    )
    .option('--port <port>', 'TCP port (0 picks a free one)', '7420')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--db <file>', 'SQLite database file (.recourse/recourse.db; .recourse/demo.db with --demo)')
    .addOption(
      new Option(
        '--database-url <url>',
        'PostgreSQL instead of SQLite: postgres://user@host:port/database?schema=NAME (prefer RECOURSE_DATABASE_URL)',
      ).env('RECOURSE_DATABASE_URL'),
    )
    .option('--shared', 'one of several nodes serving the same PostgreSQL schema (needs --database-url)')
    .option(
      '--node-id <id>',
      "this node's id with --shared (letters, digits, . _ -; a fresh UUIDv7 by default)",
    )
    .option('--tokens-file <file>', 'role:token pairs, one per line (or RECOURSE_TOKENS)')
    .option('--webhook <url>', 'POST each dispatch intent here, signed with RECOURSE_WEBHOOK_SECRET')
    .option('--ack-timeout <seconds>', 'how long a dispatch waits for its acknowledgement', '30')
    .option('--max-event-streams <n>', 'event streams open at once, in all (503 beyond)', '512')
    .option('--max-event-streams-per-role <n>', 'event streams open at once for one role', '256')
    .option('--max-event-streams-per-token <n>', 'event streams open at once for one token', '64')
    .option('--log-level <level>', `${logLevels.slice(0, -1).join(', ')} or silent`, 'info')
    .option('--demo', 'run the built-in simulated agent fleet (what `npm start` shows)')
    .action(async (flags: ServeFlags, command: Command) => {
      if (flags.databaseUrl !== undefined && flags.db !== undefined) {
        const source =
          command.getOptionValueSource('databaseUrl') === 'env' ? 'RECOURSE_DATABASE_URL' : '--database-url';
        fail(`--db and ${source} both name a database: give one`, 2);
      }
      // `npm start` in a shell set up for the real service must not put the demo fleet (its profiles, its routes,
      // its purges) into that database: the demo runs on a database named on its command line, or its own file.
      if (flags.demo === true && command.getOptionValueSource('databaseUrl') === 'env') {
        fail(
          '--demo runs on a database of its own, not on RECOURSE_DATABASE_URL: unset it (or give --database-url to mean it)',
          2,
        );
      }
      const shared = sharedNode(flags);
      if (typeof shared === 'string') fail(shared, 2);
      // Only the shown form (password as ***) is ever printed.
      let database = flags.db ?? (flags.demo === true ? './.recourse/demo.db' : './.recourse/recourse.db');
      if (flags.databaseUrl !== undefined) {
        const location = parsePostgresUrl(flags.databaseUrl);
        if ('error' in location) fail(`the database URL ${location.error}`, 1);
        else database = location.display;
      }
      const checked = serviceOptions({ ...flags, db: database });
      if (typeof checked === 'string') fail(checked, 2);
      const options: ServiceOptions = shared === null ? checked : { ...checked, shared };
      let service: RunningService;
      try {
        // Loaded here, not at the top: Fastify, pino and the store would slow every other command's start.
        const { startService } = await import('../server/service.js');
        service = await startService(
          flags.demo === true && demo !== undefined ? await demo.options(options) : options,
        );
      } catch (error) {
        process.stderr.write(`recourse serve: ${escapeControlCharacters(messageOf(error))}\n`);
        process.exit(1);
      }
      // Handlers first: a client that reads the ready line below may signal at once, and a signal before them
      // would end the process without a graceful shutdown.
      let stopDemo: (() => Promise<void>) | null = null;
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        service.log.info({ signal }, 'shutting down');
        void (async () => {
          await stopDemo?.();
          await service.close();
          process.exit(0);
        })().catch((error: unknown) => {
          process.stderr.write(`recourse serve: shutdown failed: ${messageOf(error)}\n`);
          process.exit(1);
        });
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      // The terminal it was started from closed: shut down as cleanly as on SIGTERM (its database released).
      process.on('SIGHUP', () => {
        // The terminal is gone: a write to it (the log line below) fails with EIO, which uncaught ended the process
        // before its database was released. Nothing it writes can be read now.
        for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
        stop('SIGHUP');
      });
      const where =
        service.generatedAdminToken === null
          ? service.url
          : `${service.url}/?token=${service.generatedAdminToken}`;
      process.stdout.write(
        `Recourse is listening on ${service.url} (database ${escapeControlCharacters(database)}${shared === null ? '' : `, shared node ${shared.nodeId}`})\n` +
          (service.generatedAdminToken === null
            ? ''
            : `No tokens are configured: an admin token was made for this run. Open:\n  ${where}\n` +
              `From a terminal: export RECOURSE_SERVER=${service.url} RECOURSE_TOKEN=${service.generatedAdminToken}\n`),
      );
      if (flags.demo === true && demo !== undefined && !stopping) stopDemo = await demo.start(service);
    });
}

/** `--shared` and `--node-id`: null for a single engine, the node, or what is wrong (a usage error). */
function sharedNode(flags: ServeFlags): { readonly nodeId: string } | null | string {
  if (flags.shared !== true) {
    return flags.nodeId === undefined ? null : '--node-id names a node of --shared: give --shared too';
  }
  if (flags.databaseUrl === undefined) {
    return '--shared needs --database-url (or RECOURSE_DATABASE_URL): shared nodes meet in one PostgreSQL schema';
  }
  if (flags.nodeId !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(flags.nodeId)) {
    return `--node-id must be 1 to 64 letters, digits, ".", "_" or "-" (got ${JSON.stringify(flags.nodeId)})`;
  }
  return { nodeId: flags.nodeId ?? uuidv7(Date.now()) };
}

/** How `--demo` plugs its simulated fleet in (kept out of this file so the server does not depend on it). */
export interface DemoHook {
  options(options: ServiceOptions): Promise<ServiceOptions>;
  start(service: RunningService): Promise<() => Promise<void>>;
}

function serviceOptions(flags: ServeFlags & { readonly db: string }): ServiceOptions | string {
  const port = Number(flags.port);
  if (!/^\d{1,5}$/.test(flags.port) || port > 65535)
    return `--port must be 0 to 65535 (got ${JSON.stringify(flags.port)})`;
  const unreachable = badPortProblem('--port', port);
  if (unreachable !== null) return `${unreachable}: choose another, such as the default 7420`;
  const ackSeconds = Number(flags.ackTimeout);
  if (!/^\d{1,4}(\.\d{1,6})?$/.test(flags.ackTimeout) || ackSeconds < 1 || ackSeconds > 3600) {
    return `--ack-timeout must be 1 to 3600 seconds (got ${JSON.stringify(flags.ackTimeout)})`;
  }
  const total = Number(flags.maxEventStreams);
  const perRole = Number(flags.maxEventStreamsPerRole);
  if (!/^\d{1,6}$/.test(flags.maxEventStreams) || total < 1 || total > 100_000) {
    return `--max-event-streams must be 1 to 100000 (got ${JSON.stringify(flags.maxEventStreams)})`;
  }
  if (!/^\d{1,6}$/.test(flags.maxEventStreamsPerRole) || perRole < 1 || perRole > 100_000) {
    return `--max-event-streams-per-role must be 1 to 100000 (got ${JSON.stringify(flags.maxEventStreamsPerRole)})`;
  }
  const perToken = Number(flags.maxEventStreamsPerToken);
  if (!/^\d{1,6}$/.test(flags.maxEventStreamsPerToken) || perToken < 1 || perToken > 100_000) {
    return `--max-event-streams-per-token must be 1 to 100000 (got ${JSON.stringify(flags.maxEventStreamsPerToken)})`;
  }
  if (!(logLevels as readonly string[]).includes(flags.logLevel)) {
    return `--log-level must be one of ${logLevels.join(', ')} (got ${JSON.stringify(flags.logLevel)})`;
  }
  if (flags.databaseUrl === undefined && (flags.db === '' || !isFileOrAbsent(flags.db)))
    return `--db must name a file (got ${JSON.stringify(flags.db)})`;
  let tokens: { role: Role; token: string }[] = [];
  const fromEnv = process.env.RECOURSE_TOKENS;
  if (flags.tokensFile !== undefined) {
    let text: string;
    try {
      if (statSync(flags.tokensFile).isDirectory())
        return `--tokens-file ${JSON.stringify(flags.tokensFile)} is a directory`;
      text = readFileSync(flags.tokensFile, 'utf8');
    } catch (error) {
      return `--tokens-file ${JSON.stringify(flags.tokensFile)} cannot be read: ${(error as NodeJS.ErrnoException).code ?? messageOf(error)}`;
    }
    const parsed = parseTokens(text, '--tokens-file');
    if (!parsed.ok) return parsed.message;
    tokens = parsed.tokens;
  } else if (fromEnv !== undefined && fromEnv.trim() !== '') {
    const parsed = parseTokens(fromEnv, 'RECOURSE_TOKENS');
    if (!parsed.ok) return parsed.message;
    tokens = parsed.tokens;
  }
  if (flags.webhook !== undefined) {
    const problem = webhookUrlProblem(flags.webhook);
    // The value is not echoed: a URL missing its scheme may still carry a key in its query or a password.
    if (problem === 'must be a URL')
      return '--webhook must be an absolute http or https URL such as https://hooks.example.com/recourse (the value given is not shown: it may hold a credential)';
    if (problem !== null) return `--webhook ${problem}`;
  }
  return {
    port,
    host: flags.host,
    ...(flags.databaseUrl === undefined ? { database: flags.db } : { databaseUrl: flags.databaseUrl }),
    tokens,
    ...(process.env.RECOURSE_SECRET === undefined ? {} : { secret: process.env.RECOURSE_SECRET }),
    ...(flags.webhook === undefined ? {} : { webhookUrl: flags.webhook }),
    ...(process.env.RECOURSE_WEBHOOK_SECRET === undefined
      ? {}
      : { webhookSecret: process.env.RECOURSE_WEBHOOK_SECRET }),
    ackTimeoutMs: ackSeconds * 1000,
    streamLimits: { total, perRole, perToken },
    version: '0.1.0',
    logLevel: flags.logLevel,
  };
}

/** A path that is a regular file, or nothing yet (it is created); a directory, FIFO or device is none. */
function isFileOrAbsent(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return true;
  }
}

/** One line on standard error and the exit code: 2 for usage, 1 for a value that cannot be used. */
function fail(message: string, code: number): never {
  process.stderr.write(`recourse serve: ${escapeControlCharacters(message)}\n`);
  process.exit(code);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
