import { Option, type Command } from 'commander';
import type { ServerTarget } from './http-client.js';
import { escapeControlCharacters } from '../core/text/escape-controls.js';
import { badPortProblem } from '../support/fetch-bad-ports.js';
import { credentialIdMessage, idProblem } from '../core/index.js';

/** Where `recourse serve` listens by default, so the client commands find it without configuration. */
export const defaultServer = 'http://127.0.0.1:7420';

export interface ServerFlags {
  readonly server: string;
  readonly token?: string;
}

/** Adds `--server` and `--token` (or RECOURSE_SERVER, RECOURSE_TOKEN) to a client command. */
export function withServerFlags(command: Command): Command {
  return command
    .addOption(
      new Option('--server <url>', 'the Recourse server').env('RECOURSE_SERVER').default(defaultServer),
    )
    .addOption(
      // The environment is the better place: an argument shows in the process list.
      new Option('--token <token>', 'bearer token (prefer RECOURSE_TOKEN)').env('RECOURSE_TOKEN'),
    );
}

/**
 * The target the flags name. A URL that is not http(s) is a usage error: one line on standard error, exit 2, as
 * commander's own usage errors.
 */
export function targetOf(command: string, flags: ServerFlags): ServerTarget {
  let url: URL | null = null;
  try {
    url = new URL(flags.server);
  } catch {
    // reported below
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    usageError(command, `--server must be an http or https URL (got ${JSON.stringify(flags.server)})`);
  }
  const secret = serverUrlSecretProblem(url) ?? serverPortProblem(url);
  if (secret !== null) usageError(command, secret);
  const token = flags.token === undefined || flags.token === '' ? null : flags.token;
  const unusable = token === null ? null : tokenProblem(token);
  if (unusable !== null) usageError(command, unusable);
  return { url: url.href.replace(/\/+$/, ''), token };
}

/**
 * Why a token cannot be sent, or null. A server's tokens are visible ASCII only (`recourse serve`), so anything
 * else is a copying slip (a CR of a Windows file, a line break, a space); sent, it would fail inside `fetch` with
 * the header, token included, in the message. The token itself is never shown.
 */
export function tokenProblem(token: string): string | null {
  if (/^[\x21-\x7e]+$/.test(token)) return null;
  return 'the token (--token or RECOURSE_TOKEN) has a space, line break, control or non-ASCII character, which no token has: check how it was copied';
}

/**
 * Why a server URL may not be used because it carries what may be a credential (a user or password, a query such
 * as the `?token=` of the sign-in URL `recourse serve` prints, a fragment), or null. Every error line names the
 * server, so such a URL would print the credential each time: the message shows it with those parts masked.
 */
export function serverUrlSecretProblem(url: URL): string | null {
  if (url.username === '' && url.password === '' && url.search === '' && url.hash === '') return null;
  const shown = new URL(url.href);
  if (shown.username !== '') shown.username = '***';
  if (shown.password !== '') shown.password = '***';
  shown.search = '';
  shown.hash = '';
  const what = url.username !== '' || url.password !== '' ? 'a user or password' : 'a query or fragment';
  return `--server must not carry ${what} (got ${JSON.stringify(shown.href)}): give the token with RECOURSE_TOKEN or --token`;
}

/** Why the URL's port cannot be reached with fetch (a bad port: `recourse serve` refuses them too), or null. */
export function serverPortProblem(url: URL): string | null {
  const problem = url.port === '' ? null : badPortProblem('--server port', Number(url.port));
  return problem === null
    ? null
    : `${problem}: no Recourse server listens there (\`recourse serve\` refuses it)`;
}

/** One line on standard error and exit 2: input the command cannot use, like commander's usage errors. */
export function usageError(command: string, message: string): never {
  process.stderr.write(`recourse ${command}: ${escapeControlCharacters(message)}\n`);
  process.exit(2);
}

/**
 * A route or profile ID the server could hold (`idProblem`), or a usage error before any request: `..` or `.`
 * would otherwise name another endpoint once the URL is resolved (`/v1/routes/..` is `/v1/`).
 */
export function checkedId(command: string, id: string): string {
  const problem = idProblem(id);
  if (problem === null) return id;
  usageError(
    command,
    problem === 'credential'
      ? `ID ${credentialIdMessage}`
      : `ID must be 1 to 128 letters, digits and . _ : @ / -, starting with a letter or digit (got ${JSON.stringify(id)})`,
  );
}

/** `--limit`, `--generation`, `--if-version`: a whole number in range, or a usage error. */
export function wholeNumber(command: string, flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d{1,16}$/.test(text) || value < min || value > max) {
    usageError(command, `${flag} must be a whole number from ${min} to ${max} (got ${JSON.stringify(text)})`);
  }
  return value;
}
