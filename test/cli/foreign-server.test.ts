import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rawControls, runCliAsync, startCli } from './run-cli.js';

// `--server` pointing at something that is not a Recourse server (another service on the port, a proxy's own page):
// every client command says so in one line and exits 3 (docs/cli.md), never a stack trace or a loop.

/** Runs `test` with a server answering every request with `answer`, then closes it (and its open connections). */
async function withStub(
  answer: (request: IncomingMessage, response: ServerResponse) => void,
  test: (url: string) => Promise<void>,
): Promise<void> {
  const server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await test(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const json = (body: string) => (_request: IncomingMessage, response: ServerResponse) =>
  response.writeHead(200, { 'content-type': 'application/json' }).end(body);

const commands = [
  ['errors', 'p1'],
  ['errors', 'p1', '--format', 'json'],
  ['plan', 'retry', 'p1'],
  ['plan', 'configure', 'p1'],
  ['plan', 'error', 'p1', '--phase', 'execute', '--message', 'timed out'],
  ['routes', 'list'],
  ['routes', 'show', 'r1'],
  ['routes', 'cancel', 'r1'],
  ['routes', 'purge', '--finished-before', '2026-01-01T00:00:00Z'],
  ['profiles', 'list'],
  ['profiles', 'get', 'p'],
];

describe('a server that answers JSON of another shape', () => {
  it.each(['{}', '{"routes":"none","purged":"12","status":7,"id":[]}'])(
    'answering %s: every client command is one line, exit 3, "not a Recourse answer" (it crashed with a TypeError, exit 1; purge looped for ever)',
    (body) =>
      withStub(json(body), async (url) => {
        // Side by side: each command is a Node process start.
        const runs = await Promise.all(
          commands.map((args) =>
            runCliAsync([...args, '--server', url], { RECOURSE_TOKEN: 'token-1' }, { timeoutMs: 30_000 }),
          ),
        );
        runs.forEach((run, n) => {
          const args = commands[n]!;
          const what = args.join(' ');
          expect(run.status, what).toBe(3);
          expect(run.stdout, what).toBe('');
          expect(run.stderr, what).toMatch(
            new RegExp(
              `^recourse ${args[0]}.*: ${url}: the answer to [A-Z]+ /v1/\\S+ \\(200\\) is not a Recourse answer \\(.+\\): is it a Recourse server\\?\\n$`,
            ),
          );
        });
      }),
  );
});

describe('recourse events against a server that does not stream events', () => {
  it('an answer that is not an event stream (JSON, a page) is one line and exit 3 (it reconnected for ever)', () =>
    withStub(json('{}'), async (url) => {
      const run = await runCliAsync(['events', '--server', url], { RECOURSE_TOKEN: 'token-1' });
      expect(run).toMatchObject({
        status: 3,
        stdout: '',
        stderr: `recourse events: ${url}: did not answer with an event stream (200, content-type application/json): is it a Recourse server?\n`,
      });
    }));

  // The two slow cases run side by side.
  it.concurrent(
    'a server that never answers is exit 3 after 30 s, as for every client command (it waited for ever)',
    () =>
      withStub(
        () => undefined,
        async (url) => {
          const run = await runCliAsync(['events', '--server', url], { RECOURSE_TOKEN: 'token-1' });
          expect(run).toMatchObject({
            status: 3,
            stderr: `recourse events: ${url}: cannot reach the server (no answer within 30 s): is \`recourse serve\` running there?\n`,
          });
        },
      ),
    90_000,
  );

  it.concurrent(
    'a stream silent for 45 s (three heartbeats missed: a connection dropped without a reset) is reconnected from the last id',
    () => {
      const lastIds: (string | undefined)[] = [];
      const silent = (request: IncomingMessage, response: ServerResponse) => {
        lastIds.push(request.headers['last-event-id'] as string | undefined);
        response.writeHead(200, { 'content-type': 'text/event-stream' }).write('id: 5\ndata: {}\n\n');
      };
      return withStub(silent, async (url) => {
        const events = startCli(['events', '--json', '--server', url], { RECOURSE_TOKEN: 'token-1' });
        try {
          await events.waitFor((out) => out === '{}\n{}\n', 80_000);
          expect(events.stderr()).toContain(
            'connection lost; reconnecting in 250 ms (will resume after event 5)',
          );
          expect(lastIds).toEqual([undefined, '5']);
        } finally {
          events.process.kill('SIGINT');
          await events.exited;
        }
      });
    },
    90_000,
  );
});

describe('a server whose answers carry terminal controls', () => {
  it('every plan command and profiles list print them escaped (phase, state, category, counts and reason reached the terminal raw)', async () => {
    const evil = '\u001b]0;pwned\u0007\u001b[2J\u202e';
    const plan = {
      id: 'p1',
      phase: `execute${evil}`,
      state: `errored${evil}`,
      recovery: { auto_retry_threshold: evil, max_retries: 3, subplan: false },
      revision: 1,
    };
    const record = {
      plan_id: 'p1',
      phase: `execute${evil}`,
      category: `transient${evil}`,
      message: 'timed out',
      exception_type: null,
      retry_count: evil,
      max_retries: 3,
      verdict: `retry${evil}`,
      actor: null,
      tool_call: null,
      stack_summary: null,
      hints: [],
      occurred_at: `2026-12-06T00:00:00Z${evil}`,
    };
    const decision = { should_retry: false, reason: `exhausted${evil}`, hints: [] };
    const answers: Record<string, unknown> = {
      'GET /v1/plans/p1/errors': {
        plan,
        errors: [record],
        summary: { total_errors: 1, by_category: { [`transient${evil}`]: 1 }, retry_counts: [0] },
        decision,
      },
      'POST /v1/plans/p1/errors': { status: 'recorded', plan, record, decision },
      'POST /v1/plans/p1/actions': { status: 'changed', plan },
      'PUT /v1/plans/p1': plan,
      'GET /v1/profiles': { profiles: [{ id: 'p', name: 'n', version: evil }] },
    };
    await withStub(
      (request, response) =>
        json(JSON.stringify(answers[`${request.method} ${request.url}`] ?? {}))(request, response),
      async (url) => {
        const runs = await Promise.all(
          [
            ['errors', 'p1'],
            ['errors', 'p1', '--format', 'plain'],
            ['plan', 'error', 'p1', '--phase', 'execute', '--message', 'timed out'],
            ['plan', 'retry', 'p1'],
            ['plan', 'configure', 'p1'],
            ['profiles', 'list'],
          ].map((args) => runCliAsync([...args, '--server', url], { RECOURSE_TOKEN: 'token-1' })),
        );
        for (const run of runs) {
          expect(run.status).toBe(0);
          expect(run.stdout).toContain('\\x1b]0;pwned\\x07\\x1b[2J\\u202e');
          expect(rawControls(run.stdout + run.stderr)).toEqual([]);
        }
      },
    );
  });
});

describe('routes list --all against a cursor that does not move', () => {
  it('stops after the page that repeats its cursor: one line, exit 3 (it asked for the same page for ever)', async () => {
    let requests = 0;
    await withStub(
      (request, response) => {
        requests++;
        json(JSON.stringify({ routes: [], next_cursor: 'r-1' }))(request, response);
      },
      async (url) => {
        const run = await runCliAsync(
          ['routes', 'list', '--all', '--server', url],
          { RECOURSE_TOKEN: 'token-1' },
          { timeoutMs: 20_000 },
        );
        expect(run).toMatchObject({
          status: 3,
          stdout: '',
          stderr: `recourse routes list: ${url}: the next page's cursor "r-1" is the one just read: is it a Recourse server?\n`,
        });
        expect(requests).toBe(2);
      },
    );
  });
});

describe('what a server says when it refuses (routes, profiles, events)', () => {
  const key = 'sk-ant-api03-' + 'Q'.repeat(40);
  const refusal = (status: number, body: unknown) => (_request: IncomingMessage, response: ServerResponse) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const routeCommands = [
    ['routes', 'list'],
    ['routes', 'show', 'r1'],
    ['routes', 'purge', '--finished-before', '2026-01-01T00:00:00Z'],
    ['profiles', 'list'],
    ['profiles', 'get', 'p'],
  ];

  it('a credential a server echoes in its error (a proxy, a debug build) is redacted before it is printed', () =>
    withStub(refusal(500, { error: { code: 'internal', message: `upstream said ${key}` } }), async (url) => {
      const runs = await Promise.all(
        routeCommands.map((args) =>
          runCliAsync([...args, '--server', url], { RECOURSE_TOKEN: 'token-1' }, { timeoutMs: 30_000 }),
        ),
      );
      runs.forEach((run, n) => {
        const what = routeCommands[n]!.join(' ');
        expect(run.status, what).toBe(3);
        expect(run.stderr, what).toMatch(/upstream said \[REDACTED\]/);
        expect(run.stderr, what).not.toContain('QQQQQQQQ');
      });
    }));

  it('a 422 names every field the server lists and what is wrong with it, not only "2 invalid fields"', () =>
    withStub(
      refusal(422, {
        error: { code: 'invalid_input', message: '2 invalid fields' },
        errors: [
          { path: '/limit', message: 'must be an integer from 1 to 500' },
          { path: '/state', message: 'must be one of active, waiting' },
        ],
      }),
      async (url) => {
        const run = await runCliAsync(['routes', 'list', '--server', url], { RECOURSE_TOKEN: 'token-1' });
        expect(run.status).toBe(1);
        expect(run.stderr).toBe(
          `recourse routes list: ${url}: 422 invalid_input: 2 invalid fields: /limit: must be an integer from 1 to 500; /state: must be one of active, waiting\n`,
        );
      },
    ));
});

describe('profiles apply: the field issues of a 422, printed below the line', () => {
  it('a credential a server echoes in a field issue (a proxy, a debug build) is redacted before it is printed', async () => {
    const key = 'sk-ant-api03-' + 'Q'.repeat(40);
    const dir = mkdtempSync(join(tmpdir(), 'recourse-profile-'));
    const file = join(dir, 'profile.json');
    writeFileSync(file, JSON.stringify({ id: 'p1', name: 'p1', candidates: [] }));
    try {
      await withStub(
        (_request, response) =>
          response.writeHead(422, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              error: { code: 'invalid_input', message: '1 invalid field' },
              errors: [{ path: `/candidates/${key}`, message: `upstream said ${key}` }],
            }),
          ),
        async (url) => {
          const run = await runCliAsync(['profiles', 'apply', '--file', file, '--server', url], {
            RECOURSE_TOKEN: 'token-1',
          });
          expect(run.status).toBe(1);
          expect(run.stderr).toMatch(/upstream said \[REDACTED\]/);
          expect(run.stderr).not.toContain('QQQQQQQQ');
        },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('routes cancel|skip|...: the route a 409 carries', () => {
  it.each([
    [
      'a generation that is a string of control sequences',
      { state: 'retry_wait', generation: '\u001b]0;owned\u0007' },
    ],
    ['a state that is no string', { state: 7, generation: 2 }],
    ['a route that is no object', 'retry_wait'],
  ])('%s: one line, controls escaped, exit 3 or 1, never raw or a stack trace', (_label, route) =>
    withStub(
      (_request, response) =>
        response
          .writeHead(409, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: 'stale_generation', message: 'moved' }, route })),
      async (url) => {
        const run = await runCliAsync(['routes', 'cancel', 'r1', '--generation', '1', '--server', url], {
          RECOURSE_TOKEN: 'token-1',
        });
        expect(run.status).not.toBe(0);
        expect(rawControls(run.stderr)).toEqual([]);
        expect(run.stderr).not.toMatch(/TypeError| {4}at /);
        expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      },
    ),
  );
});

describe('routes list: the next page cursor it prints', () => {
  it('a cursor with C1 or bidi controls is printed escaped, in the hint too', () =>
    withStub(json(JSON.stringify({ routes: [], next_cursor: 'r\u009b31m\u202eevil' })), async (url) => {
      for (const args of [
        ['routes', 'list'],
        ['routes', 'list', '--json'],
      ]) {
        const run = await runCliAsync([...args, '--server', url], { RECOURSE_TOKEN: 'token-1' });
        expect(run.status, args.join(' ')).toBe(0);
        expect(rawControls(run.stdout + run.stderr), args.join(' ')).toEqual([]);
      }
    }));
});
