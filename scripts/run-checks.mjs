// The static checks `npm test` runs before vitest: the npm scripts `lint` (ESLint, knip, import cycles), `typecheck`
// and `format:check`, two at a time. Each is one single-threaded process, so on two cores two side by side take
// about the time of the longest lane instead of the sum (none writes a file: every tsc run is --noEmit or noEmit).
// Each script's output is printed whole once it ends, so two never interleave; every script runs to its end and the
// exit code is 1 when any failed, so one run reports every check's problems.
import { spawn } from 'node:child_process';

/** Longest first (about two minutes of CPU for lint, under two for typecheck), so the two lanes end together. */
const scripts = ['lint', 'typecheck', 'format:check'];
const lanes = 2;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs `npm run <script>`; resolves with whether it passed, after printing its output. */
function run(script) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(npm, ['run', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      const verdict = code === 0 ? 'passed' : `FAILED (${signal ?? `exit code ${String(code)}`})`;
      process.stdout.write(Buffer.concat(output));
      process.stdout.write(`\nnpm run ${script}: ${verdict} in ${seconds} s\n\n`);
      resolve(code === 0);
    });
  });
}

const queue = [...scripts];
let failed = 0;
async function lane() {
  for (let script = queue.shift(); script !== undefined; script = queue.shift()) {
    if (!(await run(script))) failed++;
  }
}
await Promise.all(Array.from({ length: lanes }, lane));
process.exitCode = failed === 0 ? 0 : 1;
