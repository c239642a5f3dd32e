import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedAgent } from '../acp/acp-harness.js';
import { until } from '../helpers/until.js';
import { freshFolders, rawControls, runCliAsync, startCli } from './run-cli.js';

// `recourse run` against agents that misbehave and users who interrupt it: the built CLI in its own process, its
// candidates real scripted ACP agents over real stdio pipes, its state a real SQLite file in a fresh folder.

const folder = freshFolders('recourse-run-signals-');

const off = { enabled: false };

/**
 * A one-candidate profile whose agent is the scripted agent playing `scenario`; failures stop for a person, or with
 * `retrySeconds`, a transient failure is retried once after that many seconds.
 */
function writeProfile(dir: string, scenario: readonly string[], retrySeconds?: number): string {
  const file = join(dir, 'profile.json');
  const retry =
    retrySeconds === undefined
      ? off
      : { enabled: true, max_retries: 1, initial_interval_seconds: retrySeconds };
  const policy = {
    version: 1,
    transient: { retry, wait_for_reset: off, on_exhausted: 'stop' },
    hard: { retry: off, wait_for_reset: off, on_exhausted: 'stop' },
  };
  const launch = { command: process.execPath, args: [scriptedAgent, ...scenario], inherit_env: ['PATH'] };
  writeFileSync(
    file,
    JSON.stringify({
      id: 'fleet',
      name: 'Fleet',
      candidates: [{ profile_id: 'agent', provider: 'anthropic', policy, launch }],
    }),
  );
  return file;
}

/** Whether a process still runs (a zombie waiting for a parent to reap it counts as gone). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Launches the `counted` agent recorded in its state file. */
function launches(stateFile: string): number {
  return existsSync(stateFile) ? readFileSync(stateFile, 'utf8').split('\n').filter(Boolean).length : 0;
}

/** Whether process `pid` has `file` open. */
function opens(pid: number, file: string): boolean {
  const path = realpathSync(file);
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

async function agentPid(pidFile: string): Promise<number> {
  await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '');
  return Number(readFileSync(pidFile, 'utf8'));
}

describe('recourse run: signals and misbehaving agents', () => {
  it('[OUT-01] Ctrl-C while the agent is still starting (it never answers initialize) ends its process group and stops the route as cancelled: exit 130, no agent left, the next run exits 4', async () => {
    const dir = folder();
    const pidFile = join(dir, 'agent.pid');
    const profile = writeProfile(dir, ['silent', pidFile]);
    const run = startCli(['run', '--profile', profile, '--session', 'starting', '--cwd', dir, 'fix it']);
    run.process.stdin.end();
    const pid = await agentPid(pidFile);
    await run.waitFor((_, err) => err.includes('sending the prompt to agent'));
    run.process.kill('SIGINT');
    // One Ctrl-C is enough: the agent ignores SIGTERM, so it is ended with SIGKILL after its grace.
    expect(await run.exited).toBe(130);
    expect(running(pid)).toBe(false);
    expect(run.stderr()).toContain('session starting: action_required');

    const after = await runCliAsync(['run', '--profile', profile, '--session', 'starting', '--cwd', dir]);
    expect(after.status).toBe(4);
    expect(after.stderr).toContain('[recourse] session starting already finished: action_required');
  });

  it.each([
    ['SIGTERM', 'a supervisor, timeout, a CI job ending', 143],
    ['SIGHUP', 'the terminal closed', 129],
  ] as const)(
    '[OUT-01] %s (%s) during an open prompt is handled as Ctrl-C: session/cancel, the route stops as cancelled, exit %i; the next run exits 4',
    async (signal, _why, exit) => {
      const dir = folder();
      const profile = writeProfile(dir, ['hang']);
      const run = startCli(['run', '--profile', profile, '--session', 'signalled', '--cwd', dir, 'fix it']);
      run.process.stdin.end();
      await run.waitFor((out) => out.includes('working on it'));
      run.process.kill(signal);
      expect(await run.exited).toBe(exit);
      expect(run.stderr()).toContain('[recourse] interrupted: cancelling the open prompt (session/cancel)');

      // Not an orphaned attempt (exit 3): the cancel was recorded.
      const after = await runCliAsync(['run', '--profile', profile, '--session', 'signalled', '--cwd', dir]);
      expect(after.status).toBe(4);
    },
  );

  it('a second Ctrl-C exits at once and leaves no agent behind, though the agent ignores session/cancel and SIGTERM', async () => {
    const dir = folder();
    const pidFile = join(dir, 'agent.pid');
    const profile = writeProfile(dir, ['deaf', pidFile]);
    const run = startCli(['run', '--profile', profile, '--session', 'deaf', '--cwd', dir, 'fix it']);
    run.process.stdin.end();
    const pid = await agentPid(pidFile);
    await run.waitFor((out) => out.includes('not listening'));
    run.process.kill('SIGINT');
    await run.waitFor((_, err) => err.includes('interrupted: cancelling the open prompt'));
    run.process.kill('SIGINT');
    expect(await run.exited).toBe(130);
    await until(() => !running(pid));
  });

  it('--db naming a folder or a file that is not a database exits 2 with one line, and leaves the file as it was', async () => {
    const dir = folder();
    const profile = writeProfile(dir, ['success']);
    const before = readFileSync(profile, 'utf8');
    const folderDb = join(dir, 'db-folder');
    mkdirSync(folderDb);
    for (const db of [folderDb, profile]) {
      const run = await runCliAsync(['run', '--profile', profile, '--cwd', dir, '--db', db, 'x']);
      expect(run.status).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^recourse run: .*(is a directory|not a database)/);
    }
    expect(readFileSync(profile, 'utf8')).toBe(before);
  });

  it('[DUR-05] Ctrl-C in a wait, in a folder whose name has terminal controls and quotes: the resume command shows none raw, and bash reads it back to the same paths', async () => {
    const dir = join(folder(), "evil\u001b[31m\u202edir 'q\\z");
    mkdirSync(dir);
    const profile = writeProfile(dir, ['capacity_error'], 60);
    const run = startCli(['run', '--profile', profile, '--session', 'w', '--cwd', dir, 'fix it']);
    run.process.stdin.end();
    await run.waitFor((_, err) => err.includes(' s left (until '));
    run.process.kill('SIGINT');
    expect(await run.exited).toBe(130);
    const err = run.stderr();
    expect(rawControls(err)).toEqual([]);
    const command = err.slice(err.indexOf('resume it with:\n') + 'resume it with:\n'.length).trim();
    expect(command).toMatch(/^recourse run --profile \$'/);
    // The shell turns the printed words back into the very paths.
    const words = spawnSync('bash', ['-c', `printf '%s\\0' ${command.slice('recourse run '.length)}`], {
      encoding: 'utf8',
    }).stdout.split('\0');
    expect(words.slice(0, 6)).toEqual(['--profile', profile, '--session', 'w', '--cwd', dir]);
  });

  it('[DUR-05] Ctrl-C as the turn fails: whether the cancel or the failure lands first, no retry is sent after the interrupt (a wait entered meanwhile is kept)', async () => {
    const dir = folder();
    const stateFile = join(dir, 'launches');
    const profile = writeProfile(dir, ['counted', '1', stateFile, 'capacity'], 2);
    // The agent fails the prompt as soon as it gets it: interrupts at a few instants around that failure, each in
    // a fresh session (the agent's launch count is shared: each session fails once, the first launch overall).
    for (const [i, delayMs] of [0, 30].entries()) {
      rmSync(stateFile, { force: true });
      const run = startCli(['run', '--profile', profile, '--session', `race-${i}`, '--cwd', dir, 'fix it']);
      run.process.stdin.end();
      await until(() => existsSync(stateFile));
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      run.process.kill('SIGINT');
      expect(await run.exited).toBe(130);
      // Past the retry's 2 s: nothing may have sent it.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(readFileSync(stateFile, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
      expect(run.stderr()).toMatch(/the wait stays stored|action_required/);
    }
  });

  it('[DUR-05] Ctrl-C as a resume opens its database (a wait whose deadline passed is sent at once): handled as every Ctrl-C, exit 130, never death by the signal', async () => {
    const dir = folder();
    const stateFile = join(dir, 'launches');
    const profile = writeProfile(dir, ['counted', '1', stateFile, 'capacity'], 1);
    const first = startCli(['run', '--profile', profile, '--session', 'early', '--cwd', dir, 'fix it']);
    first.process.stdin.end();
    await first.waitFor((_, err) => err.includes(' s left (until '));
    first.process.kill('SIGINT');
    expect(await first.exited).toBe(130);
    // Past the retry's deadline: the resume sends it while Recourse opens, after saying so.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const resume = startCli(['run', '--profile', profile, '--session', 'early', '--cwd', dir]);
    resume.process.stdin.end();
    await resume.waitFor((_, err) => err.includes('resuming session early'));
    resume.process.kill('SIGINT');
    // Death by the signal closes with no exit code (null); a handled Ctrl-C exits 130.
    expect(await resume.exited).toBe(130);
  });

  it("[DUR-05] Ctrl-C while a new session starts (saving its profile waits for another process's write lock): the route is not started, nothing is sent, exit 130, and no wait is said to be stored", async () => {
    const dir = folder();
    const stateFile = join(dir, 'launches');
    const database = join(dir, 'run.db');
    const profile = writeProfile(dir, ['counted', '0', stateFile]);
    const session = (id: string) => [
      'run',
      '--profile',
      profile,
      '--session',
      id,
      '--db',
      database,
      '--cwd',
      dir,
    ];
    const made = await runCliAsync([...session('made'), 'hi']);
    expect(made.status).toBe(0);
    expect(launches(stateFile)).toBe(1);
    // The profile changed (a retry now), so the new session's run writes it before it starts the route, and waits
    // for the lock (busy_timeout) there: every signal from the database's opening on comes before the route starts.
    writeProfile(dir, ['counted', '0', stateFile], 1);
    const holder = new Database(database);
    holder.exec('BEGIN IMMEDIATE');
    const run = startCli([...session('fresh'), 'fix it']);
    run.process.stdin.end();
    try {
      await until(() => opens(run.process.pid!, database));
      run.process.kill('SIGINT');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(await run.exited).toBe(130);
    expect(run.stderr()).toContain('interrupted before session fresh started: nothing was sent');
    expect(run.stderr()).not.toContain('the wait stays stored');
    expect(launches(stateFile)).toBe(1);
    const after = await runCliAsync(session('fresh'));
    expect(after.status).toBe(2);
    expect(after.stderr).toContain('no session fresh: give a PROMPT to start it');
  });

  it('a JSON-RPC response to a request never made, its id full of terminal controls, never reaches the terminal raw', async () => {
    const dir = folder();
    const profile = writeProfile(dir, ['stray']);
    const run = await runCliAsync(['run', '--profile', profile, '--cwd', dir, 'x']);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('fine\n');
    expect(rawControls(run.stderr)).toEqual([]);
  });
});
