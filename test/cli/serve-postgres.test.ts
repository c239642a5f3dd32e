import { afterAll, describe, expect, it } from 'vitest';
import { runCliAsync, startCli } from './run-cli.js';
import { dropSchemas, freshSchemaName, schemaUrl } from '../helpers/postgres.js';

/**
 * `recourse serve` on the real PostgreSQL (127.0.0.1:5432, database `test`), through the built CLI: a real server
 * process on a fresh schema, restarted. Trust authentication accepts any password, so one is given to check it is
 * never printed.
 */
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

const adminToken = 'admin-token-0123456789abcdef';
const env = { RECOURSE_TOKENS: `admin:${adminToken}` };
const password = 'pw-never-printed-7f3a';

function freshUrl(): string {
  const schema = freshSchemaName();
  schemas.push(schema);
  const url = new URL(schemaUrl(schema));
  url.password = password;
  return url.toString();
}

const profile = {
  id: 'fleet',
  name: 'fleet profile',
  candidates: [
    {
      profile_id: 'a',
      policy: {
        version: 1,
        transient: {
          retry: { enabled: true, max_retries: 2, initial_interval_seconds: 5 },
          wait_for_reset: { enabled: false, max_wait_seconds: 0 },
          on_exhausted: 'stop',
        },
        hard: {
          retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
          wait_for_reset: { enabled: false, max_wait_seconds: 0 },
          on_exhausted: 'stop',
        },
      },
    },
  ],
};

async function serve(databaseEnv: Record<string, string>, args: string[] = []) {
  const child = startCli(['serve', '--port', '0', '--log-level', 'silent', ...args], {
    ...env,
    ...databaseEnv,
  });
  await child.waitFor((out) => out.includes('listening on'));
  const base = /listening on (http:\/\/\S+)/.exec(child.stdout())![1]!;
  return { child, base };
}

async function api(base: string, method: string, path: string, body?: unknown) {
  const response = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

describe('recourse serve on PostgreSQL', () => {
  it('[DUR-07] keeps a profile created over HTTP across a restart; the password is shown as ***; one server per schema', async () => {
    const url = freshUrl();
    const first = await serve({}, ['--database-url', url]);
    expect(first.child.stdout()).toMatch(
      /\(database postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:5432\/test\?schema=recourse_test_/,
    );
    expect(first.child.stdout() + first.child.stderr()).not.toContain(password);
    expect((await api(first.base, 'PUT', '/v1/profiles/fleet', profile)).status).toBe(200);

    const second = await runCliAsync(['serve', '--port', '0', '--database-url', url], env);
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(
      /^recourse serve: schema recourse_test_\w+ of .+ is open in another Recourse/,
    );
    expect(second.stderr).not.toContain(password);

    first.child.process.kill('SIGTERM');
    expect(await first.child.exited).toBe(0);
    // The restart names the database through the environment instead.
    const again = await serve({ RECOURSE_DATABASE_URL: url });
    const read = await api(again.base, 'GET', '/v1/profiles/fleet');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: 'fleet', name: 'fleet profile' });
    again.child.process.kill('SIGTERM');
    expect(await again.child.exited).toBe(0);
  });

  it('--db with a database URL is a usage error (exit 2); a malformed or unreachable URL exits 1, password hidden', async () => {
    const url = freshUrl();
    const both = await runCliAsync(['serve', '--db', 'x.db', '--database-url', url], env);
    expect(both.status).toBe(2);
    expect(both.stderr).toBe('recourse serve: --db and --database-url both name a database: give one\n');
    const fromEnv = await runCliAsync(['serve', '--db', 'x.db'], { ...env, RECOURSE_DATABASE_URL: url });
    expect(fromEnv.status).toBe(2);
    expect(fromEnv.stderr).toMatch(/--db and RECOURSE_DATABASE_URL both name a database/);

    const malformed = await runCliAsync(['serve', '--database-url', `mysql://u:${password}@h/db`], env);
    expect(malformed.status).toBe(1);
    expect(malformed.stderr).toBe(
      'recourse serve: the database URL must start with postgres:// or postgresql://, not mysql://\n',
    );
    const badSchema = await runCliAsync(['serve', '--database-url', 'postgres://h/db?schema=x-y'], env);
    expect(badSchema.status).toBe(1);
    expect(badSchema.stderr).toMatch(/^recourse serve: the database URL schema "x-y" must be/);

    const down = await runCliAsync(
      ['serve', '--port', '0', '--database-url', `postgres://ada:${password}@127.0.0.1:1/test`],
      env,
    );
    expect(down.status).toBe(1);
    expect(down.stderr).toMatch(
      /^recourse serve: .*cannot connect to PostgreSQL at postgres:\/\/ada:\*\*\*@127\.0\.0\.1:1\/test\?schema=public: .*ECONNREFUSED/,
    );
    expect(down.stderr).not.toContain(password);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
  });
});
