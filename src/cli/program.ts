import { Command } from 'commander';
import { registerClassifyCommand } from './classify-command.js';
import { registerErrorsCommand } from './errors-command.js';
import { registerPlanCommand } from './plan-command.js';
import { registerPolicyCommand } from './policy-command.js';
import { registerSimulateCommand } from './simulate-command.js';
import { registerServeCommand } from './serve-command.js';
import { demoHook } from './demo-hook.js';
import { registerRoutesCommand } from './routes-command.js';
import { registerProfilesCommand } from './profiles-command.js';
import { registerEventsCommand } from './events-command.js';
import { registerFakeProviderCommand } from './fake-provider-command.js';
import { registerRunCommand } from './run-command.js';
import { escapeControlCharacters } from '../core/text/escape-controls.js';

/** The `recourse` command line. */
export function buildProgram(): Command {
  const program = new Command('recourse')
    .description('Recovers AI coding agents from provider failures.')
    .version('0.1.0')
    .showHelpAfterError()
    // Commander quotes the arguments it refuses: escape them, and keep each error on one line.
    .configureOutput({
      outputError: (message, write) => write(`${escapeControlCharacters(message.replace(/\n$/, ''))}\n`),
    });
  registerClassifyCommand(program);
  registerPolicyCommand(program);
  registerSimulateCommand(program);
  registerServeCommand(program, demoHook());
  registerRoutesCommand(program);
  registerProfilesCommand(program);
  registerEventsCommand(program);
  registerErrorsCommand(program);
  registerPlanCommand(program);
  registerFakeProviderCommand(program);
  registerRunCommand(program);
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
