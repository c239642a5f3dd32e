import { constants } from 'node:fs';
import { access, mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { readJsonFile } from './read-json-file.js';
import { inspectPath, nameOf, reasonOf } from './read-lines.js';
import { readScenario } from './simulate/scenario.js';
import { runSimulation } from './simulate/run-simulation.js';
import { openSqliteStore } from '../store/index.js';
import { escapeControlCharacters, escapeControlsInJson } from '../core/text/escape-controls.js';

/**
 * `recourse simulate SCENARIO.json [--db FILE]`: runs a scripted scenario through the real engine and a real
 * SQLite store with a manual clock and prints every transition, dispatch, refusal and restart as JSON Lines.
 * Exit 0 when it ran; 1 and `{"errors":[{path,message}]}` for an invalid scenario; 2 and one line on stderr when
 * the scenario or the database cannot be used (`--db` must be a new file in an existing folder, an empty file or
 * an SQLite database without routes).
 */
export function registerSimulateCommand(program: Command): void {
  program
    .command('simulate')
    .description('run a scripted failure scenario through the durable route engine and print what it does')
    .argument('<scenario>', 'scenario JSON file, or - for standard input')
    .option('--db <file>', 'keep the SQLite database here (a new or empty one); default: a temporary file')
    .action(async (file: string, flags: { db?: string }) => {
      process.exitCode = await simulate(file, flags.db);
    });
}

async function simulate(file: string, db: string | undefined): Promise<number> {
  const read = await readJsonFile(file);
  if (!read.ok) {
    process.stderr.write(`recourse simulate: ${read.message}\n`);
    return 2;
  }
  const checked = readScenario(read.value);
  if (!checked.ok) {
    process.stdout.write(`${escapeControlsInJson(JSON.stringify({ errors: checked.issues }))}\n`);
    return 1;
  }
  const refused = db === undefined ? null : await checkDatabasePath(db);
  if (refused !== null) {
    process.stderr.write(`recourse simulate: ${refused}\n`);
    return 2;
  }
  const folder = db === undefined ? await mkdtemp(join(tmpdir(), 'recourse-simulate-')) : null;
  // Resolved, so that a file named `:memory:` is that file and not SQLite's in-memory database.
  const dbFile = db === undefined ? join(folder!, 'simulate.db') : resolve(db);
  try {
    if (db !== undefined && (await holdsRoutes(dbFile))) {
      process.stderr.write(
        `recourse simulate: --db ${nameOf(db)} already holds routes; give a new or empty database\n`,
      );
      return 2;
    }
    await runSimulation(checked.scenario, dbFile, (line) =>
      process.stdout.write(`${escapeControlsInJson(JSON.stringify(line))}\n`),
    );
    return 0;
  } catch (error) {
    process.stderr.write(`recourse simulate: ${escapeControlCharacters((error as Error).message)}\n`);
    return 2;
  } finally {
    if (folder !== null) await rm(folder, { recursive: true, force: true });
  }
}

/** The first 16 bytes of every SQLite database file. */
const sqliteHeader = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Why `--db FILE` cannot hold the database, in one line, or null when it can: a new file in an existing folder,
 * an empty file, or an SQLite database. Checked before SQLite opens anything, which would create missing
 * folders and write a journal next to a file that is not a database.
 */
async function checkDatabasePath(db: string): Promise<string | null> {
  if (db === '') return '--db needs a file name';
  const name = `--db ${nameOf(db)}`;
  const kind = await inspectPath(db);
  if (kind === 'missing') {
    // resolve() would drop the slash and create a file where the user named a folder.
    if (db.endsWith('/')) return `${name} cannot be created: a file name cannot end with /`;
    const folder = dirname(resolve(db));
    const parent = await inspectPath(folder);
    if (parent === 'directory') return null;
    const why =
      parent === 'missing'
        ? `folder ${nameOf(folder)} does not exist`
        : typeof parent === 'object'
          ? parent.unreadable
          : `${nameOf(folder)} is not a folder`;
    return `${name} cannot be created: ${why}`;
  }
  if (kind === 'directory') return `${name} is a directory`;
  if (kind === 'other') return `${name} is not a regular file`;
  if (typeof kind === 'object') return `${name} cannot be read: ${kind.unreadable}`;
  try {
    const header = await readHeader(db);
    if (header === null) return `${name} is not a regular file`;
    return header.length === 0 || header.equals(sqliteHeader) ? null : `${name} is not an SQLite database`;
  } catch (error) {
    return `${name} cannot be read: ${reasonOf(error)}`;
  }
}

/** Up to the first 16 bytes of FILE; null when what was opened is not a regular file (never blocks on a FIFO). */
async function readHeader(file: string): Promise<Buffer | null> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) return null;
    const buffer = Buffer.alloc(sqliteHeader.length);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function holdsRoutes(file: string): Promise<boolean> {
  try {
    await access(file);
  } catch {
    return false;
  }
  const store = openSqliteStore({ file });
  try {
    await store.migrate();
    const counts = await store.countRoutes();
    return Object.values(counts).some((n) => n > 0);
  } finally {
    await store.close();
  }
}
