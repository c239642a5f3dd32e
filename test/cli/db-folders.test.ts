import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliAsync } from './run-cli.js';
import { openRecourse } from '../../src/app/index.js';

/**
 * Where the database file goes when its folders are missing or cannot be made. Node's recursive mkdir never returns
 * on a file system that answers ENOENT for a folder whose parent exists (/proc): `recourse serve --db
 * /proc/x/recourse.db` spun at full CPU for good. The CLI runs as a child process so that a regression fails
 * (killed by runCliAsync's guard) instead of hanging the test worker in a synchronous loop.
 */
const dir = mkdtempSync(join(tmpdir(), 'recourse-db-folders-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const tokens = 'admin:admin-token-0123456789abcdef';

describe('a --db whose folder cannot be made', () => {
  it('a folder under /proc: exit 1 and one line naming it, not a hang', async () => {
    const run = await runCliAsync(
      ['serve', '--port', '0', '--db', `/proc/recourse-missing-${process.pid}/recourse.db`],
      { RECOURSE_TOKENS: tokens },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/ENOENT.*\/proc\/recourse-missing-\d+/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a file where a folder belongs is refused at /database; missing folders are made, owner-only', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    const run = () => ({ status: 'success' as const });
    await expect(openRecourse({ database: join(file, 'recourse.db'), run })).rejects.toMatchObject({
      code: 'invalid_input',
      issues: [{ path: '/database', message: expect.stringMatching(/a-file/) as unknown }],
    });
    const deep = join(dir, 'one', 'two', 'recourse.db');
    const recourse = await openRecourse({ database: deep, run });
    await recourse.close();
    expect(statSync(join(dir, 'one')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'one', 'two')).mode & 0o777).toBe(0o700);
  });
});
