import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Vitest global setup: compiles `dist/` (`tsc -p tsconfig.build.json`, as `npm run build`) once, before any test
 * file runs, so the tests that run the built CLI or engine processes never test a stale build, however vitest was
 * started. A failed build throws with the compiler's output, which fails the whole run.
 */
export default function buildDist(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (build.status !== 0) {
    const why = build.error?.message ?? `exit code ${String(build.status)}, signal ${String(build.signal)}`;
    throw new Error(
      `building dist/ failed (tsc -p tsconfig.build.json: ${why})\n${build.stdout}${build.stderr}`,
    );
  }
}
