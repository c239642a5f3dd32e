import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { escapeControlCharacters } from '../core/text/escape-controls.js';
import { uuidv7 } from '../engine/index.js';
import { RecourseError } from '../core/index.js';
import { defaultDatabaseFile } from '../store/sqlite/sqlite-store.js';
import { readJsonFile } from './read-json-file.js';
import { runExit } from './run-exit.js';
import { parseRunProfile } from './run-profile.js';
import { isEngineId } from '../engine/engine-input.js';
import { runSession, RunUsageError } from './run-session.js';

interface RunFlags {
  readonly profile: string;
  readonly session?: string;
  readonly cwd?: string;
  readonly db?: string;
}

/**
 * `recourse run --profile FILE [--session ID] [--cwd DIR] [--db FILE] "PROMPT"`: one prompt through a dynamic
 * profile whose candidates are agent CLIs over ACP, recovered by policy, with live progress (docs/cli.md).
 */
export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('run one prompt through agent CLIs (ACP), recovering from provider failures by policy')
    .requiredOption(
      '--profile <file>',
      'the run profile: a dynamic profile whose candidates carry a launch recipe',
    )
    .option('--session <id>', 'the session (route) id; default a new one. An existing one is resumed')
    .option('--cwd <dir>', 'the working folder of the agents and of the default database (default: here)')
    .option('--db <file>', `the SQLite database (default: ${defaultDatabaseFile} under --cwd)`)
    .argument('[prompt]', 'the prompt; may be left out when --session resumes a stored session')
    .action(async (prompt: string | undefined, flags: RunFlags) => {
      process.exitCode = await run(prompt ?? null, flags);
    });
}

async function run(prompt: string | null, flags: RunFlags): Promise<number> {
  const cwd = resolve(flags.cwd ?? process.cwd());
  if (!isDirectory(cwd)) return usage(`--cwd ${JSON.stringify(cwd)} is not a folder`);
  if (prompt !== null && prompt.trim() === '') return usage('the prompt is empty');
  if (prompt === null && flags.session === undefined) {
    return usage('give a PROMPT (or --session ID to resume a stored session)');
  }
  // Checked before the profile is read or the database opened: a bad id must leave nothing behind.
  if (flags.session !== undefined && !isEngineId(flags.session)) {
    return usage(
      `--session must be 1-128 letters, digits or ._:@/- starting with a letter or digit (got ${escapeControlCharacters(JSON.stringify(flags.session))})`,
    );
  }
  // The service keeps `session:` ids for its task sessions; a run on its database must not take one.
  if (flags.session?.startsWith('session:') === true) {
    return usage(
      '--session ids beginning with "session:" belong to the service\'s task sessions: pick another',
    );
  }
  const read = await readJsonFile(flags.profile);
  if (!read.ok) return usage(read.message);
  const parsed = parseRunProfile(read.value, cwd);
  if (!parsed.ok) {
    const count = parsed.issues.length;
    process.stderr.write(
      `recourse run: the profile ${escapeControlCharacters(flags.profile)} is invalid (${count} problem${count === 1 ? '' : 's'}):\n`,
    );
    for (const issue of parsed.issues) {
      process.stderr.write(
        `  ${escapeControlCharacters(issue.path || '/')}: ${escapeControlCharacters(issue.message)}\n`,
      );
    }
    return runExit.invalidProfile;
  }
  const database = flags.db === undefined ? join(cwd, defaultDatabaseFile) : resolve(flags.db);
  const sessionId = flags.session ?? uuidv7(Date.now());
  const resumeCommand = [
    'recourse run',
    // `-` is standard input, not a file of that name: the resume reads the profile piped in again.
    `--profile ${flags.profile === '-' ? '-' : shellQuote(resolve(flags.profile))}`,
    `--session ${shellQuote(sessionId)}`,
    `--cwd ${shellQuote(cwd)}`,
    ...(flags.db === undefined ? [] : [`--db ${shellQuote(database)}`]),
  ].join(' ');
  try {
    return await runSession({ run: parsed.value, database, sessionId, prompt, resumeCommand });
  } catch (error) {
    if (error instanceof RunUsageError) return usage(error.message);
    // A session id of the wrong shape, a database that cannot be opened or is in use: input that cannot be used.
    if (error instanceof RecourseError) return usage(error.message);
    throw error;
  }
}

function usage(message: string): number {
  process.stderr.write(`recourse run: ${escapeControlCharacters(message)}\n`);
  return runExit.usage;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A word for a shell: left bare when it is plainly safe, else single-quoted. A word with control or bidi
 * characters (a folder named so) is ANSI-C quoted instead (`$'...\x1b...'`, bash, zsh and ksh read it): printed
 * raw they would act on the terminal, and the printed command would not be the one that resumes.
 */
function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_./:=@-]+$/.test(word)) return word;
  const escaped = escapeControlCharacters(word);
  if (escaped === word) return `'${word.replace(/'/g, `'\\''`)}'`;
  return `$'${escapeControlCharacters(word.replace(/[\\']/g, '\\$&'))}'`;
}
