import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `examples/embed` as a new user meets it: the package packed with `npm pack`, installed from the tarball into a
 * fresh folder (its SQLite driver built there, no link to this repository), the example type-checked against
 * the installed declarations and run on the real clock, then killed during its waits and restarted. The fake
 * provider logs every call it receives, so a retry that fired twice, or one that was lost, shows up as a count.
 */
const root = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'recourse-embed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(command: string, args: string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

beforeAll(() => {
  // dist/ is fresh: the suite's global setup built it. Packing must not rebuild it under running tests.
  const [packed] = JSON.parse(
    run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], root),
  ) as Array<{ filename: string }>;
  for (const entry of ['package.json', 'tsconfig.json', 'README.md', 'src']) {
    cpSync(join(root, 'examples/embed', entry), join(dir, entry), { recursive: true });
  }
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${packed!.filename}`], dir);
}, 900_000);

interface Call {
  readonly model: string;
  readonly attempt: string;
  readonly call: number;
  readonly status: number;
}

const callsOf = (data: string): Call[] => {
  const file = join(data, 'provider-calls.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Call);
};

/** One run of the compiled orchestrator; `until` sees each stdout line and may stop the process with a signal. */
function orchestrate(
  data: string,
  until?: (line: string, child: ChildProcess) => void,
  env: Record<string, string> = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['dist/orchestrator.js', data], {
      cwd: dir,
      env: { ...process.env, ...env },
    });
    let out = '';
    let pending = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) until?.(line, child);
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('exit', (code, signal) => done({ code, signal, out }));
  });
}

const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern, 'g'))?.length ?? 0;

describe('examples/embed, installed from the packed tarball', () => {
  it('installs as a package (no link to the repository), with docs/ shipped, and type-checks against it', () => {
    const installed = join(dir, 'node_modules/recourse');
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(existsSync(join(installed, 'docs/embedding.md'))).toBe(true);
    expect(existsSync(join(installed, 'dist/index.d.ts'))).toBe(true);
    run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], dir);
    expect(existsSync(join(dir, 'dist/orchestrator.js'))).toBe(true);
  }, 300_000);

  it('[DUR-01][DUR-05] survives kill -9 in a backoff wait and SIGINT in a reset wait: each pending retry fires exactly once', async () => {
    const data = join(dir, 'data-waits');

    // 1. 529, retry at 2 s; 529, retry 2 at 4 s: killed without warning inside that wait.
    const first = await orchestrate(data, (line, child) => {
      if (/-> retry_wait .*retry 2 of 3/.test(line)) child.kill('SIGKILL');
    });
    expect(first.signal).toBe('SIGKILL');
    expect(callsOf(data).map((c) => c.status)).toEqual([529, 529]);

    // 2. The restart arms the stored wait; retry 2 fires once, gets the 429 with Retry-After: 5, and the route
    //    waits for the reset (the hint honoured, not the 8 s backoff). Ctrl-C inside that wait closes gracefully.
    const second = await orchestrate(data, (line, child) => {
      if (/-> waiting_for_reset /.test(line)) child.kill('SIGINT');
    });
    expect(second.out).toContain('restart reconciliation: 1 wait(s) armed again');
    expect(second.out).toContain('task fix-the-build found: retry_wait on primary (waiting)');
    expect(count(second.out, /retry attempt on primary/)).toBe(1);
    expect(second.out).toMatch(/SIGINT: closing; pending waits are stored/);
    expect(second.code).toBe(130);
    expect(callsOf(data).map((c) => c.status)).toEqual([529, 529, 429]);

    // 3. The reset wait is armed again and its one retry succeeds.
    const third = await orchestrate(data);
    expect(third.code).toBe(0);
    expect(third.out).toContain('restart reconciliation: 1 wait(s) armed again');
    expect(count(third.out, /reset_retry attempt on primary/)).toBe(1);
    expect(third.out).toContain('task fix-the-build succeeded on primary');
    const calls = callsOf(data);
    expect(calls.map((c) => `${c.model}#${c.call}=${c.status}`)).toEqual([
      'claude-sonnet-4-5#1=529',
      'claude-sonnet-4-5#2=529',
      'claude-sonnet-4-5#3=429',
      'claude-sonnet-4-5#4=200',
    ]);
    expect(new Set(calls.map((c) => c.attempt)).size).toBe(4);

    // 4. Run again: the task is found finished; nothing is sent.
    const fourth = await orchestrate(data);
    expect(fourth.code).toBe(0);
    expect(fourth.out).toContain('task fix-the-build found: active on primary (succeeded)');
    expect(callsOf(data)).toHaveLength(4);
  }, 300_000);

  it('[OUT-01] an attempt cut off by kill -9 is reported orphaned; the orchestrator sends it again under a new id', async () => {
    const data = join(dir, 'data-orphan');
    const first = await orchestrate(
      data,
      (line, child) => {
        if (!/initial attempt on primary/.test(line)) return;
        // Killed once the provider has the call and before it answers.
        const poll = setInterval(() => {
          if (callsOf(data).length === 0) return;
          clearInterval(poll);
          child.kill('SIGKILL');
        }, 20);
      },
      { EMBED_PROVIDER_DELAY_MS: '60000' },
    );
    expect(first.signal).toBe('SIGKILL');
    expect(callsOf(data)).toHaveLength(1);

    const second = await orchestrate(data);
    expect(second.out).toContain('1 attempt(s) orphaned');
    expect(second.out).toContain('the initial attempt on primary was cut off by the crash: sent again');
    expect(count(second.out, /manual attempt on primary/)).toBe(1);
    expect(second.code).toBe(0);
    const calls = callsOf(data);
    // The cut-off call used up the first 529 of the script; the manual attempt and what follows are new ids.
    expect(calls.map((c) => c.status)).toEqual([529, 529, 429, 200]);
    expect(new Set(calls.map((c) => c.attempt)).size).toBe(4);
  }, 300_000);
});
