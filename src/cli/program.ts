import { Command } from 'commander';
import { escapeControlCharacters } from '../core/text/escape-controls.js';

/** Loads a command's module and returns what adds the command to a program. */
type Load = () => Promise<(program: Command) => void>;

/**
 * Every command by name, in the order help lists them, each loading its module only when asked for: a command
 * imports what it runs (the server, the store, the route engine, the whole core), and `recourse classify` over a
 * short file spent more time loading the other commands' modules than classifying.
 */
const commands: ReadonlyArray<readonly [string, Load]> = [
  ['classify', async () => (await import('./classify-command.js')).registerClassifyCommand],
  ['policy', async () => (await import('./policy-command.js')).registerPolicyCommand],
  ['simulate', async () => (await import('./simulate-command.js')).registerSimulateCommand],
  [
    'serve',
    async () => {
      const [{ registerServeCommand }, { demoHook }] = await Promise.all([
        import('./serve-command.js'),
        import('./demo-hook.js'),
      ]);
      return (program) => registerServeCommand(program, demoHook());
    },
  ],
  ['routes', async () => (await import('./routes-command.js')).registerRoutesCommand],
  ['profiles', async () => (await import('./profiles-command.js')).registerProfilesCommand],
  ['events', async () => (await import('./events-command.js')).registerEventsCommand],
  ['errors', async () => (await import('./errors-command.js')).registerErrorsCommand],
  ['plan', async () => (await import('./plan-command.js')).registerPlanCommand],
  ['fake-provider', async () => (await import('./fake-provider-command.js')).registerFakeProviderCommand],
  ['run', async () => (await import('./run-command.js')).registerRunCommand],
];

/**
 * The `recourse` command line for `argv` (Node's: the program's own arguments start at index 2). When the first
 * argument names a command, only that command is registered, which is all Commander reads to run it (its help
 * and its usage errors included); anything else (no argument, an option, help, a misspelt command) gets every
 * command, so the top-level help, the version and "unknown command" read as before.
 */
export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command('recourse')
    .description('Recovers AI coding agents from provider failures.')
    .version('0.1.0')
    .showHelpAfterError()
    // Commander quotes the arguments it refuses: escape them, and keep each error on one line.
    .configureOutput({
      outputError: (message, write) => write(`${escapeControlCharacters(message.replace(/\n$/, ''))}\n`),
    });
  const named = commands.filter(([name]) => name === argv[2]);
  // Loaded together, added in order.
  const registers = await Promise.all((named.length > 0 ? named : commands).map(([, load]) => load()));
  for (const register of registers) register(program);
  // A usage error (an unknown option, a missing argument) exits 2, as input that cannot be used does; exit 1
  // stays reserved for a document that was read and is invalid. Help and --version exit 0.
  const everyCommand = (command: Command): Command[] => [command, ...command.commands.flatMap(everyCommand)];
  for (const command of everyCommand(program)) {
    command.exitOverride((error) => {
      process.exit(error.exitCode === 0 ? 0 : 2);
    });
  }
  return program;
}
