import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedAgent } from '../acp/acp-harness.js';
import { until } from '../helpers/until.js';
import { freshFolders, runCliAsync, startCli } from './run-cli.js';

// `recourse run` end to end: the built CLI in its own process, its candidates real scripted ACP agents (a test
// fixture over real stdio pipes), its state a real SQLite file in a fresh folder per test.

const folder = freshFolders('recourse-run-');

const noRetry = { enabled: false };
const noWait = { enabled: false };

function policy(retries: number, intervalSeconds: number, onExhausted: 'skip' | 'stop') {
  return {
    version: 1,
    transient: {
      retry:
        retries > 0
          ? { enabled: true, max_retries: retries, initial_interval_seconds: intervalSeconds }
          : noRetry,
      wait_for_reset: noWait,
      on_exhausted: onExhausted,
    },
    hard: { retry: noRetry, wait_for_reset: noWait, on_exhausted: 'stop' },
  };
}

/** A candidate launching the scripted agent with `scenario` (its arguments separated by spaces). */
function candidate(id: string, scenario: string, fields: Record<string, unknown> = {}, launch = {}) {
  return {
    profile_id: id,
    provider: 'anthropic',
    policy: policy(0, 0, 'skip'),
    ...fields,
    launch: {
      command: process.execPath,
      args: [scriptedAgent, ...scenario.split(' ')],
      inherit_env: ['PATH'],
      ...launch,
    },
  };
}

function writeProfile(dir: string, candidates: readonly unknown[]): string {
  const file = join(dir, 'profile.json');
  writeFileSync(file, JSON.stringify({ id: 'fleet', name: 'Fleet', candidates }));
  return file;
}

/** How many agents the `counted` scenario launched (one per dispatch). */
function launches(stateFile: string): number {
  return existsSync(stateFile) ? readFileSync(stateFile, 'utf8').split('\n').filter(Boolean).length : 0;
}

describe('recourse run', () => {
  it('a prompt that succeeds streams the agent output on stdout, progress on stderr, and exits 0', async () => {
    const dir = folder();
    const profile = writeProfile(dir, [candidate('claude', 'success')]);
    const run = await runCliAsync(['run', '--profile', profile, '--cwd', dir, 'fix the build']);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('Hello from the scripted agent.\n');
    expect(run.stderr).toMatch(/^\[recourse\] session [0-9a-f-]{36}: profile fleet, candidate claude$/m);
    expect(run.stderr).toContain('[recourse] sending the prompt to claude (first attempt)');
    expect(run.stderr).toMatch(/\[recourse\] session [0-9a-f-]{36}: succeeded on claude\n$/);
    // The default store is .recourse/recourse.db under --cwd.
    expect(existsSync(join(dir, '.recourse', 'recourse.db'))).toBe(true);
  });

  it('an answer cut short (max_tokens) or refused (refusal) counts as answered (exit 0) and says so, so it is not taken for a whole answer', async () => {
    const dir = folder();
    const cut = await runCliAsync([
      'run',
      '--profile',
      writeProfile(dir, [candidate('claude', 'max_tokens')]),
      '--cwd',
      dir,
      'write a long essay',
    ]);
    expect(cut.status).toBe(0);
    expect(cut.stdout).toBe('The first half of an answer\n');
    expect(cut.stderr).toContain(
      "[recourse] the answer stopped at the agent's output token limit (max_tokens): it may be cut short\n",
    );
    const other = folder();
    const refused = await runCliAsync([
      'run',
      '--profile',
      writeProfile(other, [candidate('claude', 'refusal')]),
      '--cwd',
      other,
      'do something',
    ]);
    expect(refused.status).toBe(0);
    expect(refused.stderr).toContain('[recourse] the agent refused to go on with this prompt (refusal)\n');
    // A plain end of turn says nothing more.
    const plain = folder();
    const whole = await runCliAsync([
      'run',
      '--profile',
      writeProfile(plain, [candidate('claude', 'success')]),
      '--cwd',
      plain,
      'hi',
    ]);
    expect(whole.stderr).not.toMatch(/stop reason|max_tokens|refusal/);
  });

  it('[EVL-04][RTE-03][RTE-08][DUR-01] a capacity failure then success retries after the policy delay and exits 0', async () => {
    const dir = folder();
    const state = join(dir, 'launches');
    const profile = writeProfile(dir, [
      candidate('claude', `counted 1 ${state} capacity`, { policy: policy(2, 1, 'stop') }),
    ]);
    const started = Date.now();
    const run = await runCliAsync(['run', '--profile', profile, '--cwd', dir, 'fix it']);
    const elapsedMs = Date.now() - started;
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('Hello from the scripted agent.\n');
    expect(run.stderr).toContain(
      '[recourse] claude failed: provider overloaded (provider_overloaded, transient, provider anthropic): retrying in 1 s (retry 1 of 2)',
    );
    expect(run.stderr).toContain('[recourse] sending the prompt to claude (retry)');
    expect(launches(state)).toBe(2);
    // The retry waited the policy's one second (a lower bound, not a time limit).
    expect(elapsedMs).toBeGreaterThanOrEqual(1_000);
  });

  it('[EVL-02][RTE-02][RTE-07] a rate limit with a reset hint waits for the reset, then sends once more and exits 0', async () => {
    const dir = folder();
    const state = join(dir, 'launches');
    const waitPolicy = {
      version: 1,
      transient: {
        retry: noRetry,
        wait_for_reset: { enabled: true, max_wait_seconds: 60 },
        on_exhausted: 'stop',
      },
      hard: { retry: noRetry, wait_for_reset: noWait, on_exhausted: 'stop' },
    };
    const profile = writeProfile(dir, [
      candidate('claude', `counted 1 ${state} reset`, { policy: waitPolicy }),
    ]);
    const run = await runCliAsync(['run', '--profile', profile, '--cwd', dir, 'fix it']);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(
      /claude failed: rate limited \(rate_limited, transient, provider anthropic\): waiting for the reset at \S+Z \([1-3] s\)/,
    );
    expect(run.stderr).toContain('[recourse] sending the prompt to claude (after the reset wait)');
    expect(run.stdout).toBe('Hello from the scripted agent.\n');
    expect(launches(state)).toBe(2);
  });

  it('[SAF-08][RTE-06][EVL-01] a failure after a tool call ends in action_required with no replay and exit 3', async () => {
    const dir = folder();
    const state = join(dir, 'launches');
    const profile = writeProfile(dir, [
      // Retries allowed and a second candidate ready: the gate overrides both.
      candidate('claude', `counted 1 ${state} after_tool`, { policy: policy(3, 1, 'skip') }),
      candidate('gemini', 'success'),
    ]);
    const run = await runCliAsync(['run', '--profile', profile, '--cwd', dir, 'edit the file']);
    expect(run.status).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('stopped: the route needs a person (unsafe: tool_activity)');
    expect(run.stderr).toMatch(
      /session [0-9a-f-]{36}: action_required \(unsafe: tool_activity\) on claude\n$/,
    );
    expect(launches(state)).toBe(1);
    expect(run.stderr).not.toContain('sending the prompt to gemini');
  });

  it('[RTE-04] two candidates: the first fails, the run switches to the second, which answers', async () => {
    const dir = folder();
    const profile = writeProfile(dir, [
      candidate('claude', 'capacity_error'),
      candidate('gemini', 'success', { provider: 'google' }),
    ]);
    const run = await runCliAsync(['run', '--profile', profile, '--cwd', dir, 'fix it']);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('Hello from the scripted agent.\n');
    expect(run.stderr).toContain(
      '[recourse] switching from claude to gemini because it failed: provider overloaded (provider_overloaded, transient, provider anthropic)',
    );
    expect(run.stderr).toContain('[recourse] sending the prompt to gemini (next candidate)');
    expect(run.stderr).toMatch(/succeeded on gemini\n$/);
  });

  it('[DUR-05][DUR-07][RTE-08] Ctrl-C during a wait exits 130 and prints the resume command; running it again continues the wait and dispatches once', async () => {
    const dir = folder();
    const state = join(dir, 'launches');
    const profile = writeProfile(dir, [
      // Eight seconds: the resume below must start before the stored deadline, also on a loaded machine.
      candidate('claude', `counted 1 ${state} capacity`, { policy: policy(1, 8, 'stop') }),
    ]);
    const first = startCli(['run', '--profile', profile, '--session', 'task-7', '--cwd', dir, 'fix it']);
    first.process.stdin.end();
    await first.waitFor((_, err) => err.includes('retrying in 8 s') && err.includes(' s left (until '));
    first.process.kill('SIGINT');
    expect(await first.exited).toBe(130);
    const resume = `recourse run --profile ${profile} --session task-7 --cwd ${dir}`;
    expect(first.stderr()).toContain(`interrupted: the wait stays stored; resume it with:\n  ${resume}\n`);
    expect(launches(state)).toBe(1);
    const deadline = /waiting: \d s left \(until (\S+)\)/.exec(first.stderr())?.[1];
    expect(deadline).toMatch(/^\d{4}-.*Z$/);

    const again = await runCliAsync(resume.split(' ').slice(1));
    expect(again.status).toBe(0);
    expect(again.stderr).toContain('[recourse] resuming session task-7: retry_wait on claude');
    // The wait continued to its stored deadline, not a new three seconds from now.
    expect(again.stderr).toMatch(
      new RegExp(`waiting: [0-8] s left \\(until ${deadline?.replace(/\./g, '\\.')}\\)`),
    );
    expect(again.stdout).toBe('Hello from the scripted agent.\n');
    expect(launches(state)).toBe(2);

    // Finished: a third run reports the final state and sends nothing.
    const done = await runCliAsync(resume.split(' ').slice(1));
    expect(done.status).toBe(0);
    expect(done.stderr).toContain('[recourse] session task-7 already finished: succeeded on claude');
    expect(launches(state)).toBe(2);
  });

  it('[DUR-05][DUR-07] a wait whose deadline passed while nothing ran: the resume says so before the retry it sends at once', async () => {
    const dir = folder();
    const state = join(dir, 'launches');
    const profile = writeProfile(dir, [
      candidate('claude', `counted 1 ${state} capacity`, { policy: policy(1, 1, 'stop') }),
    ]);
    const first = startCli(['run', '--profile', profile, '--session', 'late', '--cwd', dir, 'fix it']);
    first.process.stdin.end();
    await first.waitFor((_, err) => err.includes(' s left (until '));
    first.process.kill('SIGINT');
    expect(await first.exited).toBe(130);
    const deadlineMs = Date.parse(/ s left \(until (\S+)\)/.exec(first.stderr())?.[1] ?? '');
    await until(() => Date.now() > deadlineMs);

    const again = await runCliAsync(['run', '--profile', profile, '--session', 'late', '--cwd', dir]);
    expect(again.status).toBe(0);
    const resumed = again.stderr.indexOf('[recourse] resuming session late: retry_wait on claude');
    expect(resumed).toBeGreaterThanOrEqual(0);
    expect(resumed).toBeLessThan(again.stderr.indexOf('[recourse] sending the prompt to claude (retry)'));
    expect(launches(state)).toBe(2);
  });

  it('[DUR-05] a profile read from standard input (--profile -): the resume command says --profile -, not a file named - in the folder', async () => {
    const dir = folder();
    const profile = writeProfile(dir, [
      candidate('claude', 'capacity_error', { policy: policy(1, 30, 'stop') }),
    ]);
    const first = startCli(['run', '--profile', '-', '--session', 'piped', '--cwd', dir, 'fix it']);
    first.process.stdin.end(readFileSync(profile));
    await first.waitFor((_, err) => err.includes(' s left (until '));
    first.process.kill('SIGINT');
    expect(await first.exited).toBe(130);
    expect(first.stderr()).toContain(
      `resume it with:\n  recourse run --profile - --session piped --cwd ${dir}\n`,
    );
  });

  it('[OUT-01] Ctrl-C during an open prompt sends session/cancel (no failure was inferred from the silence) and exits 130; the session then reports cancelled with exit 4', async () => {
    const dir = folder();
    const profile = writeProfile(dir, [candidate('claude', 'hang', { policy: policy(2, 1, 'skip') })]);
    const run = startCli(['run', '--profile', profile, '--session', 'hung', '--cwd', dir, 'fix it']);
    run.process.stdin.end();
    await run.waitFor((out) => out.includes('working on it'));
    run.process.kill('SIGINT');
    expect(await run.exited).toBe(130);
    const err = run.stderr();
    expect(err).toContain('[recourse] interrupted: cancelling the open prompt (session/cancel)');
    // Nothing was decided while the prompt hung: the only failure line follows the cancel.
    expect(err.indexOf('failed:')).toBeGreaterThan(err.indexOf('interrupted'));
    expect(err).not.toContain('retrying');

    const after = await runCliAsync(['run', '--profile', profile, '--session', 'hung', '--cwd', dir]);
    expect(after.status).toBe(4);
    expect(after.stderr).toContain('[recourse] session hung already finished: action_required');
  });

  it('[DAT-13] a from_env secret reaches the agent at launch and never the output or the SQLite file', async () => {
    const dir = folder();
    const secret = 'expected-secret';
    const profile = writeProfile(dir, [
      candidate(
        'claude',
        'success',
        {},
        { env: { SCRIPTED_AGENT_KEY: { from_env: 'MY_AGENT_KEY' } }, auth_method: 'scripted-key' },
      ),
    ]);
    const run = await runCliAsync(['run', '--profile', profile, '--cwd', dir, 'fix it'], {
      MY_AGENT_KEY: secret,
    });
    // The scripted agent refuses `authenticate` unless the key arrived: the answer proves it did.
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('Hello from the scripted agent.\n');
    expect(run.stdout + run.stderr).not.toContain(secret);
    const store = join(dir, '.recourse');
    for (const file of readdirSync(store)) {
      expect(readFileSync(join(store, file)).includes(secret), file).toBe(false);
    }
  });

  it('[DAT-13] a from_env variable that is not set fails the launch naming the variable, never a value', async () => {
    const dir = folder();
    const profile = writeProfile(dir, [
      candidate('claude', 'success', {}, { env: { SCRIPTED_AGENT_KEY: { from_env: 'MY_AGENT_KEY' } } }),
    ]);
    const run = await runCliAsync(['run', '--profile', profile, '--cwd', dir, 'fix it']);
    expect(run.status).toBe(3);
    expect(run.stderr).toContain('stopped: the route needs a person');
    expect(run.stderr).toContain(
      'the error said: AcpLaunchError: cannot launch the agent: /env/SCRIPTED_AGENT_KEY/from_env: the variable MY_AGENT_KEY is not set',
    );
  });

  it('a recipe cwd that is missing, or a file, fails the launch naming the folder (it said "spawn node ENOENT", blaming the command)', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'a-file'), '');
    for (const [cwd, problem] of [
      ['missing', 'does not exist'],
      ['a-file', 'is not a folder'],
    ] as const) {
      const profile = writeProfile(dir, [candidate('claude', 'success', {}, { cwd })]);
      const run = await runCliAsync(['run', '--profile', profile, '--cwd', dir, 'fix it']);
      expect(run.status).toBe(3);
      expect(run.stderr).toContain(
        `the error said: AcpLaunchError: cannot launch the agent: /cwd: the working folder ${join(dir, cwd)} ${problem}`,
      );
      expect(run.stderr).not.toContain('ENOENT');
    }
  });

  it('invalid input: a missing or malformed file and a missing prompt exit 2; an invalid profile exits 1 with every field named; nothing is stored', async () => {
    const dir = folder();
    const missing = await runCliAsync(['run', '--profile', join(dir, 'nope.json'), '--cwd', dir, 'x']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^recourse run: .*nope\.json/);

    const malformed = join(dir, 'bad.json');
    writeFileSync(malformed, '{"id": ');
    expect((await runCliAsync(['run', '--profile', malformed, '--cwd', dir, 'x'])).status).toBe(2);

    const good = writeProfile(dir, [candidate('claude', 'success')]);
    const noPrompt = await runCliAsync(['run', '--profile', good, '--cwd', dir]);
    expect(noPrompt.status).toBe(2);
    expect(noPrompt.stderr).toContain('give a PROMPT');

    const invalid = join(dir, 'invalid.json');
    writeFileSync(
      invalid,
      JSON.stringify({
        id: 'fleet',
        name: 'Fleet',
        candidates: [
          { profile_id: 'claude', policy: { version: 1, transient: { retry: { max_retries: 99 } } } },
          {
            profile_id: 'gemini',
            launch: { command: '', env: { GEMINI_API_KEY: 12345 }, shutdown_grace_ms: -1 },
          },
        ],
      }),
    );
    const bad = await runCliAsync(['run', '--profile', invalid, '--cwd', dir, 'x']);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toBe('');
    for (const path of [
      '/candidates/0/launch',
      '/candidates/0/policy/transient',
      '/candidates/1/launch/command',
      '/candidates/1/launch/env/GEMINI_API_KEY',
      '/candidates/1/launch/shutdown_grace_ms',
    ]) {
      expect(bad.stderr).toContain(`  ${path}`);
    }
    // A misplaced value is not echoed.
    expect(bad.stderr).not.toContain('12345');
    expect(existsSync(join(dir, '.recourse'))).toBe(false);
  });

  it("a --session id of the wrong shape (a path, empty) or of the service's task sessions (session:...) exits 2 naming the flag, and opens no database", async () => {
    const dir = folder();
    const good = writeProfile(dir, [candidate('claude', 'success')]);
    for (const session of ['../../x', '', 'a b']) {
      const refused = await runCliAsync(['run', '--profile', good, '--cwd', dir, '--session', session, 'x']);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain('--session must be');
    }
    const reserved = await runCliAsync([
      'run',
      '--profile',
      good,
      '--cwd',
      dir,
      '--session',
      'session:t1',
      'x',
    ]);
    expect(reserved.status).toBe(2);
    expect(reserved.stderr).toContain("belong to the service's task sessions");
    expect(existsSync(join(dir, '.recourse'))).toBe(false);
  });

  it('a --db that is a FIFO or a device exits 2 naming it, at once (a FIFO nobody read blocked the run for good)', async () => {
    const dir = folder();
    const good = writeProfile(dir, [candidate('claude', 'success')]);
    const fifo = join(dir, 'a-fifo');
    // Node cannot make a FIFO; the shell's mkfifo can.
    expect(spawnSync('sh', ['-c', 'exec mkfifo "$0"', fifo]).status).toBe(0);
    for (const db of [fifo, '/dev/null']) {
      const refused = await runCliAsync(
        ['run', '--profile', good, '--cwd', dir, '--db', db, 'x'],
        {},
        { timeoutMs: 20_000 },
      );
      expect(refused.status, db).toBe(2);
      expect(refused.stderr, db).toContain('is not a regular file');
      expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });

  it('a session started on another profile, or with another prompt, is refused with exit 2', async () => {
    const dir = folder();
    const profile = writeProfile(dir, [candidate('claude', 'success')]);
    expect(
      (await runCliAsync(['run', '--profile', profile, '--session', 's1', '--cwd', dir, 'one'])).status,
    ).toBe(0);
    const other = await runCliAsync(['run', '--profile', profile, '--session', 's1', '--cwd', dir, 'two']);
    expect(other.status).toBe(2);
    expect(other.stderr).toContain('was started with another prompt');
    const otherProfile = join(dir, 'other.json');
    writeFileSync(
      otherProfile,
      JSON.stringify({ id: 'other', name: 'Other', candidates: [candidate('claude', 'success')] }),
    );
    const wrong = await runCliAsync(['run', '--profile', otherProfile, '--session', 's1', '--cwd', dir]);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('session s1 runs profile fleet, not other');
  });
});
