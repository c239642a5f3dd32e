import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, beforeAll } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

/** Each probe file's lint messages, as `ruleId: message` (undefined for a name that was not a probe). */
export interface ProbeMessages {
  get(file: string): string[] | undefined;
}

/**
 * Registers hooks that write `probes` (file name -> source) into a folder of their own under `folder` (relative to
 * the repository root, so the project's lint configuration for that place applies), lint them with that
 * configuration once before the tests, and remove the folder after. A lint test then asserts that its bans fire.
 */
export function useLintProbes(folder: string, probes: Readonly<Record<string, string>>): ProbeMessages {
  // The process id keeps two runs at once in one checkout out of each other's folder.
  const probeDir = join(root, folder, `__lint_probe_${process.pid}__`);
  let messages = new Map<string, string[]>();
  beforeAll(async () => {
    mkdirSync(probeDir, { recursive: true });
    for (const [name, code] of Object.entries(probes)) writeFileSync(join(probeDir, name), code);
    const results = await new ESLint({ cwd: root }).lintFiles(
      Object.keys(probes).map((name) => join(probeDir, name)),
    );
    messages = new Map(
      results.map((r) => [r.filePath.split('/').pop()!, r.messages.map((m) => `${m.ruleId}: ${m.message}`)]),
    );
  }, 120_000);
  afterAll(() => rmSync(probeDir, { recursive: true, force: true }));
  return { get: (file) => messages.get(file) };
}
