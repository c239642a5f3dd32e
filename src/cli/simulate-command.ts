import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { readJsonFile } from './read-json-file.js';
import { readScenario } from './simulate/scenario.js';
import { runSimulation } from './simulate/run-simulation.js';
import { openSqliteStore } from '../store/index.js';
import { escapeControlCharacters, escapeControlsInJson } from '../core/text/escape-controls.js';

/**
 * `recourse simulate SCENARIO.json [--db FILE]`: runs a scripted scenario through the real engine and a real
 * SQLite store with a manual clock and prints every transition, dispatch, refusal and restart as JSON Lines.
 * Exit 0 when it ran; 1 and `{"errors":[{path,message}]}` for an invalid scenario; 2 when the scenario or the
 * database cannot be used.
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
  const folder = db === undefined ? await mkdtemp(join(tmpdir(), 'recourse-simulate-')) : null;
  const dbFile = db ?? join(folder!, 'simulate.db');
  try {
    if (db !== undefined && (await holdsRoutes(dbFile))) {
      process.stderr.write(
        `recourse simulate: ${escapeControlCharacters(dbFile)} already holds routes; give a new or empty database\n`,
      );
      return 2;
    }
    await runSimulation(checked.scenario, dbFile, (line) =>
      process.stdout.write(`${JSON.stringify(line)}\n`),
    );
    return 0;
  } catch (error) {
    process.stderr.write(`recourse simulate: ${escapeControlCharacters((error as Error).message)}\n`);
    return 2;
  } finally {
    if (folder !== null) await rm(folder, { recursive: true, force: true });
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
