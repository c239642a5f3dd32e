import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

const cli = new URL('../../dist/cli/main.js', import.meta.url).pathname;

const result = (r: { status: number | null; stdout: string; stderr: string }) => ({
  status: r.status,
  stdout: r.stdout,
  stderr: r.stderr,
  lines: r.stdout.split('\n').filter((l) => l !== ''),
});

/** Runs the built `recourse` CLI (the test run's global setup builds dist/ first) with optional standard input. */
export function runCli(
  args: string[],
  input?: string | Buffer,
  { timeoutMs = 60_000, cwd }: { readonly timeoutMs?: number; readonly cwd?: string } = {},
) {
  return result(
    spawnSync(process.execPath, [cli, ...args], { input, cwd, encoding: 'utf8', timeout: timeoutMs }),
  );
}

/**
 * Runs the CLI with standard input closed (`<&-`) or redirected from a path (a directory, say): cases spawn
 * cannot express. Paths and arguments reach `sh` as positional parameters, never parsed by it.
 */
export function runCliWithStdin(stdin: 'closed' | { readonly from: string }, args: string[]) {
  const script =
    stdin === 'closed'
      ? 'node=$1; shift; exec "$node" "$@" <&-'
      : 'stdin=$1; node=$2; shift 2; exec "$node" "$@" < "$stdin"';
  const prefix = stdin === 'closed' ? [] : [stdin.from];
  return result(
    spawnSync('sh', ['-c', script, 'sh', ...prefix, process.execPath, cli, ...args], {
      encoding: 'utf8',
      timeout: 60_000,
    }),
  );
}

const unsafe =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Terminal-unsafe characters that reached the output raw: controls (but tab and newline), bidi controls, separators. */
export function rawControls(text: string): string[] {
  return text.match(unsafe) ?? [];
}

export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly lines: string[];
}

/**
 * Runs the built CLI without blocking this process: a test that serves the HTTP API in process must keep its event
 * loop free while the CLI talks to it. `env` replaces the RECOURSE_* variables of this process.
 */
export function runCliAsync(
  args: string[],
  env: Readonly<Record<string, string>> = {},
  { timeoutMs = 60_000, input }: { readonly timeoutMs?: number; readonly input?: string } = {},
): Promise<CliRun> {
  const child = startCli(args, env);
  if (input !== undefined) child.process.stdin.end(input);
  else child.process.stdin.end();
  const timer = setTimeout(() => child.process.kill('SIGKILL'), timeoutMs);
  return child.exited.then((status) => {
    clearTimeout(timer);
    return { status, stdout: child.stdout(), stderr: child.stderr(), lines: child.lines() };
  });
}

/** A CLI process left running (`recourse events`): its output so far, a wait for a line, and its exit. */
export function startCli(args: string[], env: Readonly<Record<string, string>> = {}) {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('RECOURSE_') && key !== 'NO_COLOR'),
  );
  const child = spawn(process.execPath, [cli, ...args], { env: { ...inherited, ...env } });
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    wake();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const lines = () => stdout.split('\n').filter((l) => l !== '');
  return {
    process: child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    lines,
    /** Resolves when `test` holds for (stdout, stderr); rejects after `timeoutMs` with what was printed. */
    waitFor(test: (stdout: string, stderr: string) => boolean, timeoutMs = 20_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!test(stdout, stderr)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out; stdout:\n${stdout}\nstderr:\n${stderr}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

/**
 * Runs the built CLI without blocking this process (a server in the same test must answer it: spawnSync would
 * stall the event loop it runs on). `env` replaces the environment entirely, so nothing of the caller's leaks in.
 */
export function runCliInEnv(args: string[], env: Readonly<Record<string, string>> = {}) {
  return new Promise<ReturnType<typeof result>>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve(result({ status, stdout, stderr })));
  });
}

/** The text rows of a boxed panel (`recourse errors`): the frame's top and bottom lines and side borders taken off. */
export function panelRows(lines: readonly string[]): string[] {
  return lines.slice(1, -1).map((l) => l.slice(2, -2).trimEnd());
}

/** A fresh folder per call, under the system's temporary folder, each removed after the test that made it. */
export function freshFolders(prefix: string): () => string {
  const folders: string[] = [];
  afterEach(() => {
    for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    folders.push(dir);
    return dir;
  };
}
