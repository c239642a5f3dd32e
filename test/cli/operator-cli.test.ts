import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/server/service.js';
import { rawControls, runCliAsync, startCli } from './run-cli.js';

const tokens = {
  admin: 'admin-token-0123456789abcdef',
  viewer: 'viewer-token-0123456789abcdef',
  adapter: 'adapter-token-0123456789abcdef',
};
const serviceTokens = [
  { role: 'admin', token: tokens.admin },
  { role: 'viewer', token: tokens.viewer },
  { role: 'adapter', token: tokens.adapter },
] as const;

const classPolicy = (retries: number) => ({
  retry: { enabled: retries > 0, max_retries: retries, initial_interval_seconds: retries > 0 ? 600 : 0 },
  wait_for_reset: { enabled: false, max_wait_seconds: 0 },
  on_exhausted: retries > 0 ? 'skip' : 'stop',
});
/** Long retry delays (600 s): a route stays in retry_wait for the whole test. */
const profile = (id: string) => ({
  id,
  name: `${id} profile`,
  candidates: ['a', 'b'].map((c) => ({
    profile_id: c,
    policy: { version: 1, transient: classPolicy(3), hard: classPolicy(0) },
  })),
});
const overloaded = {
  kind: 'http',
  provider: 'anthropic',
  status: 529,
  body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
};

const dir = mkdtempSync(join(tmpdir(), 'recourse-operator-cli-'));
let service: RunningService;
let env: Record<string, string>;

/**
 * One request on a connection of its own (`agent: false`): a test restarts the service on the same port, and a
 * pooled keep-alive connection to the stopped one would be reused and cut (UND_ERR_SOCKET, seen in CI).
 */
function api(target: RunningService, method: string, path: string, token: string, body?: unknown) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const request = httpRequest(
      `${target.url}${path}`,
      {
        method,
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: (text === '' ? null : JSON.parse(text)) as unknown,
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** Starts a route, acknowledges its dispatch as an orchestrator would, and reports an overload: retry_wait 1/3. */
async function routeInRetryWait(target: RunningService, id: string, profileId = 'fleet') {
  const started = await api(target, 'POST', '/v1/routes', tokens.admin, {
    route_id: id,
    profile_id: profileId,
  });
  expect(started.status).toBe(201);
  const dispatch = (started.body as { dispatch: { id: string } }).dispatch.id;
  expect(
    (await api(target, 'POST', `/v1/routes/${id}/dispatches/${dispatch}/ack`, tokens.adapter)).status,
  ).toBe(200);
  const failed = await api(target, 'POST', `/v1/routes/${id}/evidence`, tokens.adapter, {
    generation: 1,
    envelope: overloaded,
    replay: { assistant_output: false, tool_activity: false },
  });
  expect(failed.status).toBe(200);
  expect((failed.body as { route: { state: string } }).route.state).toBe('retry_wait');
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 9;
}

/** `recourse events --json` output as `<route> <from> -> <state>`, one per route.transition. */
function transitionsOf(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map(
      (l) =>
        JSON.parse(l) as { route?: { id: string; state: string }; from?: string | null; intent?: unknown },
    )
    .filter((e) => e.route !== undefined)
    .map((e) => `${e.route!.id} ${e.from ?? '-'} -> ${e.route!.state}`);
}

const cli = (args: string[], extra: Record<string, string> = {}) => runCliAsync(args, { ...env, ...extra });

beforeAll(async () => {
  service = await startService({
    port: 0,
    host: '127.0.0.1',
    database: join(dir, 'operator.db'),
    tokens: serviceTokens,
    version: 'test',
    logLevel: 'silent',
    // Short, so a start left unacknowledged becomes an ambiguous dispatch while the test waits.
    ackTimeoutMs: 1500,
  });
  env = { RECOURSE_SERVER: service.url, RECOURSE_TOKEN: tokens.admin };
  expect((await api(service, 'PUT', '/v1/profiles/fleet', tokens.admin, profile('fleet'))).status).toBe(200);
  for (const id of ['r-wait-1', 'r-wait-2', 'r-wait-3', 'r-wait-4']) await routeInRetryWait(service, id);
  expect(
    (await api(service, 'POST', '/v1/routes', tokens.admin, { route_id: 'r-amb', profile_id: 'fleet' }))
      .status,
  ).toBe(201);
  // Never acknowledged: after the ack timeout the delivery is uncertain and the route needs a person.
  for (let i = 0; i < 100; i++) {
    const route = await api(service, 'GET', '/v1/routes/r-amb', tokens.admin);
    if ((route.body as { state: string }).state === 'action_required') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('recourse routes list', () => {
  it('prints a table in words: state, candidate, code, retry n/max, deadline with its distance, the next outcome [API-03]', async () => {
    const run = await cli(['routes', 'list']);
    expect(run.status).toBe(0);
    expect(run.lines[0]).toMatch(/^ID\s+STATE\s+CANDIDATE\s+CODE\s+RETRY\s+DEADLINE\s+THEN$/);
    const row = run.lines.find((l) => l.startsWith('r-wait-1 '));
    expect(row).toMatch(
      /^r-wait-1\s+waiting to retry\s+a\s+provider_overloaded\s+1\/3\s+(\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\dZ \(in (\d min( \d+ s)?|10 min)\)\s+skip → b$/,
    );
    expect(run.lines.find((l) => l.startsWith('r-amb '))).toMatch(/needs action \(ambiguous_dispatch\)/);
    // Standard output is a pipe here: no colour codes.
    expect(rawControls(run.stdout)).toEqual([]);
    expect(run.stderr).toBe('');
  });

  it('--json prints one route document per line; --limit pages and names the cursor; --all follows it', async () => {
    const page = await cli(['routes', 'list', '--json', '--limit', '2']);
    expect(page.status).toBe(0);
    expect(page.lines.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['r-amb', 'r-wait-1']);
    expect(page.stderr).toContain('more routes follow: --cursor "r-wait-1", or --all');
    const all = await cli(['routes', 'list', '--json', '--limit', '2', '--all']);
    expect(all.status).toBe(0);
    expect(all.lines.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual([
      'r-amb',
      'r-wait-1',
      'r-wait-2',
      'r-wait-3',
      'r-wait-4',
    ]);
    const filtered = await cli([
      'routes',
      'list',
      '--json',
      '--state',
      'action_required',
      '--profile',
      'fleet',
    ]);
    expect(filtered.lines.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['r-amb']);
    const table = await cli(['routes', 'list', '--limit', '2']);
    expect(table.lines).toHaveLength(4);
    expect(table.lines[3]).toBe('more routes follow: --cursor "r-wait-1", or --all');
    const allTable = await cli(['routes', 'list', '--limit', '2', '--all']);
    expect(allTable.lines).toHaveLength(6);
    const none = await cli(['routes', 'list', '--profile', 'nobody']);
    expect(none.stdout).toBe('No routes.\n');
  });

  it('a usage error exits 2 with one line: a bad --limit, an unknown --state, a --server that is not http', async () => {
    for (const args of [
      ['routes', 'list', '--limit', '0'],
      ['routes', 'list', '--state', 'sleeping'],
      ['routes', 'list', '--server', 'ftp://example.org'],
    ]) {
      const run = await cli(args);
      expect(run.status).toBe(2);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stdout).toBe('');
    }
    expect((await cli(['routes', 'show'])).status).toBe(2);
  });

  it('a token no server can have (a CRLF copied with it, a space) is a usage error that never prints it, not a stack trace', async () => {
    for (const token of [
      'hunter2pass-0123456789\r',
      'hunter2pass-0123456789\nX-Other: 1',
      'hunter2pass 0123456789',
    ]) {
      for (const args of [['routes', 'list'], ['events']]) {
        const run = await cli(args, { RECOURSE_TOKEN: token });
        expect(run.status, JSON.stringify(token)).toBe(2);
        expect(run.stderr).toContain('RECOURSE_TOKEN');
        expect(run.stderr).not.toContain('hunter2pass');
        expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      }
    }
  });

  it('a --server with a user, password, query or fragment is a usage error that never prints them (a pasted sign-in URL)', async () => {
    for (const [server, shown] of [
      ['http://user:hunter2pass@127.0.0.1:7420', 'http://***:***@127.0.0.1:7420/'],
      ['http://hunter2pass@127.0.0.1:7420', 'http://***@127.0.0.1:7420/'],
      ['http://127.0.0.1:7420/?token=hunter2pass', 'http://127.0.0.1:7420/'],
      ['http://127.0.0.1:7420/#hunter2pass', 'http://127.0.0.1:7420/'],
    ] as const) {
      for (const args of [
        ['routes', 'list', '--server', server],
        ['events', '--server', server],
      ]) {
        const run = await cli(args);
        expect(run.status, server).toBe(2);
        expect(run.stderr, server).toContain(`(got "${shown}")`);
        expect(run.stderr, server).not.toContain('hunter2pass');
        expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      }
    }
  });
});

describe('recourse routes show', () => {
  it('shows the route in words (cause, retry of max, deadline, pending outcome, next candidate) and its attempts [API-03]', async () => {
    const run = await cli(['routes', 'show', 'r-wait-1']);
    expect(run.status).toBe(0);
    expect(run.lines[0]).toBe('r-wait-1: waiting to retry a (retry 1 of 3)');
    expect(run.stdout).toMatch(/^ {2}cause {6}provider_overloaded \(transient\)$/m);
    expect(run.stdout).toMatch(/^ {2}retry {6}1 of 3$/m);
    expect(run.stdout).toMatch(
      /^ {2}deadline {3}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ \(in (\d min( \d+ s)?|10 min)\)$/m,
    );
    expect(run.stdout).toMatch(/^ {2}then {7}skip → b/m);
    expect(run.stdout).toMatch(/^ {2}next {7}b$/m);
    expect(run.stdout).toContain('Attempts (1)');
    expect(run.stdout).toMatch(/^1\s+\S+ \(.+\)\s+a\s+1\s+provider_overloaded\s+transient\s+retry\s+1\s/m);
  });

  it('names the uncertain candidate after an ambiguous dispatch, and its reason', async () => {
    const run = await cli(['routes', 'show', 'r-amb']);
    expect(run.status).toBe(0);
    expect(run.lines[0]).toBe('r-amb: needs action: the last attempt may or may not have been delivered');
    expect(run.stdout).toMatch(/^ {2}uncertain {2}a: /m);
    expect(run.stdout).toMatch(/^ {2}reason {5}ambiguous_dispatch$/m);
    expect(run.stdout).toContain('No attempts recorded yet.');
  });

  it('--json prints the route document and its attempts', async () => {
    const run = await cli(['routes', 'show', 'r-wait-1', '--json']);
    const parsed = JSON.parse(run.stdout) as {
      route: { id: string; max_retries: number };
      attempts: unknown[];
    };
    expect(parsed.route).toMatchObject({ id: 'r-wait-1', max_retries: 3 });
    expect(parsed.attempts).toHaveLength(1);
  });

  it('an unknown route is one line on standard error and exit 1 (a 404)', async () => {
    const run = await cli(['routes', 'show', 'nope']);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`recourse routes show: ${service.url}: 404 not_found: no route "nope"\n`);
  });
});

describe('recourse routes retry|skip|cancel|stop', () => {
  it('[RTE-18][RTE-20] without --generation reads the route, says so, acts and prints the authoritative state', async () => {
    const run = await cli(['routes', 'retry', 'r-wait-2']);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe(
      'recourse routes retry: read the route just now: generation 1, state retry_wait\n',
    );
    expect(run.stdout).toBe('retry_now: done. r-wait-2 → retrying a; state retrying, generation 1\n');
  });

  it('[RTE-19] a stale --generation or --state is refused: the reason and the current state on one line, exit 1', async () => {
    const stale = await cli(['routes', 'skip', 'r-wait-3', '--generation', '7']);
    expect(stale.status).toBe(1);
    expect(stale.stdout).toBe('');
    expect(stale.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stale.stderr).toMatch(
      /^recourse routes skip: refused \(stale_generation\): .+; the route is now retry_wait, generation 1\n$/,
    );
    const wrongState = await cli([
      'routes',
      'skip',
      'r-wait-3',
      '--generation',
      '1',
      '--state',
      'waiting_for_reset',
    ]);
    expect(wrongState.status).toBe(1);
    expect(wrongState.stderr).toMatch(
      /refused \(stale_state\): .+; the route is now retry_wait, generation 1\n$/,
    );
  });

  it('[RTE-11][RTE-21] cancel with the generation seen moves a wait to action_required; cancelling again changes nothing', async () => {
    const first = await cli(['routes', 'cancel', 'r-wait-3', '--generation', '1', '--state', 'retry_wait']);
    expect(first.status).toBe(0);
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(
      'cancel: done. r-wait-3 → needs action: cancelled; state action_required, generation 1\n',
    );
    const again = await cli(['routes', 'cancel', 'r-wait-3', '--generation', '1']);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(
      /^cancel: nothing to change \(already so\). r-wait-3 → needs action: cancelled;/,
    );
  });

  it('[API-06] a viewer may read but neither act on a route nor edit a profile: 403 is one line and exit 4', async () => {
    const read = await cli(['routes', 'show', 'r-wait-4'], { RECOURSE_TOKEN: tokens.viewer });
    expect(read.status).toBe(0);
    const run = await cli(['routes', 'retry', 'r-wait-4', '--generation', '1'], {
      RECOURSE_TOKEN: tokens.viewer,
    });
    expect(run.status).toBe(4);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `recourse routes retry: ${service.url}: not allowed (403 forbidden: the viewer role may not do this (it needs operate access))\n`,
    );
    const file = join(dir, 'viewer-edit.json');
    writeFileSync(file, JSON.stringify(profile('fleet')));
    const edit = await cli(['profiles', 'apply', '-f', file], { RECOURSE_TOKEN: tokens.viewer });
    expect(edit.status).toBe(4);
    expect(edit.stderr).toMatch(
      /^recourse profiles apply: .+: not allowed \(403 forbidden: the viewer role may not do this \(it needs admin access\)\)\n$/,
    );
  });
});

describe('errors every client command shares', () => {
  it('a bad token (401) is one line and exit 4; --token overrides RECOURSE_TOKEN', async () => {
    const run = await cli(['routes', 'list', '--token', 'not-a-valid-token-at-all']);
    expect(run.status).toBe(4);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `recourse routes list: ${service.url}: the token was refused (401 unauthorized: the bearer token is not valid): set --token or RECOURSE_TOKEN\n`,
    );
    const none = await runCliAsync(['profiles', 'list'], { RECOURSE_SERVER: service.url });
    expect(none.status).toBe(4);
    expect(none.stderr).toMatch(
      /: no token was given \(401 unauthorized: .+\): set --token or RECOURSE_TOKEN\n$/,
    );
  });

  it('a server that cannot be reached is one line and exit 3', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    for (const args of [['routes', 'list'], ['profiles', 'get', 'fleet'], ['events']]) {
      const run = await cli([...args, '--server', url]);
      expect(run.status).toBe(3);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `recourse ${args.slice(0, args[0] === 'events' ? 1 : 2).join(' ')}: ${url}: cannot reach the server (ECONNREFUSED): is \`recourse serve\` running there?\n`,
      );
    }
  });
});

describe('recourse profiles', () => {
  it('[API-01][API-02] apply -f stores the file (its id names it) and prints the version; --if-version sends If-Match', async () => {
    const file = join(dir, 'second.json');
    writeFileSync(file, JSON.stringify(profile('second')));
    const run = await cli(['profiles', 'apply', '-f', file]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('profile second stored: version 1, candidates a, b\n');
    const stale = await cli(['profiles', 'apply', '-f', file, '--if-version', '0']);
    expect(stale.status).toBe(1);
    expect(stale.stderr).toMatch(/^recourse profiles apply: .+: 409 version_conflict: .+\n$/);
    const list = await cli(['profiles', 'list']);
    expect(list.lines).toEqual([
      'ID      NAME            VERSION',
      'fleet   fleet profile   1',
      'second  second profile  1',
    ]);
    const get = await cli(['profiles', 'get', 'second']);
    expect(get.lines.slice(0, 3)).toEqual([
      'second (second profile), version 1',
      '  a',
      '    transient  retry after 10 min, 20 min, 40 min; no reset waiting; then skip',
    ]);
    const json = await cli(['profiles', 'get', 'second', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: 'second', version: 1 });
    const staleDelete = await cli(['profiles', 'delete', 'second', '--if-version', '2']);
    expect(staleDelete.status).toBe(1);
    expect(staleDelete.stderr).toMatch(/^recourse profiles delete: .+: 409 version_conflict: .+\n$/);
    const deleted = await cli(['profiles', 'delete', 'second', '--if-version', '1']);
    expect(deleted.status).toBe(0);
    expect(deleted.stdout).toBe('profile second deleted\n');
  });

  it('an invalid file is refused with each field path (422), exit 1; a profile in use is not deleted', async () => {
    const file = join(dir, 'invalid.json');
    writeFileSync(
      file,
      JSON.stringify({ id: 'broken', name: 'x', candidates: [{ profile_id: 'a', policy: { version: 1 } }] }),
    );
    const run = await cli(['profiles', 'apply', '-f', file]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n').slice(0, 3)).toEqual([
      'recourse profiles apply: the server refused the profile "broken" (2 invalid fields):',
      expect.stringMatching(/^ {2}\/candidates\/0\/policy\/transient: incomplete class coverage/) as string,
      expect.stringMatching(/^ {2}\/candidates\/0\/policy\/hard: incomplete class coverage/) as string,
    ]);
    // An id full of terminal controls is shown escaped once, readable as JSON, never raw.
    const hostile = join(dir, 'hostile-id.json');
    writeFileSync(
      hostile,
      JSON.stringify({
        id: 'bad\u001b[2J\u202eid',
        name: 'x',
        candidates: [{ profile_id: 'a', policy: { version: 1 } }],
      }),
    );
    const refused = await cli(['profiles', 'apply', '-f', hostile]);
    expect(refused.status).toBe(1);
    expect(refused.stderr.split('\n')[0]).toMatch(
      /^recourse profiles apply: the server refused the profile "bad\\u001b\[2J\\u202eid" \(/,
    );
    const noId = join(dir, 'no-id.json');
    writeFileSync(noId, JSON.stringify({ name: 'x', candidates: [] }));
    expect((await cli(['profiles', 'apply', '-f', noId])).status).toBe(1);
    const missing = await cli(['profiles', 'apply', '-f', join(dir, 'missing.json')]);
    expect(missing.status).toBe(2);
    const inUse = await cli(['profiles', 'delete', 'fleet']);
    expect(inUse.status).toBe(1);
    expect(inUse.stderr).toMatch(/^recourse profiles delete: .+: 409 in_use: .+\n$/);
  });
});

describe('recourse events', () => {
  it('prints a transition that happens after it connected, one line per event; SIGINT exits 0', async () => {
    const events = startCli(['events'], env);
    await events.waitFor((_, stderr) => stderr.includes(`recourse events: following ${service.url}\n`));
    expect(
      (
        await api(service, 'POST', '/v1/routes/r-wait-4/actions', tokens.admin, {
          action: 'stop',
          expected_generation: 1,
        })
      ).status,
    ).toBe(200);
    await events.waitFor((stdout) => stdout.includes('route.transition r-wait-4'));
    expect(events.lines()).toContainEqual(
      expect.stringMatching(
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z route\.transition r-wait-4 retry_wait -> action_required provider_overloaded \(stopped\)$/,
      ),
    );
    events.process.kill('SIGINT');
    expect(await events.exited).toBe(0);
  });

  it('an event id the server does not keep ends with a reload message and exit 3', async () => {
    const run = await cli(['events', '--since', '999999']);
    expect(run.status).toBe(3);
    expect(run.stderr).toContain('recourse events: the server asks for a reload (unknown_event_id)');
  });

  it('resumes after the server restarts, with Last-Event-ID: no event is missed or repeated (--json)', async () => {
    const database = join(dir, 'restart.db');
    const port = await closedPort();
    const options = {
      port,
      host: '127.0.0.1',
      database,
      tokens: serviceTokens,
      version: 'test',
      logLevel: 'silent',
    } as const;
    let first: RunningService | null = await startService(options);
    expect((await api(first, 'PUT', '/v1/profiles/fleet', tokens.admin, profile('fleet'))).status).toBe(200);
    const events = startCli(['events', '--json'], { ...env, RECOURSE_SERVER: first.url });
    try {
      await events.waitFor((_, stderr) => stderr.includes('following'));
      await routeInRetryWait(first, 'before-restart');
      await events.waitFor((stdout) => transitionsOf(stdout).includes('before-restart active -> retry_wait'));
      await first.close();
      first = null;
      await events.waitFor((_, stderr) => stderr.includes('connection lost; reconnecting'));
      const second = await startService(options);
      try {
        // Likely before the client is back: the log hands these over when it resumes.
        await routeInRetryWait(second, 'after-restart');
        await events.waitFor((stdout) =>
          transitionsOf(stdout).includes('after-restart active -> retry_wait'),
        );
        expect(events.stderr()).toMatch(/following http:\/\/127\.0\.0\.1:\d+ after event \d+\n/);
        const transitions = transitionsOf(events.stdout());
        expect(transitions).toEqual([
          'before-restart - -> active',
          'before-restart active -> retry_wait',
          'after-restart - -> active',
          'after-restart active -> retry_wait',
        ]);
      } finally {
        events.process.kill('SIGINT');
        await events.exited;
        await second.close();
      }
    } finally {
      if (events.process.exitCode === null) events.process.kill('SIGKILL');
      await first?.close();
    }
  });
});

// Last in the file: the purge deletes routes the tests above read.
describe('recourse routes purge', () => {
  it('a bad instant is a usage error (exit 2); a viewer is refused (exit 4); an admin purges what waits for nothing', async () => {
    const bad = await cli(['routes', 'purge', '--finished-before', 'last week']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^recourse routes purge: --finished-before must be an ISO-8601 date-time/);
    const missing = await cli(['routes', 'purge']);
    expect(missing.status).toBe(2);
    const viewer = await cli(['routes', 'purge', '--finished-before', '2999-01-01T00:00:00Z'], {
      RECOURSE_TOKEN: tokens.viewer,
    });
    expect(viewer.status).toBe(4);
    const none = await cli(['routes', 'purge', '--finished-before', '2020-01-01T00:00:00Z']);
    expect(none.status).toBe(0);
    expect(none.stdout).toBe('Purged 0 routes that last changed before 2020-01-01T00:00:00Z.\n');
    // Cancelled, r-purge needs action and no attempt of it runs. r-amb stopped because its dispatch was never
    // acknowledged (ambiguous_dispatch): never sent again and waited for no more, it goes too (docs/server.md,
    // Retention). The routes in retry_wait wait: they stay.
    await routeInRetryWait(service, 'r-purge');
    const cancelled = await api(service, 'POST', '/v1/routes/r-purge/actions', tokens.admin, {
      action: 'cancel',
      expected_generation: 1,
    });
    expect(cancelled.status).toBe(200);
    const run = await cli(['routes', 'purge', '--finished-before', '2999-01-01T00:00:00Z']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Purged [1-9]\d* routes? that last changed before 2999-01-01T00:00:00Z\.\n$/);
    expect((await api(service, 'GET', '/v1/routes/r-purge', tokens.admin)).status).toBe(404);
    expect((await api(service, 'GET', '/v1/routes/r-amb', tokens.admin)).status).toBe(404);
    expect((await api(service, 'GET', '/v1/routes/r-wait-1', tokens.admin)).status).toBe(200);
  });
});
