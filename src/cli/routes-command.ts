import type { Command } from 'commander';
import type { RouteDocument } from '../server/route-document.js';
import { routeStates } from '../core/index.js';
import { escapeControlCharacters, escapeControlsInJson } from '../core/text/escape-controls.js';
import { exitWithFailure, getJson } from './http-client.js';
import { registerRouteActions, routeShape } from './route-actions.js';
import { registerRoutesPurge } from './routes-purge.js';
import { renderAttempts, renderRouteDetail, renderRouteTable, type AttemptDocument } from './route-text.js';
import {
  checkedId,
  targetOf,
  usageError,
  wholeNumber,
  withServerFlags,
  type ServerFlags,
} from './server-flags.js';

interface ListFlags extends ServerFlags {
  readonly state?: string;
  readonly profile?: string;
  readonly limit?: string;
  readonly cursor?: string;
  readonly all?: boolean;
  readonly json?: boolean;
}

/** `recourse routes list|show|retry|skip|cancel|stop|purge`: an operator's view of the server's routes, over HTTP. */
export function registerRoutesCommand(program: Command): void {
  const routes = program.command('routes').description('list, inspect and act on routes (over HTTP)');
  withServerFlags(
    routes
      .command('list')
      .description('routes by state and profile, in id order, a page at a time')
      .option('--state <state>', `only routes in this state (${routeStates.join(', ')})`)
      .option('--profile <id>', 'only routes on this dynamic profile')
      .option('--limit <n>', 'routes per page (1 to 1000; the server pages by 100)')
      .option('--cursor <id>', 'continue after this route id (the next_cursor of a page)')
      .option('--all', 'follow next_cursor to the last page')
      .option('--json', 'one route document per line (JSON Lines)'),
  ).action((flags: ListFlags) => listRoutes(flags));
  withServerFlags(
    routes
      .command('show')
      .description('one route in words, and its attempt history')
      .argument('<id>', 'route id')
      .option('--json', 'print {route, attempts} as JSON'),
  ).action((id: string, flags: ServerFlags & { readonly json?: boolean }) => showRoute(id, flags));
  registerRouteActions(routes);
  registerRoutesPurge(routes);
}

async function listRoutes(flags: ListFlags): Promise<void> {
  const command = 'routes list';
  const target = targetOf(command, flags);
  if (flags.state !== undefined && !(routeStates as readonly string[]).includes(flags.state)) {
    usageError(
      command,
      `--state must be one of ${routeStates.join(', ')} (got ${JSON.stringify(flags.state)})`,
    );
  }
  const limit = flags.limit === undefined ? undefined : wholeNumber(command, '--limit', flags.limit, 1, 1000);
  let cursor = flags.cursor ?? null;
  // The table waits for the last page so its columns line up; JSON Lines go out as each page arrives.
  const table: RouteDocument[] = [];
  let hint: string | null = null;
  for (;;) {
    const query = new URLSearchParams();
    if (flags.state !== undefined) query.set('state', flags.state);
    if (flags.profile !== undefined) query.set('profile_id', flags.profile);
    if (limit !== undefined) query.set('limit', String(limit));
    if (cursor !== null) query.set('cursor', cursor);
    const search = query.toString();
    const reply = await getJson(target, `/v1/routes${search === '' ? '' : `?${search}`}`, {
      routes: 'array',
      next_cursor: ['string', 'null'],
    });
    if (!reply.ok) exitWithFailure(command, reply.failure);
    const page = reply.body as { routes: RouteDocument[]; next_cursor: string | null };
    if (flags.json === true) {
      for (const route of page.routes)
        process.stdout.write(`${escapeControlsInJson(JSON.stringify(route))}\n`);
    } else {
      table.push(...page.routes);
    }
    // Each page's cursor is its last route's id: one that names the page just read again would loop for ever.
    if (page.next_cursor !== null && page.next_cursor === cursor) {
      process.stderr.write(
        `recourse ${command}: ${target.url}: the next page's cursor ${escapeControlCharacters(JSON.stringify(cursor))} is the one just read: is it a Recourse server?\n`,
      );
      process.exit(3);
    }
    cursor = page.next_cursor;
    if (cursor === null) break;
    if (flags.all !== true) {
      // The server's cursor: JSON.stringify leaves C1 and bidi controls raw.
      hint = `more routes follow: --cursor ${escapeControlCharacters(JSON.stringify(cursor))}, or --all\n`;
      break;
    }
  }
  if (flags.json === true) {
    // Standard error, so standard output stays one document per line.
    if (hint !== null) process.stderr.write(hint);
    return;
  }
  process.stdout.write(table.length === 0 ? 'No routes.\n' : renderRouteTable(table, Date.now()));
  if (hint !== null) process.stdout.write(hint);
}

async function showRoute(id: string, flags: ServerFlags & { readonly json?: boolean }): Promise<void> {
  const command = 'routes show';
  const target = targetOf(command, flags);
  const path = `/v1/routes/${encodeURIComponent(checkedId(command, id))}`;
  const route = await getJson(target, path, routeShape);
  if (!route.ok) exitWithFailure(command, route.failure);
  const history = await getJson(target, `${path}/attempts`, { attempts: 'array' });
  if (!history.ok) exitWithFailure(command, history.failure);
  const attempts = (history.body as { attempts: AttemptDocument[] }).attempts;
  if (flags.json === true) {
    process.stdout.write(
      `${escapeControlsInJson(JSON.stringify({ route: route.body, attempts }, null, 2))}\n`,
    );
    return;
  }
  const now = Date.now();
  process.stdout.write(
    `${renderRouteDetail(route.body as RouteDocument, now)}\nAttempts (${attempts.length})\n${renderAttempts(attempts, now)}`,
  );
}
