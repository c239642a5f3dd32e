import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idProblem } from '../../src/core/index.js';
import { call, policy, startTestService } from '../helpers/service.js';
import { runCliAsync } from '../cli/run-cli.js';

/**
 * An id is stored, logged, sent in every event and shown on screen: a key pasted as a route, profile or session id
 * would spread everywhere. Such ids are refused by field, and the refusal does not echo them. A real service on a
 * real SQLite file; the file's bytes are searched afterwards.
 */
const anthropicKey = `sk-ant-api03-${'Zq7'.repeat(30)}AA`;
const githubToken = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;

let running: Awaited<ReturnType<typeof startTestService>>;
beforeAll(async () => {
  running = await startTestService();
});
afterAll(async () => running.stop());

describe('ids that hold a credential', () => {
  it('idProblem tells a credential from a bad shape; e-mail addresses, UUIDs and long hex stay ids', () => {
    expect(idProblem(anthropicKey)).toBe('credential');
    expect(idProblem(`route/${githubToken}`)).toBe('credential');
    expect(idProblem('AKIAIOSFODNN7EXAMPLE')).toBe('credential');
    expect(idProblem(`apikey:${'AbCdEfGhIjKlMnOpQrStUvWxYz012345'}`)).toBe('credential');
    expect(idProblem('../etc/passwd')).toBe('shape');
    expect(idProblem(42)).toBe('shape');
    for (const fine of [
      'r1',
      'alice@example.com/task-1',
      '0190b3c2-7f1e-7abc-8def-0123456789ab',
      'f'.repeat(40),
      'token-refresh-route-abc123def456',
      'session-2026-12-06',
      // A key word before a separator is a name here, not a key's label (a task session's route id).
      'session:0190b3c2-7f1e-7abc-8def-0123456789ab',
      'session:sess-HOSTILE-c0ffee',
      'token:0190b3c2-7f1e-7abc-8def-0123456789ab',
      'secret/route-1',
    ])
      expect(idProblem(fine)).toBeNull();
  });

  it('the service refuses them by field (422) without echoing them, and stores, logs and lists none', async () => {
    const url = running.service.url;
    const profile = await call(url, 'admin', 'PUT', `/v1/profiles/${anthropicKey}`, {
      name: 'keyed',
      candidates: [{ profile_id: 'only', provider: 'anthropic', policy: policy(3, 5, 'stop') }],
    });
    expect(profile.status).toBe(422);
    expect(JSON.stringify(profile.body)).not.toContain('Zq7Zq7');
    // Said as what it is, as for a route or a plan id: not "wrong characters" for an id of the right ones.
    const issuesOf = (body: unknown) => (body as { errors: Array<{ path: string; message: string }> }).errors;
    expect(issuesOf(profile.body).find((i) => i.path === '/id')?.message).toContain(
      'looks like a credential',
    );
    const candidate = await call(url, 'admin', 'PUT', '/v1/profiles/p-keyed-candidate', {
      name: 'keyed candidate',
      candidates: [{ profile_id: anthropicKey, provider: 'anthropic', policy: policy(3, 5, 'stop') }],
    });
    expect(candidate.status).toBe(422);
    expect(issuesOf(candidate.body).find((i) => i.path === '/candidates/0/profile_id')?.message).toContain(
      'looks like a credential',
    );
    expect(JSON.stringify(candidate.body)).not.toContain('Zq7Zq7');
    const saved = await call(url, 'admin', 'PUT', '/v1/profiles/p-fine', {
      name: 'fine',
      candidates: [{ profile_id: 'only', provider: 'anthropic', policy: policy(3, 5, 'stop') }],
    });
    expect(saved.status).toBe(200);
    for (const [body, path] of [
      [{ route_id: anthropicKey, profile_id: 'p-fine' }, '/route_id'],
      [{ session_id: `s/${githubToken}`, profile_id: 'p-fine' }, '/session_id'],
    ] as const) {
      const refused = await call(url, 'adapter', 'POST', '/v1/routes', body);
      expect(refused.status).toBe(422);
      const text = JSON.stringify(refused.body);
      expect(text).toContain(path);
      expect(text).toContain('looks like a credential');
      expect(text).not.toContain('Zq7Zq7');
      expect(text).not.toContain('A1b2C3d4E5');
    }
    const session = await call(url, 'adapter', 'POST', '/v1/sessions', {
      task_id: 'task-1',
      session_id: anthropicKey,
      profile_id: 'p-fine',
      owner: 'alice',
    });
    expect(session.status).toBe(422);
    expect(JSON.stringify(session.body)).toContain('/session_id');
    const listed = await call(url, 'viewer', 'GET', '/v1/routes');
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain('Zq7Zq7');
    // Nothing of either key in the database file or its write-ahead log.
    for (const name of readdirSync(running.dir).filter((n) => n.startsWith('recourse.db'))) {
      const bytes = readFileSync(join(running.dir, name)).toString('latin1');
      expect(bytes).not.toContain('Zq7Zq7');
      expect(bytes).not.toContain('A1b2C3d4E5');
    }
  });

  it('the CLI refuses one as a usage error (exit 2) before any request, and does not print it', async () => {
    for (const args of [
      ['routes', 'show', anthropicKey],
      ['errors', githubToken],
    ]) {
      const run = await runCliAsync([...args, '--server', 'http://127.0.0.1:9911'], {
        RECOURSE_TOKEN: 'token-1',
      });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/looks like a credential/);
      expect(run.stderr).not.toContain('Zq7Zq7');
      expect(run.stderr).not.toContain('A1b2C3d4E5');
    }
  });
});
