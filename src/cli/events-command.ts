import type { Command } from 'commander';
import { escapeControlCharacters, escapeControlsInJson } from '../core/text/escape-controls.js';
import { eventLine } from './event-line.js';
import { exitWithFailure, openStream, type ServerTarget } from './http-client.js';
import { targetOf, usageError, withServerFlags, type ServerFlags } from './server-flags.js';
import { readSse } from './sse-reader.js';

interface EventsFlags extends ServerFlags {
  readonly json?: boolean;
  readonly since?: string;
}

/** Reconnection waits this long at first, doubling to the maximum while the server stays away. */
const firstBackoffMs = 250;
const maxBackoffMs = 5000;
/**
 * A stream silent this long is taken for lost and reconnected: the server sends a heartbeat every 15 s, so a
 * connection that a sleeping laptop or a NAT dropped without a reset would otherwise be followed for ever.
 */
const silenceMs = 45_000;

/**
 * `recourse events`: follows the server's event stream, one line per event, until interrupted (SIGINT: exit 0).
 * A dropped connection (a restart) is resumed from the last event id with Last-Event-ID, so no event is missed;
 * a `reload` event (the server no longer keeps the events after that id) ends it with exit 3.
 */
export function registerEventsCommand(program: Command): void {
  withServerFlags(
    program
      .command('events')
      .description(
        'follow the server’s events (route transitions, dispatches, circuits), resuming after drops',
      )
      .option('--json', "each event's data as one JSON line")
      .option('--since <id>', 'start after this event id (what a previous run printed last)'),
  ).action((flags: EventsFlags) => follow(flags));
}

async function follow(flags: EventsFlags): Promise<void> {
  const command = 'events';
  const target = targetOf(command, flags);
  if (flags.since !== undefined && !/^\d{1,15}$/.test(flags.since)) {
    usageError(command, `--since must be an event id, a whole number (got ${JSON.stringify(flags.since)})`);
  }
  // Following ends only when the person stops it: that is success.
  process.on('SIGINT', () => process.exit(0));
  let lastId = flags.since ?? null;
  let connectedBefore = false;
  let backoffMs = firstBackoffMs;
  for (;;) {
    const outcome = await followOnce(target, lastId, flags.json === true, connectedBefore, (id) => {
      lastId = id;
    });
    if (outcome === 'connected') {
      connectedBefore = true;
      backoffMs = firstBackoffMs;
    }
    // The first connection fails at once (exitWithFailure): a later one is a restart or a network blip, so wait.
    const resume = lastId === null ? '' : ` (will resume after event ${lastId})`;
    process.stderr.write(`recourse ${command}: connection lost; reconnecting in ${backoffMs} ms${resume}\n`);
    await new Promise((resolve) => setTimeout(resolve, backoffMs));
    backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
  }
}

/**
 * One connection: `connected` when the stream opened and later ended, `failed` when it could not open and may be
 * tried again. Refusals (a token no longer valid) and a `reload` end the command here.
 */
async function followOnce(
  target: ServerTarget,
  lastId: string | null,
  json: boolean,
  connectedBefore: boolean,
  onId: (id: string) => void,
): Promise<'connected' | 'failed'> {
  const abort = new AbortController();
  const opened = await openStream(
    target,
    '/v1/events',
    { accept: 'text/event-stream', ...(lastId === null ? {} : { 'last-event-id': lastId }) },
    abort.signal,
  );
  if (!opened.ok) {
    if (!connectedBefore || opened.failure.exitCode !== 3) exitWithFailure('events', opened.failure);
    return 'failed';
  }
  const body = opened.response.body;
  if (body === null) return 'connected';
  process.stderr.write(
    `recourse events: following ${target.url}${lastId === null ? '' : ` after event ${lastId}`}\n`,
  );
  const watchdog = setTimeout(() => abort.abort(), silenceMs);
  try {
    for await (const event of readSse(body)) {
      watchdog.refresh();
      if (event.type === 'reload') reload(event.data);
      if (event.type === 'heartbeat') continue;
      // Only events with an id are durable ones; the id is what a reconnection resumes after.
      if (event.lastEventId !== null && event.lastEventId !== '') onId(event.lastEventId);
      process.stdout.write(
        `${json ? escapeControlsInJson(event.data) : eventLine(event.type, parse(event.data))}\n`,
      );
    }
  } catch {
    // The connection broke mid-stream (a reset, the server stopping): the caller reconnects.
  } finally {
    clearTimeout(watchdog);
    abort.abort();
  }
  return 'connected';
}

function reload(data: string): never {
  const parsed = parse(data);
  const reason =
    typeof parsed === 'object' && parsed !== null && 'reason' in parsed && typeof parsed.reason === 'string'
      ? parsed.reason
      : 'unknown';
  process.stderr.write(
    `recourse events: the server asks for a reload (${escapeControlCharacters(reason)}): the events after that id ` +
      `are no longer kept. Read the state again (recourse routes list), then follow from now (recourse events without --since)\n`,
  );
  process.exit(3);
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return null;
  }
}
