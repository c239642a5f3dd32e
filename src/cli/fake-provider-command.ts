import type { Command } from 'commander';
import { readJsonFile } from './read-json-file.js';
import { badPortProblem } from '../support/fetch-bad-ports.js';
import { escapeControlCharacters, escapeControlsInJson } from '../core/text/escape-controls.js';
import { redactSecrets } from '../core/index.js';
import { readScript } from '../fake-provider/script.js';
import { startFakeProvider, type RunningFakeProvider } from '../fake-provider/server.js';

/**
 * `recourse fake-provider --script FILE [--port P]`: serves scripted answers and faults, in the real shapes of
 * the model APIs agents call, on 127.0.0.1 only (docs/fake-provider.md). Prints `listening on URL` when ready and
 * one JSON line per request on stderr. Exit 2 and one line on stderr when the script cannot be read (missing,
 * not JSON) or the port cannot be used; exit 1 and `{"errors":[{path,message}]}` for a script that was read and
 * is invalid; exit 0 after SIGINT or SIGTERM closed the server.
 */
export function registerFakeProviderCommand(program: Command): void {
  program
    .command('fake-provider')
    .description('serve scripted model API answers and faults on 127.0.0.1, to test agents and policies')
    .requiredOption(
      '--script <file>',
      'script JSON file {steps, then} (docs/fake-provider.md), or - for standard input',
    )
    .option('--port <port>', 'TCP port (0 picks a free one)', '0')
    .action(async (flags: { script: string; port: string }) => {
      process.exitCode = await run(flags);
    });
}

async function run(flags: { script: string; port: string }): Promise<number> {
  const port = /^\d{1,5}$/.test(flags.port) ? Number(flags.port) : NaN;
  if (!(port >= 0 && port <= 65_535)) {
    process.stderr.write(
      `recourse fake-provider: --port must be a port number from 0 to 65535 (got ${escapeControlCharacters(JSON.stringify(redactSecrets(flags.port)))})\n`,
    );
    return 2;
  }
  // An agent's HTTP client (fetch) would refuse the provider's address: every request would fail as "bad port".
  const unreachable = badPortProblem('--port', port);
  if (unreachable !== null) {
    process.stderr.write(`recourse fake-provider: ${unreachable}: choose another, or 0 for a free one\n`);
    return 2;
  }
  const read = await readJsonFile(flags.script);
  if (!read.ok) {
    process.stderr.write(`recourse fake-provider: ${read.message}\n`);
    return 2;
  }
  const checked = readScript(read.value);
  if (!checked.ok) {
    process.stdout.write(`${escapeControlsInJson(JSON.stringify({ errors: checked.issues }))}\n`);
    return 1;
  }
  let server: RunningFakeProvider;
  try {
    server = await startFakeProvider({
      script: checked.script,
      port,
      // Redacted once more as a whole: a secret in a path the route did not expect never reaches the log.
      log: (line) => process.stderr.write(`${escapeControlsInJson(redactSecrets(JSON.stringify(line)))}\n`),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'EADDRINUSE' ? 'the port is in use' : escapeControlCharacters((error as Error).message);
    process.stderr.write(`recourse fake-provider: cannot listen on 127.0.0.1:${port}: ${why}\n`);
    return 2;
  }
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      void server.close().then(() => resolve(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    process.stdout.write(`listening on ${server.url}\n`);
  });
}
