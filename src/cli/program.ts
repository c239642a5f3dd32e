import { Command } from 'commander';
import { registerClassifyCommand } from './classify-command.js';
import { registerPolicyCommand } from './policy-command.js';
import { registerSimulateCommand } from './simulate-command.js';

/** The `recourse` command line. */
export function buildProgram(): Command {
  const program = new Command('recourse')
    .description('Recovers AI coding agents from provider failures.')
    .version('0.1.0')
    .showHelpAfterError();
  registerClassifyCommand(program);
  registerPolicyCommand(program);
  registerSimulateCommand(program);
  return program;
}
