import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRecourse, type RunAttemptFunction } from '../../src/app/index.js';
import type { DynamicProfileInput } from '../../src/core/index.js';
import { apimKey, leaksIn, planted, plantedCases as cases } from '../helpers/planted-credentials.js';
import { ManualClock } from '../../src/engine/index.js';
import { t0 } from '../core/route/route-fixtures.js';
import { runCli } from '../cli/run-cli.js';

/**
 * Issue 10: credentials planted in the evidence of failures, in every place evidence carries text (stderr, HTTP
 * bodies as JSON and as plain text, HTTP headers), must not come out anywhere: the `recourse classify` output in
 * each of its formats, the SQLite database file (and its write-ahead log) of an embedded Recourse that ran the
 * failing attempts, and what that Recourse logs and emits. "Come out" includes any 12-character fragment.
 */

describe('[DAT-09][DAT-13][CLS-21] planted credentials never come out (issue 10)', () => {
  it('plants at least 20 distinct credential formats, each in stderr, JSON and plain bodies, and a header', () => {
    expect(new Set(planted.map((p) => p.format)).size).toBeGreaterThanOrEqual(20);
    expect(new Set(planted.map((p) => p.secret)).size).toBe(planted.length);
    const headers = new Set(planted.map((p) => p.header[0].toLowerCase()));
    for (const h of ['authorization', 'x-api-key', 'api-key', 'ocp-apim-subscription-key', 'cookie']) {
      expect(headers).toContain(h);
    }
    // The fragment check finds what it looks for: the planted inputs themselves leak every format.
    expect(leaksIn(JSON.stringify(cases.map((c) => c.envelope)))).toHaveLength(planted.length);
  });

  describe('the recourse classify CLI', () => {
    let file: string;
    beforeAll(async () => {
      const folder = await mkdtemp(join(tmpdir(), 'recourse-planted-'));
      file = join(folder, 'evidence.jsonl');
      await writeFile(file, cases.map((c) => JSON.stringify(c.envelope)).join('\n') + '\n');
    });

    it.each([
      ['JSON Lines', []],
      ['--pretty', ['--pretty']],
      ['--explain', ['--explain']],
    ])('prints no planted credential (%s)', (_name, flags) => {
      const result = runCli(['classify', ...flags, file]);
      expect(result.status).toBe(0);
      expect(result.lines.length).toBeGreaterThanOrEqual(cases.length);
      expect(leaksIn(result.stdout + result.stderr)).toEqual([]);
    });

    it('still says what failed: the Azure APIM message survives around its redacted key', () => {
      const apim = cases.find((c) => c.place === 'plain body' && c.planted.secret === apimKey)!;
      const result = runCli(['classify', '-'], JSON.stringify(apim.envelope));
      const excerpt = (JSON.parse(result.lines[0]!) as { safe_excerpt: string }).safe_excerpt;
      expect(excerpt).toContain('invalid subscription key [REDACTED]');
      expect(excerpt).toContain(
        'Access denied due to invalid subscription key. Make sure to provide a valid key',
      );
    });
  });

  describe('an embedded Recourse that ran the failing attempts', () => {
    const profile: DynamicProfileInput = {
      id: 'fleet',
      name: 'Fleet',
      candidates: [{ profile_id: 'claude', provider: 'anthropic' }],
    };
    const logged: unknown[] = [];
    const snapshots: Array<{ file: string; text: string }> = [];
    let folder: string;

    beforeAll(async () => {
      folder = await mkdtemp(join(tmpdir(), 'recourse-planted-'));
      const byRoute = new Map(cases.map((c, i) => [`route-${i}`, c.envelope]));
      const run: RunAttemptFunction = (attempt) => {
        const envelope = byRoute.get(attempt.intent.routeId)!;
        // Half report the failure, half throw it (an error carrying the evidence's text and status).
        if (Number(attempt.intent.routeId.slice(6)) % 2 === 0)
          return { status: 'failure', evidence: envelope };
        const text =
          envelope.kind === 'stderr' ? envelope.text : envelope.kind === 'http' ? envelope.body : '';
        throw Object.assign(new Error(typeof text === 'string' ? text : JSON.stringify(text)), {
          status: 401,
          headers: envelope.kind === 'http' ? envelope.headers : {},
        });
      };
      const recourse = await openRecourse({
        database: join(folder, 'recourse.db'),
        clock: new ManualClock(t0),
        run,
        onEvent: (e) => logged.push(e),
        onSessionEvent: (e) => logged.push(e),
        onError: (e) => logged.push(e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : e),
        log: (entry) => logged.push(entry),
      });
      try {
        await recourse.engine.saveProfile(profile);
        for (const id of byRoute.keys())
          await recourse.engine.startRoute({ routeId: id, profileId: 'fleet' });
        for (let i = 0; i < 8; i++) {
          await recourse.engine.idle();
          await new Promise((resolve) => setImmediate(resolve));
        }
        const routes = await Promise.all([...byRoute.keys()].map((id) => recourse.engine.route(id)));
        const attempts = await Promise.all([...byRoute.keys()].map((id) => recourse.store.listAttempts(id)));
        logged.push(routes, attempts);
        snapshots.push(...(await databaseFiles('while open')));
        // Every route ran and recorded its failed attempt (else the database check would prove nothing).
        expect(attempts.every((a) => a.length >= 1)).toBe(true);
      } finally {
        await recourse.close();
      }
      snapshots.push(...(await databaseFiles('after close')));
    });

    /** The bytes of the database file and its -wal and -shm companions, as they are now. */
    async function databaseFiles(when: string) {
      const files = (await readdir(folder)).filter((f) => f.startsWith('recourse.db'));
      return Promise.all(
        files.map(async (f) => ({
          file: `${f} (${when})`,
          text: (await readFile(join(folder, f))).toString('latin1'),
        })),
      );
    }

    afterAll(() => {
      logged.length = 0;
    });

    it('keeps no planted credential in the database file or its write-ahead log', () => {
      const names = snapshots.map((s) => s.file);
      expect(names).toContain('recourse.db (while open)');
      expect(names).toContain('recourse.db-wal (while open)');
      expect(names).toContain('recourse.db (after close)');
      for (const s of snapshots)
        expect({ file: s.file, leaks: leaksIn(s.text) }).toEqual({ file: s.file, leaks: [] });
    });

    it('logs and emits no planted credential (events, session events, errors, routes, attempts)', () => {
      expect(logged.length).toBeGreaterThan(cases.length);
      expect(leaksIn(JSON.stringify(logged))).toEqual([]);
    });
  });
});
