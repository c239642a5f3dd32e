import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Vitest global setup: builds `dist/` as `npm run build` does (the compiled server and CLI with `tsc -p
 * tsconfig.build.json`, the catalogue's gates prepared into it by `scripts/build-prepared-gates.mjs`, then the web UI
 * into `dist/web/` with Vite) once, before any test file runs, so the tests that run the built CLI, engine processes
 * or the page in Chromium never test a stale build, however vitest was started. A failed build throws with the
 * tool's output, which fails the whole run.
 */
export default async function buildDist(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  run('tsc -p tsconfig.build.json', [tsc, '-p', 'tsconfig.build.json']);
  run('scripts/build-prepared-gates.mjs', ['scripts/build-prepared-gates.mjs']);
  await build({ configFile: `${root}web/vite.config.ts`, logLevel: 'error' });
}

/** Runs one step of the build with Node in the repository's root; throws with its output when it fails. */
function run(step: string, args: string[]): void {
  const child = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  if (child.status !== 0) {
    const why = child.error?.message ?? `exit code ${String(child.status)}, signal ${String(child.signal)}`;
    throw new Error(`building dist/ failed (${step}: ${why})\n${child.stdout}${child.stderr}`);
  }
}
