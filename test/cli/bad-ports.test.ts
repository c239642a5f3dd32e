import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliAsync } from './run-cli.js';

// The Fetch standard's bad ports (6000 is X11, 10080 Amanda): Node's fetch and every browser refuse to connect to
// them. `recourse serve --port 6000` listened there, and then neither its CLI ("cannot reach the server (bad
// port): is `recourse serve` running there?", exit 3, or "fetch failed") nor its web UI could reach it.

const dir = mkdtempSync(join(tmpdir(), 'recourse-bad-ports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ports that browsers and fetch refuse', () => {
  it('serve refuses to listen on one: a usage error (exit 2) naming the flag, no database made', async () => {
    const db = join(dir, 'never.db');
    const run = await runCliAsync(['serve', '--port', '6000', '--db', db]);
    expect(run).toMatchObject({
      status: 2,
      stdout: '',
      stderr:
        "recourse serve: --port 6000 is a port that browsers and fetch refuse to connect to (the Fetch standard's bad ports): choose another, such as the default 7420\n",
    });
    expect(existsSync(db)).toBe(false);
  });

  it('a client command given one in --server is a usage error (exit 2) that says why, not an unreachable server', async () => {
    const runs = await Promise.all(
      [['errors', 'p1'], ['plan', 'cancel', 'p1'], ['routes', 'list'], ['events']].map((args) =>
        runCliAsync([...args, '--server', 'http://127.0.0.1:10080'], { RECOURSE_TOKEN: 'token-1' }),
      ),
    );
    for (const run of runs) {
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(
        /^recourse [a-z ]+: --server port 10080 is a port that browsers and fetch refuse to connect to \(the Fetch standard's bad ports\): no Recourse server listens there \(`recourse serve` refuses it\)\n$/,
      );
    }
  });

  it('serve refuses a --webhook on one: every delivery would fail as a bad port, so it is a usage error (exit 2), no database made', async () => {
    const refused = await runCliAsync(
      ['serve', '--port', '0', '--db', join(dir, 'hook.db'), '--webhook', 'http://127.0.0.1:6667/hook'],
      {
        RECOURSE_TOKENS: 'admin:admin-token-0123456789',
        RECOURSE_WEBHOOK_SECRET: 'webhook-secret-0123456789',
      },
    );
    expect(refused).toMatchObject({
      status: 2,
      stdout: '',
      stderr:
        "recourse serve: --webhook port 6667 is a port that browsers and fetch refuse to connect to (the Fetch standard's bad ports): no delivery could ever be made\n",
    });
    expect(existsSync(join(dir, 'hook.db'))).toBe(false);
  });

  it('fake-provider refuses to listen on one (agents reach it with fetch): a usage error (exit 2), before the script is read', async () => {
    const run = await runCliAsync(['fake-provider', '--script', join(dir, 'absent.json'), '--port', '6000']);
    expect(run).toMatchObject({
      status: 2,
      stdout: '',
      stderr:
        "recourse fake-provider: --port 6000 is a port that browsers and fetch refuse to connect to (the Fetch standard's bad ports): choose another, or 0 for a free one\n",
    });
  });

  it('the premise holds: Node’s fetch fails on these ports as bad ports, and not on the default', async () => {
    const badPort = async (port: number) =>
      fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) }).then(
        () => false,
        (error: unknown) => (error as { cause?: { message?: string } }).cause?.message === 'bad port',
      );
    expect(await badPort(6000)).toBe(true);
    expect(await badPort(10080)).toBe(true);
    expect(await badPort(7420)).toBe(false);
  });
});
