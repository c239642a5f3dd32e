import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawControls, runCliAsync, startCli } from './run-cli.js';

/**
 * `recourse serve`'s refusals, through the built CLI: each is one line on standard error naming what is wrong, a
 * non-zero exit, no stack trace, and no server left listening.
 */
const dir = mkdtempSync(join(tmpdir(), 'recourse-serve-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tokens = 'admin:admin-token-0123456789abcdef';

function oneClearLine(stderr: string): void {
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('recourse serve refuses what it cannot use', () => {
  it('a port that is not a port, a directory as --db, a missing tokens file, an unknown role: exit 2', async () => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const fifo = join(dir, 'a-fifo');
    // Node cannot make a FIFO; the shell's mkfifo can.
    expect(spawnSync('sh', ['-c', 'exec mkfifo "$0"', fifo]).status).toBe(0);
    const badRole = join(dir, 'tokens-bad-role');
    writeFileSync(badRole, 'superuser:superuser-token-0123456789\n');
    const twoRoles = join(dir, 'tokens-two-roles');
    writeFileSync(twoRoles, 'viewer:the-same-token-0123456789\nadmin:the-same-token-0123456789\n');
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['serve', '--port', 'eighty'], {}, /--port must be 0 to 65535/],
      [['serve', '--port', '70000'], {}, /--port must be 0 to 65535/],
      [['serve', '--db', folder], {}, /--db must name a file/],
      // A FIFO nobody writes: SQLite would block reading it, the process stuck before it listens.
      [['serve', '--db', fifo], {}, /--db must name a file/],
      [['serve', '--db', '/dev/null'], {}, /--db must name a file/],
      [['serve', '--tokens-file', join(dir, 'missing')], {}, /cannot be read: ENOENT/],
      [['serve', '--tokens-file', folder], {}, /is a directory/],
      [['serve', '--tokens-file', badRole], {}, /ROLE one of viewer, operator, admin, adapter/],
      [['serve', '--port', '0'], { RECOURSE_TOKENS: 'admin:short' }, /16 to 256 visible characters/],
      [['serve', '--ack-timeout', '0'], {}, /--ack-timeout must be 1 to 3600 seconds/],
      [['serve', '--ack-timeout', '0x10'], {}, /--ack-timeout must be 1 to 3600 seconds \(got "0x10"\)/],
      [['serve', '--ack-timeout', '1e2'], {}, /--ack-timeout must be 1 to 3600 seconds/],
      [
        ['serve', '--max-event-streams-per-token', '0'],
        {},
        /--max-event-streams-per-token must be 1 to 100000 \(got "0"\)/,
      ],
      [
        ['serve', '--max-event-streams-per-token', 'lots'],
        {},
        /--max-event-streams-per-token must be 1 to 100000/,
      ],
      [['serve', '--webhook', 'ftp://x'], {}, /--webhook must be an http or https URL/],
      [
        ['serve', '--webhook', 'hooks.example.com/recourse?token=hunter2pass'],
        {},
        /--webhook must be an absolute http or https URL .*the value given is not shown/,
      ],
      [
        ['serve', '--webhook', 'http://user:hunter2pass@127.0.0.1:7982/hook'],
        {},
        /--webhook must not carry a user or password \(got "http:\/\/user:\*\*\*@127\.0\.0\.1:7982\/hook"\)/,
      ],
      [
        ['serve', '--log-level', 'loud'],
        {},
        /--log-level must be one of fatal, error, warn, info, debug, trace, silent \(got "loud"\)/,
      ],
      [
        ['serve', '--tokens-file', twoRoles],
        {},
        /line 1 \(viewer\) and line 2 \(admin\) give the same token/,
      ],
    ];
    for (const [args, env, message] of cases) {
      const run = await runCliAsync(args.includes('--db') ? args : [...args, '--db', join(dir, 'x.db')], env);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(message);
      expect(run.stderr, args.join(' ')).not.toMatch(/hunter2pass|the-same-token/);
      oneClearLine(run.stderr);
    }
  });

  it('another address without tokens is refused; loopback without tokens makes an admin token for the run', async () => {
    const open = await runCliAsync([
      'serve',
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--db',
      join(dir, 'open.db'),
    ]);
    expect(open.status).toBe(1);
    expect(open.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without tokens/);
    oneClearLine(open.stderr);
    const local = startCli(['serve', '--port', '0', '--db', join(dir, 'local.db'), '--log-level', 'silent']);
    await local.waitFor((out) => /\/\?token=\S+/.test(out));
    expect(local.stdout()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    local.process.kill('SIGTERM');
    expect(await local.exited).toBe(0);
  });

  it('--demo with RECOURSE_DATABASE_URL from the environment is refused (exit 2) before any database is opened', async () => {
    const run = await runCliAsync(['serve', '--demo', '--port', '0'], {
      RECOURSE_DATABASE_URL: 'postgres://recourse@127.0.0.1:1/production?schema=live',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--demo runs on a database of its own, not on RECOURSE_DATABASE_URL/);
    oneClearLine(run.stderr);
  });

  it('a --db path with terminal controls in it is shown escaped in the ready line, never raw', async () => {
    const folder = join(dir, 'evil\u001b[31m\u202edir');
    mkdirSync(folder);
    const run = startCli(['serve', '--port', '0', '--db', join(folder, 'x.db'), '--log-level', 'silent'], {
      RECOURSE_TOKENS: tokens,
    });
    await run.waitFor((out) => out.includes('listening on'));
    expect(run.stdout()).toContain('(database ' + join(dir, 'evil\\x1b[31m\\u202edir', 'x.db') + ')');
    expect(rawControls(run.stdout())).toEqual([]);
    run.process.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('SIGHUP (its terminal closed) shuts it down cleanly, exit 0, and its database is free for the next serve', async () => {
    const database = join(dir, 'hangup.db');
    const first = startCli(['serve', '--port', '0', '--db', database, '--log-level', 'silent'], {
      RECOURSE_TOKENS: tokens,
    });
    await first.waitFor((out) => out.includes('listening on'));
    first.process.kill('SIGHUP');
    expect(await first.exited).toBe(0);
    const second = startCli(['serve', '--port', '0', '--db', database, '--log-level', 'silent'], {
      RECOURSE_TOKENS: tokens,
    });
    await second.waitFor((out) => out.includes('listening on'));
    second.process.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('SIGHUP after its terminal is gone (writes fail) still shuts it down cleanly: exit 0, its database closed', async () => {
    const database = join(dir, 'hangup-gone.db');
    // The default log level: the shutdown says so on standard output, which is gone with the terminal.
    const first = startCli(['serve', '--port', '0', '--db', database], { RECOURSE_TOKENS: tokens });
    await first.waitFor((out) => out.includes('listening on'));
    // Nothing reads its output any more, as after a closed terminal: every write fails (EPIPE here, EIO on a tty).
    first.process.stdout.destroy();
    first.process.stderr.destroy();
    first.process.kill('SIGHUP');
    expect(await first.exited).toBe(0);
    // Closed: SQLite folds its write-ahead log back into the file and removes it.
    expect(existsSync(`${database}-wal`)).toBe(false);
  });

  it('a second serve on the same database is refused while the first runs; a webhook needs its secret', async () => {
    const database = join(dir, 'shared.db');
    const first = startCli(['serve', '--port', '0', '--db', database, '--log-level', 'silent'], {
      RECOURSE_TOKENS: tokens,
    });
    await first.waitFor((out) => out.includes('listening on'));
    const second = await runCliAsync(['serve', '--port', '0', '--db', database], { RECOURSE_TOKENS: tokens });
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/another Recourse/);
    oneClearLine(second.stderr);
    first.process.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const hook = await runCliAsync(
      ['serve', '--port', '0', '--db', join(dir, 'hook.db'), '--webhook', 'http://127.0.0.1:9911/x'],
      {
        RECOURSE_TOKENS: tokens,
      },
    );
    expect(hook.status).toBe(1);
    expect(hook.stderr).toMatch(/RECOURSE_WEBHOOK_SECRET/);
  });
});
