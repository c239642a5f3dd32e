import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawControls, runCli } from './run-cli.js';

const scenarios = new URL('../../examples/scenarios/', import.meta.url).pathname;
const expected = new URL('./simulate-expected/', import.meta.url).pathname;
const exampleNames = readdirSync(scenarios)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -5));
const folders: string[] = [];
afterAll(async () => {
  for (const f of folders) await rm(f, { recursive: true, force: true });
});

type Line = Record<string, unknown> & { at: number };
const simulate = (file: string, ...args: string[]) => {
  const r = runCli(['simulate', join(scenarios, `${file}.json`), ...args]);
  return { ...r, records: r.lines.map((l) => JSON.parse(l) as Line) };
};
const states = (records: Line[]) =>
  records.filter((r) => 'state' in r).map((r) => `${r.at}:${String(r.state)}:${String(r.reason)}`);
const dispatches = (records: Line[]) =>
  records.flatMap((r) =>
    'dispatch' in r
      ? [{ at: r.at, ...(r.dispatch as { candidate: string; generation: number; kind: string }) }]
      : [],
  );

describe('recourse simulate: every route scenario of the seed, black-box', () => {
  it('there are the example scenarios of this issue, at least 24', () => {
    expect(exampleNames.length).toBeGreaterThanOrEqual(24);
  });

  // One test per scenario, each a CLI process of its own: run as one test, the two dozen processes outgrew a test's
  // time on a loaded machine.
  it.each(exampleNames)('example scenario %s prints exactly its recorded JSON Lines', async (name) => {
    const r = runCli(['simulate', join(scenarios, `${name}.json`)]);
    expect({ name, status: r.status, stderr: r.stderr }).toEqual({ name, status: 0, stderr: '' });
    expect({ name, out: r.stdout }).toEqual({
      name,
      out: await readFile(join(expected, `${name}.jsonl`), 'utf8'),
    });
  });

  it('[SCN-01][SCN-04][EVL-16] capacity errors: waits of 5, 10 and 20 s are persisted, then the same session moves to b', () => {
    const { records } = simulate('scn-01-capacity-retries-then-skip');
    const waits = records.filter((r) => r.state === 'retry_wait');
    expect(waits.map((r) => [r.at, r.retry_ordinal, r.deadline_at, r.pending_outcome])).toEqual([
      [0, 1, 5, 'skip'],
      [6, 2, 16, 'skip'],
      [17, 3, 37, 'skip'],
    ]);
    expect(dispatches(records)).toEqual([
      { at: 0, candidate: 'a', generation: 1, kind: 'initial' },
      { at: 5, candidate: 'a', generation: 1, kind: 'retry' },
      { at: 16, candidate: 'a', generation: 1, kind: 'retry' },
      { at: 37, candidate: 'a', generation: 1, kind: 'retry' },
      { at: 38, candidate: 'b', generation: 2, kind: 'successor' },
    ]);
    expect(records.at(-1)).toMatchObject({
      state: 'active',
      candidate: 'b',
      generation: 2,
      reason: 'success',
    });
  });

  it('[SCN-02][EVL-13][EVL-14] a reset one minute away: one durable wait, one reset_retry of the same candidate', () => {
    const { records } = simulate('scn-02-wait-for-reset');
    expect(records[2]).toMatchObject({
      state: 'waiting_for_reset',
      code: 'quota_limited',
      class: 'hard',
      deadline_at: 60,
      pending_outcome: 'stop',
    });
    expect(dispatches(records).slice(1)).toEqual([
      { at: 60, candidate: 'a', generation: 1, kind: 'reset_retry' },
    ]);
  });

  it('[SCN-03][EVL-11] a reset six hours away with a five-minute maximum is not shortened: the retry, then stop', () => {
    const { records } = simulate('scn-03-reset-too-far');
    expect(states(records)).toEqual([
      '0:active:start',
      '0:retry_wait:retry',
      '30:retrying:deadline',
      '31:action_required:exhausted',
    ]);
    expect(records.some((r) => r.state === 'waiting_for_reset')).toBe(false);
  });

  it('[SCN-05] exhausted credits with a hard policy that stops: manual recovery, no other provider tried', () => {
    const { records } = simulate('scn-05-credits-stop');
    expect(records.at(-1)).toMatchObject({
      state: 'action_required',
      reason: 'exhausted',
      candidate: 'a',
      class: 'hard',
    });
    expect(dispatches(records)).toHaveLength(1);
  });

  it('[SCN-06][CLS-20] an unknown error stops automatic recovery, whatever the policy', () => {
    const { records } = simulate('scn-06-unknown-error');
    expect(records.at(-1)).toMatchObject({
      state: 'action_required',
      reason: 'unclassified',
      class: 'unclassified',
      code: null,
    });
  });

  it('[SCN-07][SAF-08] a failure after tool activity stops for manual recovery although the policy says retry', () => {
    const { records } = simulate('scn-07-tool-activity');
    expect(records.at(-1)).toMatchObject({
      state: 'action_required',
      reason: 'unsafe',
      detail: 'tool_activity',
    });
  });

  it('[SCN-08][SCN-09][SAF-06][SAF-07] a matching diagnostic lets the policy proceed; anything said after it stops', () => {
    expect(states(simulate('scn-08-matching-diagnostic').records)).toContain('0:retry_wait:retry');
    expect(simulate('scn-09-diagnostic-then-output').records.at(-1)).toMatchObject({
      state: 'action_required',
      detail: 'assistant_output',
    });
  });

  it('[SCN-10][CAL-06][CAL-11] the same profile and failure in a Kanban task and in an Office session: the same transitions', () => {
    const task = simulate('scn-10-kanban-task');
    const office = simulate('scn-10-office-session');
    expect(office.stdout).toBe(task.stdout);
    expect(states(office.records)).toContain('10:switching:skip_now');
  });

  it('[RTE-15] skipping with no eligible candidate left (excluded or disabled) needs action', () => {
    const { records } = simulate('candidates-exhausted');
    expect(records.at(-1)).toMatchObject({
      state: 'action_required',
      reason: 'candidates_exhausted',
      candidate: 'b',
    });
  });

  it('[DUR-05] a restart re-arms a wait that never reached a dispatch; it fires once, at its deadline', () => {
    const { records } = simulate('restart-rearms-a-wait');
    expect(records.find((r) => 'restart' in r)).toEqual({
      at: 10,
      restart: { rearmed: 1, stopped: 0, superseded: 0, orphaned: 0 },
    });
    expect(dispatches(records).filter((d) => d.kind === 'retry')).toEqual([
      { at: 30, candidate: 'a', generation: 1, kind: 'retry' },
    ]);
  });

  it('[DUR-06][RTE-14] a lost acknowledgement stops the route at restart; Retry now starts a new generation', () => {
    const { records } = simulate('lost-ack-stops-after-restart');
    expect(states(records)).toContain('20:action_required:ambiguous_dispatch');
    expect(records.find((r) => 'restart' in r)).toMatchObject({ restart: { rearmed: 0, stopped: 1 } });
    expect(dispatches(records).map((d) => `${d.at}:${d.kind}:${d.generation}`)).toEqual([
      '0:initial:1',
      '5:retry:1',
      '30:manual:2',
    ]);
  });

  it('[RTE-19][RTE-14] a stale generation and a trigger the state does not allow are refused and change nothing', () => {
    const { records } = simulate('stale-and-refused-actions');
    expect(records.filter((r) => 'refused' in r)).toEqual([
      { at: 3, refused: { action: 'stop', reason: 'stale_generation' } },
      { at: 4, refused: { action: 'cancel', reason: 'not_allowed' } },
    ]);
    expect(records.at(-1)).toMatchObject({ state: 'active', candidate: 'b', generation: 2 });
  });

  it('[RTE-21] cancelling twice leaves the route as the first cancel did; the cancelled wait never fires', () => {
    const { records } = simulate('cancel-is-idempotent');
    expect(states(records)).toEqual(['0:active:start', '0:retry_wait:retry', '2:action_required:cancelled']);
    expect(dispatches(records)).toHaveLength(1);
  });

  it('[CUR-36][CUR-37] the interactive entry: five retries at 5, 10, 20, 40, 60 s, then Resume or Start fresh', () => {
    const { records } = simulate('interactive-retries-exhaust');
    const waits = records
      .filter((r) => r.state === 'retry_wait')
      .map((r) => (r.deadline_at as number) - r.at);
    expect(waits).toEqual([5, 10, 20, 40, 60]);
    expect(records.filter((r) => 'state' in r).at(-1)).toMatchObject({
      state: 'action_required',
      reason: 'exhausted',
      recovery_actions: ['resume', 'start_fresh'],
    });
  });

  it('[CUR-34][CUR-35] nothing is scheduled while the agent prompt call is still open', () => {
    const { records } = simulate('prompt-still-open');
    expect(records[2]).toEqual({ at: 0, refused: { action: 'failure', reason: 'prompt_open' } });
    expect(states(records)).toContain('30:retry_wait:retry');
  });
});

describe('recourse simulate: interactive retry notices', () => {
  type Notice = { at: number; op: string; message_id: string; attempt: number; max_attempts: number };
  const notices = (records: Line[]): Notice[] =>
    records.flatMap((r) => ('notice' in r ? [{ at: r.at, ...(r.notice as Omit<Notice, 'at'>) }] : []));
  const transcript = (records: Line[]) =>
    (records.at(-1) as unknown as { transcript: { kind: string; metadata: Record<string, unknown> }[] })
      .transcript;

  it('[NOT-01][NOT-07][NOT-09][CUR-37] one notice across every attempt, updated in place; exhaustion retires it for Resume or Start fresh', () => {
    const { records } = simulate('interactive-retries-exhaust');
    expect(
      notices(records).map(
        (n) =>
          `${n.at}:${String(n.op)}:${String(n.message_id)}:${String(n.attempt)}/${String(n.max_attempts)}`,
      ),
    ).toEqual([
      '0:create:m1:1/5',
      '6:update:m1:2/5',
      '17:update:m1:3/5',
      '38:update:m1:4/5',
      '79:update:m1:5/5',
      '140:delete:m1:5/5',
    ]);
    expect(records.find((r) => 'recovery_message' in r)).toMatchObject({
      at: 140,
      recovery_message: { actions: ['resume', 'start_fresh'] },
    });
    expect(transcript(records).map((m) => m.kind)).toEqual(['recovery']);
  });

  it('[SCN-12][NOT-30][NOT-31] a retry that succeeds leaves no notice: the transcript read afterwards has none', () => {
    const { records } = simulate('scn-12-success-retires-notice');
    expect(notices(records).at(-1)).toMatchObject({ at: 17, op: 'delete', message_id: 'm1' });
    expect(transcript(records)).toEqual([]);
  });

  it('[SCN-13][NOT-42] Cancel after the loop ended is an idempotent cleanup: no active cancellation, no recovery message', () => {
    const { records } = simulate('scn-13-cancel-after-the-loop-ended');
    expect(records.filter((r) => 'cancel' in r)).toEqual([
      { at: 8, cancel: { active: false } },
      { at: 9, cancel: { active: false } },
    ]);
    expect(records.some((r) => 'recovery_message' in r)).toBe(false);
    expect(transcript(records)).toEqual([]);
  });

  it('[SCN-14][NOT-40][NOT-41] Cancel while a retry waits: the notice is retired, the timer disarmed, Resume and Start fresh offered', () => {
    const { records } = simulate('scn-14-cancel-while-retrying');
    const at8 = records.filter((r) => r.at === 8).map((r) => Object.keys(r).find((k) => k !== 'at'));
    expect(at8).toEqual(['notice', 'state', 'recovery_message', 'cancel']);
    expect(records.find((r) => 'cancel' in r)).toEqual({ at: 8, cancel: { active: true } });
    expect(
      dispatches(records)
        .filter((d) => d.kind === 'retry')
        .map((d) => d.at),
    ).toEqual([5]);
    expect(transcript(records).map((m) => m.metadata.actions)).toEqual([['resume', 'start_fresh']]);
  });

  it('[NOT-39][NOT-43] a foreign pair and a denied caller get the same refusal and change nothing', () => {
    const { records } = simulate('notice-cancel-foreign-and-denied');
    const refusals = records.filter((r) => 'refused' in r).map((r) => r.refused);
    expect(refusals).toEqual([
      { action: 'cancel', reason: 'not_found' },
      { action: 'cancel', reason: 'not_found' },
    ]);
    expect(notices(records).map((n) => n.op)).toEqual(['create', 'delete']);
    expect(notices(records)[1]).toMatchObject({ at: 7 });
  });

  it('[NOT-20] a late provider event inside the five-minute fence recreates nothing; after it, the engine finds it stale', () => {
    const { records } = simulate('notice-late-events-and-fence');
    expect(records.filter((r) => 'refused' in r)).toEqual([
      { at: 60, refused: { action: 'late_failure', reason: 'fenced' } },
      // Past the fence the event reaches the engine: the attempt it answers already succeeded, so it starts no loop.
      { at: 400, refused: { action: 'late_failure', reason: 'stale_invocation' } },
    ]);
    expect(notices(records).map((n) => `${n.at}:${String(n.op)}`)).toEqual(['0:create', '7:delete']);
  });

  it('[NOT-04][DUR-05] the notice mirrors a durable retry: it survives a restart and is retired when the retry succeeds', () => {
    const { records } = simulate('notice-survives-restart');
    expect(records.find((r) => 'restart' in r)).toMatchObject({ at: 2, restart: { rearmed: 1 } });
    expect(
      dispatches(records)
        .filter((d) => d.kind === 'retry')
        .map((d) => d.at),
    ).toEqual([5]);
    expect(notices(records).map((n) => `${n.at}:${String(n.op)}`)).toEqual(['0:create', '7:delete']);
  });

  it('[NOT-26] an ordinary session stop ends the retry and retires its notice, without a recovery message', () => {
    const { records } = simulate('notice-stop-while-waiting');
    expect(states(records)).toContain('2:action_required:stopped');
    expect(records.some((r) => 'recovery_message' in r)).toBe(false);
    expect(dispatches(records)).toHaveLength(1);
  });
});

describe('recourse simulate: files, databases and errors', () => {
  const temp = async () => {
    const folder = await mkdtemp(join(tmpdir(), 'recourse-simulate-test-'));
    folders.push(folder);
    return folder;
  };

  it('--db keeps the SQLite database, and refuses one that already holds routes', async () => {
    const folder = await temp();
    const db = join(folder, 'sim.db');
    const first = simulate('restart-rearms-a-wait', '--db', db);
    expect(first.status).toBe(0);
    expect((await stat(db)).size).toBeGreaterThan(0);
    const again = simulate('restart-rearms-a-wait', '--db', db);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain('already holds routes');
  });

  it('refuses a --db path that cannot hold the database: one line, exit 2, nothing created or changed', async () => {
    const folder = await temp();
    const dir = join(folder, 'dir');
    await mkdir(dir);
    const link = join(folder, 'link');
    await symlink(dir, link);
    const notes = join(folder, 'notes.txt');
    await writeFile(notes, 'hello\n');
    const fifo = join(folder, 'fifo');
    expect(spawnSync('sh', ['-c', 'exec mkfifo "$0"', fifo]).status).toBe(0);
    const cases: Array<[string, string]> = [
      [dir, `--db ${dir} is a directory`],
      [link, `--db ${link} is a directory`],
      [notes, `--db ${notes} is not an SQLite database`],
      [
        join(folder, 'no', 'such', 'sim.db'),
        `--db ${join(folder, 'no', 'such', 'sim.db')} cannot be created: folder ${join(folder, 'no', 'such')} does not exist`,
      ],
      [join(notes, 'sim.db'), `--db ${join(notes, 'sim.db')} cannot be created: ${notes} is not a folder`],
      [fifo, `--db ${fifo} is not a regular file`],
      ['/proc/self/mem', '--db /proc/self/mem cannot be read: EIO: i/o error, read'],
      [
        join(folder, 'no\u001b[2J\u202e', 'sim.db'),
        `--db ${join(folder, 'no\\x1b[2J\\u202e', 'sim.db')} cannot be created: folder ${join(folder, 'no\\x1b[2J\\u202e')} does not exist`,
      ],
      ['', '--db needs a file name'],
      [
        `${join(folder, 'new')}/`,
        `--db ${join(folder, 'new')}/ cannot be created: a file name cannot end with /`,
      ],
    ];
    for (const [db, message] of cases) {
      const r = runCli(['simulate', join(scenarios, 'scn-05-credits-stop.json'), '--db', db], '', {
        timeoutMs: 10_000,
        cwd: folder,
      });
      expect({ db, ...r }).toMatchObject({
        db,
        status: 2,
        stdout: '',
        stderr: `recourse simulate: ${message}\n`,
      });
    }
    expect((await readdir(folder)).sort()).toEqual(['dir', 'fifo', 'link', 'notes.txt']);
    expect(await readdir(dir)).toEqual([]);
    expect(await readFile(notes, 'utf8')).toBe('hello\n');
  });

  it('--db takes an empty file as a new database, and a file named :memory: is a file, not memory', async () => {
    const folder = await temp();
    const empty = join(folder, 'empty.db');
    await writeFile(empty, '');
    expect(simulate('restart-rearms-a-wait', '--db', empty)).toMatchObject({ status: 0, stderr: '' });
    expect((await stat(empty)).size).toBeGreaterThan(0);
    const memory = runCli(
      ['simulate', join(scenarios, 'restart-rearms-a-wait.json'), '--db', ':memory:'],
      '',
      {
        cwd: folder,
      },
    );
    expect(memory).toMatchObject({ status: 0, stderr: '' });
    expect(memory.stdout).toBe(await readFile(join(expected, 'restart-rearms-a-wait.jsonl'), 'utf8'));
    expect((await stat(join(folder, ':memory:'))).size).toBeGreaterThan(0);
  });

  it('an invalid scenario exits 1 with every problem addressed by a JSON pointer, and runs nothing', async () => {
    const folder = await temp();
    const file = join(folder, 'bad.json');
    await writeFile(
      file,
      JSON.stringify({
        start: 'yesterday',
        profile: { name: 'p', candidates: [{ profile_id: 'a', policy: { version: 1, transient: {} } }] },
        steps: [
          { at: 5, event: 'failure', evidence: { kind: 'http', status: 'x' } },
          { at: 1, event: 'action', action: 'explode', expected_generation: 0 },
          { at: 9, event: 'teleport' },
          { at: 10, event: 'cancel', by: 'owner' },
        ],
        until: -1,
        extra: true,
      }),
    );
    const r = runCli(['simulate', file]);
    expect(r.status).toBe(1);
    const paths = (JSON.parse(r.stdout) as { errors: { path: string }[] }).errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/extra',
        '/start',
        '/profile/candidates/0/policy/hard',
        '/steps/0/evidence/status',
        '/steps/1/at',
        '/steps/1/action',
        '/steps/1/expected_generation',
        '/steps/2/event',
        '/steps/3/event',
        '/until',
      ]),
    );
  });

  it('a start before 1970 is invalid at /start and nothing runs (the run stopped at its first failure, half printed)', async () => {
    const folder = await temp();
    const file = join(folder, 'before-1970.json');
    const scenario = JSON.parse(
      await readFile(join(scenarios, 'cancel-is-idempotent.json'), 'utf8'),
    ) as object;
    for (const start of ['1969-12-31T00:00:00Z', '0000-01-01T00:00:00Z']) {
      await writeFile(file, JSON.stringify({ ...scenario, start }));
      const r = runCli(['simulate', file]);
      expect(r.status, start).toBe(1);
      expect(r.stderr).toBe('');
      const errors = (JSON.parse(r.stdout) as { errors: { path: string; message: string }[] }).errors;
      expect(errors.map((e) => e.path)).toEqual(['/start']);
      expect(errors[0]!.message).toContain('from 1970 on');
    }
  });

  it('[POL-10][POL-11] a profile whose candidates are all disabled is invalid: exit 1 with its field errors, nothing runs', async () => {
    const folder = await temp();
    const file = join(folder, 'all-disabled.json');
    const scenario = JSON.parse(await readFile(join(scenarios, 'scn-05-credits-stop.json'), 'utf8')) as {
      profile: { candidates: Array<Record<string, unknown>> };
      until?: unknown;
    };
    for (const candidate of scenario.profile.candidates) candidate.enabled = false;
    await writeFile(file, JSON.stringify({ ...scenario, until: -1 }));
    const db = join(folder, 'sim.db');
    const r = runCli(['simulate', file, '--db', db]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('');
    const errors = (JSON.parse(r.stdout) as { errors: { path: string; message: string }[] }).errors;
    expect(errors.map((e) => e.path)).toEqual(['/profile/candidates', '/until']);
    expect(errors[0]!.message).toMatch(/^at least one candidate must be enabled/);
    await expect(stat(db)).rejects.toThrow();
    await writeFile(file, JSON.stringify(scenario));
    expect(runCli(['simulate', file])).toMatchObject({ status: 1, stderr: '' });
    const { profile, ...rest } = scenario;
    await writeFile(file, JSON.stringify({ ...rest, routes: [{ id: 'r1', profile }] }));
    const routes = runCli(['simulate', file]);
    expect(routes.status).toBe(1);
    expect((JSON.parse(routes.stdout) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain(
      '/routes/0/profile/candidates',
    );
  });

  it('field errors echo keys and values from the scenario escaped: no control or bidi character reaches the terminal', async () => {
    const folder = await temp();
    const file = join(folder, 'evil.json');
    const evil = '\u001b[2J\r\u202e\u2066\u009b';
    const scenario = JSON.parse(
      await readFile(join(scenarios, 'scn-05-credits-stop.json'), 'utf8'),
    ) as object;
    await writeFile(file, JSON.stringify({ ...scenario, [`x${evil}`]: 1, start: `y${evil}` }));
    const r = runCli(['simulate', file]);
    expect(r.status).toBe(1);
    expect(rawControls(r.stdout)).toEqual([]);
    const errors = (JSON.parse(r.stdout) as { errors: { path: string }[] }).errors;
    expect(errors.map((e) => e.path)).toEqual(expect.arrayContaining([`/x${evil}`, '/start']));
  });

  it('unreadable or malformed input exits 2 with a message', async () => {
    const folder = await temp();
    const file = join(folder, 'broken.json');
    await writeFile(file, '{"start": ');
    expect(runCli(['simulate', file])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('malformed JSON') as string,
    });
    expect(runCli(['simulate', join(folder, 'missing.json')])).toMatchObject({ status: 2 });
  });

  it('reads a scenario from standard input', async () => {
    const text = await readFile(join(scenarios, 'scn-05-credits-stop.json'), 'utf8');
    const r = runCli(['simulate', '-'], text);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(await readFile(join(expected, 'scn-05-credits-stop.jsonl'), 'utf8'));
  });
});

describe('recourse simulate: the hardening examples (issue 8)', () => {
  const of = (records: Line[], route: string) => records.filter((r) => r.route === route);

  it('[NOT-19][NOT-41][NOT-14][SCN-14] Cancel while the retry is in flight ends the loop: the late failure schedules nothing and writes no notice', () => {
    const { records, status } = simulate('cancel-while-retry-in-flight');
    expect(status).toBe(0);
    expect(records.find((r) => 'cancel' in r)).toEqual({ at: 6, cancel: { active: true } });
    expect(records.find((r) => 'refused' in r)).toEqual({
      at: 7,
      refused: { action: 'failure', reason: 'route_stopped' },
    });
    expect(dispatches(records).map((d) => `${d.at}:${d.kind}`)).toEqual(['0:initial', '5:retry']);
    expect(
      records.filter((r) => 'notice' in r).map((r) => `${r.at}:${String((r.notice as { op: string }).op)}`),
    ).toEqual(['0:create', '6:delete']);
    const transcript = records.at(-1)!.transcript as { kind: string }[];
    expect(transcript.map((m) => m.kind)).toEqual(['recovery']);
  });

  it('[NOT-26][NOT-31] an ordinary stop while the retry is in flight ends the loop: no notice, no retry, no retrying message left', () => {
    const { records } = simulate('stop-while-retry-in-flight');
    expect(states(records)).toContain('6:action_required:stopped');
    expect(dispatches(records).map((d) => d.kind)).toEqual(['initial', 'retry']);
    expect(records.at(-1)).toEqual({ transcript: [] });
  });

  it('[CIR-02][CIR-05][EVL-11] a circuit open ten days: the other route evaluates its next candidate at its first deadline', () => {
    const { records } = simulate('circuit-outlasts-policy');
    expect(records.find((r) => r.route === 'r1' && 'circuit' in r)).toEqual({
      at: 0,
      route: 'r1',
      circuit: { key: 'provider:anthropic', state: 'open', open_until: 864000, probe_owner: null },
    });
    expect(states(of(records, 'r2'))).toEqual([
      '0:active:start',
      '0:retry_wait:retry',
      '5:switching:circuit_skip',
      '5:active:successor_active',
    ]);
    expect(dispatches(of(records, 'r2')).at(-1)).toEqual({
      at: 5,
      candidate: 'c',
      generation: 2,
      kind: 'successor',
    });
  });

  it('[CIR-01][CIR-03] a probe lease that lapses without an outcome returns the circuit to open: no other probe before open_until', () => {
    const { records } = simulate('lapsed-probe-lease');
    const circuits = records
      .filter((r) => 'circuit' in r)
      .map((r) => ({ at: r.at, route: r.route, ...(r.circuit as object) }));
    expect(circuits).toContainEqual({
      at: 5,
      route: 'r1',
      key: 'provider:anthropic',
      state: 'half_open',
      open_until: 600,
      probe_owner: 'r1',
    });
    expect(circuits).toContainEqual({
      at: 35,
      route: 'r2',
      key: 'provider:anthropic',
      state: 'open',
      open_until: 600,
      probe_owner: null,
    });
    expect(dispatches(of(records, 'r2')).map((d) => `${d.at}:${d.kind}`)).toEqual(['0:initial', '600:retry']);
  });

  it('[CIR-04][CIR-05] many routes behind one expired circuit: exactly one probe; its success releases the rest at once, each once', () => {
    const { records } = simulate('one-probe-for-many');
    const retries = dispatches(records).filter((d) => d.kind === 'retry');
    const at61 = records.filter((r) => r.at === 61 && 'dispatch' in r).map((r) => r.route);
    // The probe first; it succeeds at 61 s, and the routes held behind its lease (until 91 s) go at once.
    expect(at61).toEqual(['r2', 'r3', 'r4', 'r5']);
    const woken = records.filter((r) => r.reason === 'circuit_closed').map((r) => [r.at, r.route]);
    expect(woken).toEqual([
      [61, 'r3'],
      [61, 'r4'],
      [61, 'r5'],
    ]);
    expect(
      new Set(
        records
          .filter((r) => 'dispatch' in r && (r.dispatch as { kind: string }).kind === 'retry')
          .map((r) => r.route),
      ),
    ).toEqual(new Set(['r1', 'r2', 'r3', 'r4', 'r5']));
    expect(retries).toHaveLength(5);
    // Every line of a scenario with routes names its route.
    expect(
      records
        .filter((r) => !('transcript' in r) && !('restart' in r))
        .every((r) => typeof r.route === 'string'),
    ).toBe(true);
  });

  it('[DUR-06][OUT-01] a retry that never reports, a restart, then Retry now: reported orphaned, taken over on a new generation', () => {
    const { records } = simulate('orphaned-retry-after-restart');
    expect(records.find((r) => 'restart' in r)).toEqual({
      at: 10,
      restart: { rearmed: 0, stopped: 0, superseded: 0, orphaned: 1 },
    });
    expect(dispatches(records).map((d) => `${d.at}:${d.kind}:${d.generation}`)).toEqual([
      '0:initial:1',
      '5:retry:1',
      '11:manual:2',
      '22:retry:2',
    ]);
  });

  it('[RTE-15][DUR-06] the successor acknowledgement is lost, its success proves delivery; a restart stops nothing', () => {
    const { records } = simulate('successor-ack-lost');
    expect(states(records)).toContain('3:active:success');
    expect(records.find((r) => 'restart' in r)).toEqual({
      at: 10,
      restart: { rearmed: 0, stopped: 0, superseded: 0, orphaned: 0 },
    });
  });

  it('[EVD-03][EVL-01] evidence naming another attempt, or a phase that cannot fail one, authorizes nothing', () => {
    const { records } = simulate('stale-evidence-identity');
    expect(records.filter((r) => 'refused' in r)).toEqual([
      { at: 0, refused: { action: 'failure', reason: 'stale_evidence' } },
      { at: 1, refused: { action: 'failure', reason: 'stale_evidence' } },
    ]);
    expect(states(records)).toContain('2:retry_wait:retry');
  });

  it('[CLS-23] evidence observed five days ahead: its Retry-After counts from the engine clock', () => {
    const { records } = simulate('observed-in-the-future');
    expect(states(records)).toContain('0:waiting_for_reset:wait_for_reset');
    expect(records.find((r) => r.state === 'waiting_for_reset')).toMatchObject({ deadline_at: 20 });
  });
});

describe('recourse simulate: scenarios with several routes', () => {
  const write = async (scenario: object) => {
    const folder = await mkdtemp(join(tmpdir(), 'recourse-simulate-routes-'));
    folders.push(folder);
    const file = join(folder, 'routes.json');
    await writeFile(file, JSON.stringify(scenario));
    return file;
  };
  const profile = { name: 'p', candidates: [{ profile_id: 'a' }, { profile_id: 'b' }] };

  it('reports every problem of routes and steps with its JSON pointer, and runs nothing', async () => {
    const file = await write({
      start: '2026-06-01T12:00:00Z',
      profile,
      routes: [
        { id: 'r1', profile },
        { id: 'r1', profile: { ...profile, candidates: [{ profile_id: 'z' }] } },
        { id: 'bad id!', profile, color: 'red' },
        {
          id: 'r4',
          mode: 'interactive',
          session: { task_id: 't', session_id: 's' },
          profile: { profile_id: 'a' },
        },
      ],
      steps: [
        { at: 0, event: 'failure', evidence: { kind: 'stderr', text: 'x' } },
        { at: 1, event: 'failure', route: 'nope', evidence: { kind: 'stderr', text: 'x' } },
        { at: 2, event: 'restart', route: 'r1' },
        { at: 3, event: 'cancel', route: 'r1' },
        { at: 4, event: 'cancel', route: 'r4' },
      ],
    });
    const r = runCli(['simulate', file]);
    expect(r.status).toBe(1);
    const paths = (JSON.parse(r.stdout) as { errors: { path: string }[] }).errors.map((e) => e.path);
    expect(paths).toEqual([
      '/profile',
      '/routes/1/id',
      '/routes/1/profile/name',
      '/routes/2/color',
      '/routes/2/id',
      '/steps/0/route',
      '/steps/1/route',
      '/steps/2/route',
      '/steps/3/event',
    ]);
  });

  it('an empty routes list, or routes that are not a list, is a field error', async () => {
    for (const routes of [[], {}, 'r1']) {
      const file = await write({ start: '2026-06-01T12:00:00Z', routes, steps: [] });
      const r = runCli(['simulate', file]);
      expect(r.status).toBe(1);
      expect(JSON.parse(r.stdout)).toMatchObject({ errors: [{ path: '/routes' }] });
    }
  });

  it('[CAL-06][SCN-10] a dynamic route and an interactive session in one scenario: lines name their route, transcripts come last', async () => {
    const file = await write({
      start: '2026-06-01T12:00:00Z',
      routes: [
        { id: 'kanban', profile },
        { id: 'chat', mode: 'interactive', profile: { profile_id: 'a' } },
      ],
      steps: [
        {
          at: 0,
          route: 'kanban',
          event: 'failure',
          evidence: { kind: 'stderr', text: 'weird gibberish' },
          progress: {},
        },
        {
          at: 0,
          route: 'chat',
          event: 'failure',
          evidence: { kind: 'http', status: 529, provider: 'anthropic', body: 'Overloaded' },
          progress: {},
        },
        { at: 6, route: 'chat', event: 'success' },
      ],
    });
    const r = runCli(['simulate', file]);
    expect(r.status).toBe(0);
    const records = r.lines.map((l) => JSON.parse(l) as Line);
    expect(states(of2(records, 'kanban'))).toEqual(['0:active:start', '0:action_required:unclassified']);
    expect(records.at(-1)).toMatchObject({ route: 'chat', transcript: [] });
  });
});

function of2(records: Line[], route: string) {
  return records.filter((r) => r.route === route);
}
