#!/usr/bin/env node
// The web UI tests drive Debian's Chromium (never a downloaded browser). `npm test` runs this first: with the
// browser present it says which; without it, as root on Debian it installs the package, otherwise it says how.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const path = process.env.RECOURSE_CHROMIUM ?? '/usr/bin/chromium';

function version() {
  const run = spawnSync(path, ['--version'], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : null;
}

if (existsSync(path) && version() !== null) {
  console.log(`browser tests use ${version()} (${path})`);
  process.exit(0);
}
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const aptGet = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
if (!root || !aptGet || process.env.RECOURSE_CHROMIUM !== undefined) {
  console.error(
    `The web UI tests need Chromium at ${path}. On Debian or Ubuntu: sudo apt-get install -y chromium ` +
      '(or set RECOURSE_CHROMIUM to a Chromium binary).',
  );
  process.exit(1);
}
console.log("installing Debian's chromium for the browser tests (apt-get)");
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
console.log(`browser tests use ${version()} (${path})`);
