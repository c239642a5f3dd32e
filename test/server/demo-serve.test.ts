import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RouteDocument } from '../../src/server/route-document.js';
import { followEvents } from '../helpers/sse.js';

/**
 * The main job, as a newcomer runs it (`npm start` is `recourse serve --demo`): the built CLI, its printed URL
 * and token, and within 30 seconds of the real clock the event stream shows routes waiting, retrying,
 * switching, stopping and recovering. SIGTERM then ends it cleanly.
 */
const dir = mkdtempSync(join(tmpdir(), 'recourse-demo-serve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('recourse serve --demo', () => {
  it('prints where to look and the admin token; within 30 s every kind of recovery shows on the stream', async () => {
    const child = spawn(
      process.execPath,
      [
        'dist/cli/main.js',
        'serve',
        '--demo',
        '--port',
        '0',
        '--db',
        join(dir, 'demo.db'),
        '--log-level',
        'warn',
      ],
      { env: { ...process.env, RECOURSE_TOKENS: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    // Kept for the failure message: an exit other than 0 says why on standard error.
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const opened = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start-up line: ${out}`)), 30_000);
      child.stdout.on('data', () => {
        const match = /(http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)/.exec(out);
        if (match !== null) {
          clearTimeout(timer);
          resolve({ url: match[1]!, token: match[2]! });
        }
      });
    });
    const stream = followEvents(`${opened.url}/v1/events?last_event_id=0`, {
      authorization: `Bearer ${opened.token}`,
    });
    const seen = new Set<string>();
    const recovered = () =>
      stream.events.some((e) => {
        if (e.event !== 'route.transition') return false;
        const data = JSON.parse(e.data) as { from: string | null; route: RouteDocument };
        return data.route.state === 'active' && (data.from === 'retrying' || data.from === 'switching');
      });
    try {
      await stream.waitFor((events) => {
        for (const e of events) {
          if (e.event === 'route.transition')
            seen.add((JSON.parse(e.data) as { route: RouteDocument }).route.state);
        }
        return (
          ['retry_wait', 'retrying', 'switching', 'action_required', 'waiting_for_reset'].every((s) =>
            seen.has(s),
          ) && recovered()
        );
      }, 30_000);
    } finally {
      stream.close();
      child.kill('SIGTERM');
    }
    expect(await exited, err).toBe(0);
    expect(out).toContain('recourse routes list');
  }, 90_000);
});
