import { redactSecrets } from '../core/sanitize/redact-secrets.js';
import type { Command } from 'commander';
import type { RouteDocument } from '../server/route-document.js';
import { routeStates, type ManualAction } from '../core/index.js';
import { escapeControlCharacters } from '../core/text/escape-controls.js';
import type { AnswerShape } from './answer-shape.js';
import { errorOf, exitWithFailure, getJson, postJson } from './http-client.js';
import { routeHeadline } from './route-text.js';
import {
  checkedId,
  targetOf,
  usageError,
  wholeNumber,
  withServerFlags,
  type ServerFlags,
} from './server-flags.js';

interface ActionFlags extends ServerFlags {
  readonly generation?: string;
  readonly state?: string;
}

const commands: readonly { name: string; action: ManualAction; description: string }[] = [
  { name: 'retry', action: 'retry_now', description: 'retry the route now, on its current candidate' },
  { name: 'skip', action: 'skip_now', description: 'skip to the next candidate now' },
  { name: 'cancel', action: 'cancel', description: 'cancel the pending wait (the route then needs action)' },
  { name: 'stop', action: 'stop', description: 'stop the route (a running attempt runs on)' },
];

/**
 * `recourse routes retry|skip|cancel|stop ID`: a manual action (RTE-18), fenced by the generation (and the state)
 * the operator saw (RTE-19). Without --generation the route is read first and what it showed is used, which the
 * command says. A refusal (409) is one line with the reason and the route's current state, exit 1.
 */
export function registerRouteActions(routes: Command): void {
  for (const c of commands) {
    withServerFlags(
      routes
        .command(c.name)
        .description(c.description)
        .argument('<id>', 'route id')
        .option('--generation <n>', 'the generation you saw (default: read the route now)')
        .option('--state <state>', 'the state you saw: refused unless the route is still in it'),
    ).action((id: string, flags: ActionFlags) => act(c.name, c.action, id, flags));
  }
}

/** The fields of a route document (`src/server/route-document.ts`) every routes command reads. */
export const routeShape = {
  id: 'string',
  state: 'string',
  candidate: 'string',
  generation: 'number',
} as const satisfies AnswerShape;

async function act(name: string, action: ManualAction, id: string, flags: ActionFlags): Promise<void> {
  const command = `routes ${name}`;
  const target = targetOf(command, flags);
  if (flags.state !== undefined && !(routeStates as readonly string[]).includes(flags.state)) {
    usageError(
      command,
      `--state must be one of ${routeStates.join(', ')} (got ${JSON.stringify(flags.state)})`,
    );
  }
  const path = `/v1/routes/${encodeURIComponent(checkedId(command, id))}`;
  let generation: number;
  let state = flags.state;
  if (flags.generation !== undefined) {
    generation = wholeNumber(command, '--generation', flags.generation, 1, Number.MAX_SAFE_INTEGER);
  } else {
    const read = await getJson(target, path, routeShape);
    if (!read.ok) exitWithFailure(command, read.failure);
    const seen = read.body as RouteDocument;
    generation = seen.generation;
    state ??= seen.state;
    // Standard error, so standard output stays the result; the fence still protects a race after this read.
    process.stderr.write(
      `recourse ${command}: read the route just now: generation ${generation}, state ${escapeControlCharacters(state)}\n`,
    );
  }
  const reply = await postJson(
    target,
    `${path}/actions`,
    { action, expected_generation: generation, ...(state === undefined ? {} : { expected_state: state }) },
    { result: 'string', route: 'object' },
  );
  if (!reply.ok) {
    const current = routeOf(reply.failure.body);
    if (reply.failure.status !== 409 || current === null) exitWithFailure(command, reply.failure);
    const error = errorOf(reply.failure.body);
    process.stderr.write(
      `recourse ${command}: refused (${escapeControlCharacters(error?.code ?? 'conflict')}): ${escapeControlCharacters(redactSecrets(error?.message ?? ''))}; ` +
        `the route is now ${escapeControlCharacters(current.state)}, generation ${current.generation}\n`,
    );
    process.exit(1);
  }
  const { result, route } = reply.body as { result: string; route: RouteDocument };
  const done = result === 'changed' ? 'done' : 'nothing to change (already so)';
  process.stdout.write(
    `${action}: ${done}. ${escapeControlCharacters(route.id)} → ${routeHeadline(route)}; ` +
      `state ${escapeControlCharacters(route.state)}, generation ${route.generation}\n`,
  );
}

function routeOf(body: unknown): RouteDocument | null {
  if (typeof body !== 'object' || body === null || !('route' in body)) return null;
  // Only a route with the fields the refusal prints: another server's `route` (a string, a generation of control
  // sequences) is printed as its failure, never raw or as a TypeError.
  const route = body.route as Partial<RouteDocument> | null;
  return typeof route === 'object' &&
    route !== null &&
    typeof route.state === 'string' &&
    Number.isSafeInteger(route.generation)
    ? (route as RouteDocument)
    : null;
}
