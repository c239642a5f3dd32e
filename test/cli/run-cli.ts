import { spawnSync } from 'node:child_process';

const cli = new URL('../../dist/cli/main.js', import.meta.url).pathname;

/** Runs the built `recourse` CLI (the test run's global setup builds dist/ first) with optional standard input. */
export function runCli(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [cli, ...args], { input, encoding: 'utf8', timeout: 60_000 });
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    lines: r.stdout.split('\n').filter((l) => l !== ''),
  };
}
