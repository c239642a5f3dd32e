import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { RouteDocument } from '../../src/server/route-document.js';
import { call, overloaded, policy, tokens } from '../helpers/service.js';

/**
 * SIGTERM during load, then a restart, with the real `recourse serve` process: every answered request's decision
 * is in the database, the shutdown exits 0, and after the restart every wait fires exactly once.
 */
const dir = mkdtempSync(join(tmpdir(), 'recourse-sigterm-'));
const database = join(dir, 'recourse.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tokenEnv = Object.entries(tokens)
  .map(([role, token]) => `${role}:${token}`)
  .join(',');

async function serve(): Promise<{ child: ChildProcess; base: string; exited: Promise<number | null> }> {
  const child = spawn(
    process.execPath,
    [
      'dist/cli/main.js',
      'serve',
      '--port',
      '0',
      '--db',
      database,
      '--log-level',
      'warn',
      '--ack-timeout',
      '120',
    ],
    { env: { ...process.env, RECOURSE_TOKENS: tokenEnv }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match !== null) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}${err}`)));
  });
  return { child, base, exited };
}

async function failOnce(base: string, id: string): Promise<RouteDocument> {
  const started = (await call(base, 'adapter', 'POST', '/v1/routes', { route_id: id, profile_id: 'p' }))
    .body as RouteDocument;
  await call(base, 'adapter', 'POST', `/v1/routes/${id}/dispatches/${started.dispatch!.id}/ack`);
  const failed = await call(base, 'adapter', 'POST', `/v1/routes/${id}/evidence`, {
    envelope: overloaded,
    generation: 1,
    invocation_id: started.dispatch!.id,
    replay: {},
  });
  return (failed.body as { route: RouteDocument }).route;
}

describe('recourse serve under SIGTERM', () => {
  it('loses no committed decision and arms nothing twice on the next start', async () => {
    const first = await serve();
    await call(first.base, 'admin', 'PUT', '/v1/profiles/p', {
      name: 'P',
      // No provider descriptor: no shared circuit, so every route keeps its own cadence.
      candidates: [{ profile_id: 'only', policy: policy(3, 3, 'stop') }],
    });
    const waiting = await Promise.all(Array.from({ length: 40 }, (_, i) => failOnce(first.base, `w-${i}`)));
    expect(waiting.every((r) => r.state === 'retry_wait')).toBe(true);
    // Load while the signal arrives: routes starting and being cancelled, answers recorded as they come.
    const answered: RouteDocument[] = [];
    const load = Array.from({ length: 60 }, async (_, i) => {
      const id = `l-${i}`;
      const started = await call(first.base, 'adapter', 'POST', '/v1/routes', {
        route_id: id,
        profile_id: 'p',
      }).catch(() => null);
      if (started?.status === 201) answered.push(started.body as RouteDocument);
    });
    setTimeout(() => first.child.kill('SIGTERM'), 5);
    await Promise.all(load);
    expect(await first.exited).toBe(0);

    const second = await serve();
    for (const route of answered) {
      const read = await call(second.base, 'viewer', 'GET', `/v1/routes/${route.id}`);
      expect(read.status).toBe(200);
      expect((read.body as RouteDocument).revision).toBeGreaterThanOrEqual(route.revision);
    }
    // Every wait was re-armed and fires once (3 s after its failure): each route has exactly one retry intent.
    await new Promise((r) => setTimeout(r, 4_500));
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    const db = new Database(database, { readonly: true });
    try {
      const retries = db
        .prepare(
          "SELECT route_id, count(*) AS n FROM dispatch_intents WHERE kind = 'retry' GROUP BY route_id",
        )
        .all() as { route_id: string; n: number }[];
      const byRoute = new Map(retries.map((r) => [r.route_id, r.n]));
      for (const route of waiting) expect(byRoute.get(route.id), route.id).toBe(1);
      const loadRetries = retries.filter((r) => r.route_id.startsWith('l-'));
      expect(loadRetries).toEqual([]);
    } finally {
      db.close();
    }
  }, 120_000);
});
