import type { Command } from 'commander';
import { parseIsoDateTime } from '../core/index.js';
import { exitWithFailure, postJson } from './http-client.js';
import { targetOf, usageError, withServerFlags, type ServerFlags } from './server-flags.js';

interface PurgeFlags extends ServerFlags {
  readonly finishedBefore?: string;
}

/**
 * `recourse routes purge --finished-before ISO` (admin): deletes the routes that wait for nothing and last changed
 * before that instant, a batch per request until a batch comes back short, and says how many went.
 */
export function registerRoutesPurge(routes: Command): void {
  withServerFlags(
    routes
      .command('purge')
      .description('delete finished routes (waiting for nothing) that last changed before an instant (admin)')
      .requiredOption(
        '--finished-before <iso>',
        'an ISO-8601 date-time with a zone, like 2026-06-01T12:00:00Z',
      ),
  ).action((flags: PurgeFlags) => purgeRoutes(flags));
}

/** Routes per request: the server's default batch. */
const batch = 1000;

async function purgeRoutes(flags: PurgeFlags): Promise<void> {
  const command = 'routes purge';
  const target = targetOf(command, flags);
  const before = flags.finishedBefore ?? '';
  if (parseIsoDateTime(before) === null) {
    usageError(
      command,
      `--finished-before must be an ISO-8601 date-time with a zone, like 2026-06-01T12:00:00Z (got ${JSON.stringify(before)})`,
    );
  }
  let total = 0;
  for (;;) {
    const reply = await postJson(
      target,
      '/v1/routes/purge',
      { finished_before: before, limit: batch },
      { purged: 'number' },
    );
    if (!reply.ok) exitWithFailure(command, reply.failure);
    const purged = (reply.body as { purged: number }).purged;
    total += purged;
    if (purged < batch) break;
    process.stderr.write(`purged ${total} routes so far…\n`);
  }
  process.stdout.write(
    `Purged ${total} route${total === 1 ? '' : 's'} that last changed before ${before}.\n`,
  );
}
