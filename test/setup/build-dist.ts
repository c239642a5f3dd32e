import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Vitest global setup: builds `dist/` as `npm run build` does (the compiled server and CLI with `tsc -p
 * tsconfig.build.json`, then the web UI into `dist/web/` with Vite) once, before any test file runs, so the tests
 * that run the built CLI, engine processes or the page in Chromium never test a stale build, however vitest was
 * started. A failed build throws with the tool's output, which fails the whole run.
 */
export default async function buildDist(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (compiled.status !== 0) {
    const why =
      compiled.error?.message ?? `exit code ${String(compiled.status)}, signal ${String(compiled.signal)}`;
    throw new Error(
      `building dist/ failed (tsc -p tsconfig.build.json: ${why})\n${compiled.stdout}${compiled.stderr}`,
    );
  }
  await build({ configFile: `${root}web/vite.config.ts`, logLevel: 'error' });
}
