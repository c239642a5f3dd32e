import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { panelRows, runCliInEnv } from './run-cli.js';
import { startTestService, tokens } from '../helpers/service.js';
import type { PlanLifecycle, PlanService } from '../../src/app/index.js';

// The CLI commands are clients of the HTTP service: a real `recourse serve` (in process, on a real SQLite file)
// answers them; the test prepares plans through the same PlanService the server serves.
const token = tokens.operator;
let world: { service: PlanService; lifecycle: PlanLifecycle; store: PlanLifecycle['store'] };
let server: { readonly url: string; close(): Promise<void> };
let env: Record<string, string>;
// eslint-disable-next-line no-control-regex -- finding colour codes is the point
const sgr = /\u001b\[[0-9;]*m/;

beforeAll(async () => {
  const started = await startTestService();
  const plans = started.service.plans;
  world = { service: plans, lifecycle: plans.lifecycle, store: plans.lifecycle.store };
  server = { url: started.service.url, close: started.stop };
  env = { RECOURSE_SERVER: server.url, RECOURSE_TOKEN: token };
});
afterAll(async () => {
  await server.close();
});

/** A plan in execute that failed `failures` times with a timeout (4 exhaust the default 3 retries). */
async function failing(id: string, failures: number): Promise<void> {
  await world.service.configure(id, {});
  await world.lifecycle.completePhase(id, 'strategize');
  for (let n = 0; n < failures; n++) {
    await world.service.recordError(id, {
      phase: 'execute',
      message: 'Connection timed out',
      exception_type: 'RuntimeError',
    });
  }
}

/** Runs the CLI under a pseudo-terminal (`script`), so standard output is a TTY. */
function runInTerminal(args: string[], extraEnv: Record<string, string>) {
  const command = [process.execPath, new URL('../../dist/cli/main.js', import.meta.url).pathname, ...args]
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  return new Promise<string>((resolve, reject) => {
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      env: { ...env, ...extraEnv, PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
}

describe('recourse errors PLAN_ID', () => {
  it('[CLI-01][CLI-02][CLI-05][CLI-06][CLI-07] prints the rich Plan Errors panel by default, without colour on a pipe', async () => {
    await failing('E1', 4);
    const run = await runCliInEnv(['errors', 'E1'], env);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.lines[0]).toMatch(/^╭─ Plan Errors ─+╮$/);
    const rows = panelRows(run.lines);
    expect(rows.slice(0, 4)).toEqual([
      'Plan: E1',
      'Phase: execute',
      'State: errored',
      'Error: RuntimeError: Connection timed out',
    ]);
    expect(rows).toContain('Retry Count: 3/3');
    expect(rows).toContain('Retriable: false');
    expect(rows).toContain('History: 4 errors (transient 4)');
    expect(rows.slice(-2)).toEqual([
      '  → Retry the operation — the failure was transient.',
      '    $ recourse plan retry E1',
    ]);
    expect(run.stdout).not.toMatch(sgr);
  });

  it('[CLI-03][CLI-04] --format json prints the JSON document; --format plain prints Key: value lines', async () => {
    await failing('E2', 1);
    const json = await runCliInEnv(['errors', 'E2', '--format', 'json'], env);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      plan_id: 'E2',
      phase: 'execute',
      state: 'running',
      error: { error_category: 'transient', retry_count: '0', is_retriable: 'true' },
      recovery: {
        automatic_retry: true,
        hints: [{ action: 'retry', cli_command: 'recourse plan retry E2' }],
      },
    });
    const plain = await runCliInEnv(['errors', 'E2', '--format', 'plain'], env);
    expect(plain.lines.slice(0, 3)).toEqual(['Plan: E2', 'Phase: execute', 'State: running']);
    expect(plain.lines).toContain('Automatic Retry: available');
  });

  it('[CLI-08] with no error recorded it prints the confirmation, green on a terminal, plain with NO_COLOR or a pipe', async () => {
    await world.service.configure('E3', {});
    const piped = await runCliInEnv(['errors', 'E3'], env);
    expect(piped).toMatchObject({ status: 0, stdout: 'No errors recorded for plan E3.\n' });
    const terminal = await runInTerminal(['errors', 'E3'], {});
    expect(terminal).toContain('\u001b[32mNo errors recorded for plan E3.\u001b[0m');
    const noColor = await runInTerminal(['errors', 'E3'], { NO_COLOR: '1' });
    expect(noColor).toContain('No errors recorded for plan E3.');
    expect(noColor).not.toMatch(sgr);
  });

  it('[CLI-02] an unknown --format exits 2 and lists the valid values', async () => {
    const run = await runCliInEnv(['errors', 'E1', '--format', 'xml'], env);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')[0]).toBe(
      "error: option '--format <format>' argument 'xml' is invalid. Allowed choices are rich, json, plain.",
    );
  });

  it('an unknown plan is one line on stderr and exit 1', async () => {
    const run = await runCliInEnv(['errors', 'nope'], env);
    expect(run).toMatchObject({
      status: 1,
      stdout: '',
      stderr: `recourse errors: ${server.url}: the server answered 404: not_found: plan "nope" does not exist\n`,
    });
  });

  it("a PLAN_ID that cannot be a plan's is a usage error (exit 2) and sends nothing", async () => {
    for (const args of [
      ['errors', ''],
      ['plan', 'retry', ' x'],
      ['plan', 'complete', '', '--phase', 'apply'],
    ]) {
      const run = await runCliInEnv(args, { ...env, RECOURSE_SERVER: 'http://127.0.0.1:2' });
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/: PLAN_ID must be 1 to 128 letters/);
    }
  });
});

describe('recourse plan error: the recovery block of a reported error', () => {
  it('[CLI-09][CLI-10][CLI-11] records the error and prints Error [category], Phase, Retry, suggestions, automatic retry', async () => {
    await world.service.configure('B1', {});
    await world.lifecycle.completePhase('B1', 'strategize');
    const args = ['plan', 'error', 'B1', '--phase', 'execute', '--message', 'Connection timed out after 30s'];
    const run = await runCliInEnv(args, env);
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toBe(
      [
        'Error [transient]: Connection timed out after 30s',
        '  Phase: execute',
        '  Retry: 0/3',
        '  Recovery suggestions:',
        '    → Retry the operation — the failure was transient.',
        '      $ recourse plan retry B1',
        '  ✓ Automatic retry available.',
        '',
      ].join('\n'),
    );
    const denied = await runCliInEnv(
      [
        'plan',
        'error',
        'B1',
        '--phase',
        'execute',
        '--message',
        'access denied',
        '--exception-type',
        'PermissionDenied',
      ],
      env,
    );
    expect(denied.lines[0]).toBe('Error [authentication]: access denied');
    expect(denied.lines.at(-1)).toBe(
      '  ✗ Automatic retry not available (authentication errors are not retried automatically).',
    );
    expect((await world.store.readPlan('B1'))?.state).toBe('errored');
  });
});

describe('recourse plan retry|prompt|correct|cancel|revert', () => {
  it.each([
    [['plan', 'retry', 'A1'], 'retry: plan A1: phase execute, state running'],
    [['plan', 'prompt', 'A2'], 'prompt: plan A2: phase execute, state running'],
    [['plan', 'correct', 'A3'], 'correct: plan A3: phase execute, state running'],
    [
      ['plan', 'revert', 'A4', '--to-phase', 'strategize'],
      'revert_strategize: plan A4: phase strategize, state running',
    ],
    [['plan', 'cancel', 'A5'], 'cancel: plan A5: phase execute, state cancelled'],
  ])('%j on an errored plan takes the action', async (args, line) => {
    await failing(args[2]!, 4);
    const run = await runCliInEnv(args, env);
    expect(run).toMatchObject({ status: 0, stdout: `${line}\n`, stderr: '' });
  });

  it('an action the plan state does not allow is refused: one line on stderr, exit 1, nothing changed', async () => {
    await failing('A6', 1);
    const run = await runCliInEnv(['plan', 'retry', 'A6'], env);
    expect(run).toMatchObject({
      status: 1,
      stdout: '',
      stderr: `recourse plan retry: ${server.url}: the server answered 409: refused (not_errored): plan A6 is running, not errored: there is nothing to retry\n`,
    });
    expect((await world.store.readPlan('A6'))?.state).toBe('running');
  });

  it('[PLN-06] --revision fences an action: a plan that moved on since is refused stale_revision (exit 1), nothing changed', async () => {
    await failing('A7', 4);
    const seen = (await world.store.readPlan('A7'))!.revision;
    const stale = await runCliInEnv(['plan', 'cancel', 'A7', '--revision', String(seen - 1)], env);
    expect(stale).toMatchObject({
      status: 1,
      stdout: '',
      stderr: `recourse plan cancel: ${server.url}: the server answered 409: refused (stale_revision): plan A7 is at revision ${seen}, not ${seen - 1}: it changed since; read it again\n`,
    });
    expect((await world.store.readPlan('A7'))?.state).toBe('errored');
    const current = await runCliInEnv(['plan', 'retry', 'A7', '--revision', String(seen)], env);
    expect(current).toMatchObject({ status: 0, stderr: '' });
    expect((await world.store.readPlan('A7'))?.state).toBe('running');
    const usage = await runCliInEnv(
      ['plan', 'revert', 'A7', '--to-phase', 'strategize', '--revision', 'x'],
      env,
    );
    expect(usage.status).toBe(2);
  });

  it('--revision 0 is a usage error (exit 2, nothing sent): revisions start at 1, as for a stale one nothing changes', async () => {
    await failing('A8', 4);
    for (const args of [
      ['plan', 'cancel', 'A8', '--revision', '0'],
      ['plan', 'complete', 'A8', '--phase', 'execute', '--revision', '0'],
    ]) {
      const run = await runCliInEnv(args, env);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(/^error: option '--revision <n>' argument '0' is invalid/);
    }
    expect((await world.store.readPlan('A8'))?.state).toBe('errored');
  });

  it('revert needs --to-phase strategize (a usage error, exit 2)', async () => {
    expect((await runCliInEnv(['plan', 'revert', 'A1'], env)).status).toBe(2);
    expect((await runCliInEnv(['plan', 'revert', 'A1', '--to-phase', 'execute'], env)).status).toBe(2);
  });

  it('plan configure sets the policy; a bad value is refused by field (exit 1)', async () => {
    const ok = await runCliInEnv(['plan', 'configure', 'C1', '--max-retries', '5', '--subplan'], env);
    expect(ok).toMatchObject({
      status: 0,
      stdout:
        'plan C1: phase strategize, state running; auto_retry_threshold 0, max_retries 5, subplan; revision 1\n',
    });
    const bad = await runCliInEnv(['plan', 'configure', 'C1', '--auto-retry-threshold', '2'], env);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe(
      `recourse plan configure: ${server.url}: the server answered 422: invalid_input: /auto_retry_threshold: auto_retry_threshold must be a number from 0.0 to 1.0 (got 2)\n`,
    );
    expect((await world.store.readPlan('C1'))?.recovery.maxRetries).toBe(5);
  });

  it('numbers in another notation (0x5, 1e1, a sign, spaces) are usage errors, not sent (exit 2)', async () => {
    for (const [flag, value] of [
      ['--max-retries', '0x5'],
      ['--max-retries', '1e1'],
      ['--max-retries', '-1'],
      ['--max-retries', '2.0'],
      ['--auto-retry-threshold', '0x1'],
      ['--auto-retry-threshold', '1e-1'],
      ['--auto-retry-threshold', ' 0.5'],
      ['--auto-retry-threshold', 'Infinity'],
    ] as const) {
      const result = await runCliInEnv(['plan', 'configure', 'N1', flag, value], env);
      expect(result, `${flag} ${value}`).toMatchObject({ status: 2, stdout: '' });
      expect(result.stderr).toContain(flag);
    }
    expect(await world.store.readPlan('N1')).toBeNull();
    const decimal = await runCliInEnv(['plan', 'configure', 'N1', '--auto-retry-threshold', '.5'], env);
    expect(decimal.stdout).toContain('auto_retry_threshold 0.5');
  });

  it('a request refused for several fields names every field and what is wrong with it (exit 1)', async () => {
    const bad = await runCliInEnv(
      ['plan', 'configure', 'C2', '--auto-retry-threshold', '2', '--max-retries', '11'],
      env,
    );
    expect(bad).toMatchObject({ status: 1, stdout: '' });
    expect(bad.stderr).toBe(
      `recourse plan configure: ${server.url}: the server answered 422: invalid_input: 2 invalid fields: /auto_retry_threshold: auto_retry_threshold must be a number from 0.0 to 1.0 (got 2); /max_retries: max_retries must be an integer from 0 to 10 (got 11)\n`,
    );
    expect(await world.store.readPlan('C2')).toBeNull();
  });

  it('[PLN-18] plan configure changes only the options given: a human-escalated plan stays so', async () => {
    await runCliInEnv(['plan', 'configure', 'human1', '--auto-retry-threshold', '1', '--subplan'], env);
    const later = await runCliInEnv(['plan', 'configure', 'human1', '--max-retries', '2'], env);
    expect(later).toMatchObject({
      status: 0,
      stdout:
        'plan human1: phase strategize, state running; auto_retry_threshold 1, max_retries 2, subplan; revision 2\n',
    });
    const unset = await runCliInEnv(['plan', 'configure', 'human1', '--no-subplan'], env);
    expect(unset.stdout).toBe(
      'plan human1: phase strategize, state running; auto_retry_threshold 1, max_retries 2; revision 3\n',
    );
  });

  it('plan configure --if-revision fences the write; a cancelled plan refuses configuration (exit 1)', async () => {
    await runCliInEnv(['plan', 'configure', 'R1'], env);
    const stale = await runCliInEnv(
      ['plan', 'configure', 'R1', '--max-retries', '1', '--if-revision', '7'],
      env,
    );
    expect(stale.status).toBe(1);
    expect(stale.stderr).toBe(
      `recourse plan configure: ${server.url}: the server answered 409: refused (stale_revision): plan R1 is at revision 1, not 7: it changed since; read it again\n`,
    );
    const fenced = await runCliInEnv(
      ['plan', 'configure', 'R1', '--max-retries', '1', '--if-revision', '1'],
      env,
    );
    expect(fenced.status).toBe(0);
    await runCliInEnv(['plan', 'cancel', 'R1'], env);
    const finished = await runCliInEnv(['plan', 'configure', 'R1', '--max-retries', '2'], env);
    expect(finished.status).toBe(1);
    expect(finished.stderr).toContain('refused (finished): plan R1 is cancelled');
    expect((await world.store.readPlan('R1'))?.recovery.maxRetries).toBe(1);
  });
});

describe('the server client', () => {
  it('a server error (5xx) or an answer that is not JSON exits 3, as every client command does (docs/cli.md)', async () => {
    const stub = createServer((request, response) => {
      if (request.url?.includes('html')) {
        response.writeHead(200, { 'content-type': 'text/html' }).end('<html>a proxy</html>');
      } else
        response
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"error":{"code":"internal","message":"x"}}');
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    try {
      const failed = await runCliInEnv(['errors', 'pl1', '--server', url], { RECOURSE_TOKEN: token });
      expect(failed).toMatchObject({
        status: 3,
        stderr: `recourse errors: ${url}: the server failed (500: internal: x)\n`,
      });
      const html = await runCliInEnv(['plan', 'cancel', 'html', '--server', url], { RECOURSE_TOKEN: token });
      expect(html.status).toBe(3);
      expect(html.stderr).toMatch(
        new RegExp(`^recourse plan cancel: ${url}: the answer to POST .* is not JSON`),
      );
      // The same stub, the same exit code from a routes command.
      expect(
        (await runCliInEnv(['routes', 'show', 'r1', '--server', url], { RECOURSE_TOKEN: token })).status,
      ).toBe(3);
    } finally {
      await new Promise((resolve) => stub.close(resolve));
    }
  });

  it('a credential in an error a server answers (a proxy or a debug build echoing a request) is not printed', async () => {
    const key = 'sk-ant-api03-' + 'Q'.repeat(40);
    const stub = createServer((request, response) => {
      const status = request.url?.includes('actions') ? 409 : 500;
      response
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 'internal', message: `upstream said \u001b[31m${key}` } }));
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    try {
      const failed = await runCliInEnv(['errors', 'k1', '--server', url], { RECOURSE_TOKEN: token });
      expect(failed.status).toBe(3);
      const refused = await runCliInEnv(['plan', 'retry', 'k1', '--server', url], { RECOURSE_TOKEN: token });
      expect(refused.status).toBe(1);
      for (const run of [failed, refused]) {
        expect(run.stderr).toMatch(/^recourse .*: upstream said .*\[REDACTED\]/);
        expect(run.stderr).not.toContain('QQQQQQQQ');
      }
    } finally {
      await new Promise((resolve) => stub.close(resolve));
    }
  });

  it('a credential in a refusal a server answers with 2xx is not printed either', async () => {
    const key = 'sk-ant-api03-' + 'Q'.repeat(40);
    const stub = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          status: 'refused',
          reason: 'not_errored',
          message: `upstream said \u001b[31m${key}`,
          plan: { id: 'k1', phase: 'execute', state: 'running', revision: 1 },
        }),
      );
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    try {
      const refused = await runCliInEnv(['plan', 'retry', 'k1', '--server', url], { RECOURSE_TOKEN: token });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(
        /^recourse plan retry: refused \(not_errored\): upstream said .*\[REDACTED\]/,
      );
      expect(refused.stderr).not.toContain('QQQQQQQQ');
    } finally {
      await new Promise((resolve) => stub.close(resolve));
    }
  });

  it('JSON of the right outline but the wrong fields inside is not a Recourse answer: exit 3, one line, no stack trace', async () => {
    // Each answer has the top-level fields the command reads, with something else inside them.
    const answers: Record<string, unknown> = {
      '/v1/plans/doc/errors': { plan: {}, errors: [], summary: {}, decision: {} },
      '/v1/plans/rec/errors': {
        plan: { id: 'rec', phase: 'execute', state: 'errored' },
        errors: [{ message: 7 }],
        summary: { total_errors: 1, by_category: {} },
        decision: { should_retry: false, reason: null, message: null, hints: [] },
      },
      '/v1/plans/act/actions': { status: 'changed', plan: {} },
      '/v1/plans/ref/actions': { status: 'refused', plan: { id: 'ref', phase: 'execute', state: 'running' } },
      '/v1/plans/err/errors': { status: 'recorded', plan: { id: 'err', phase: 'execute', state: 'errored' } },
    };
    const stub = createServer((request, response) => {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(answers[request.url ?? ''] ?? {}));
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    try {
      for (const [args, problem] of [
        [['errors', 'doc'], 'no plan.id string'],
        [['errors', 'rec', '--format', 'plain'], 'no errors[0].phase string'],
        [['plan', 'retry', 'act'], 'no plan.id string'],
        [['plan', 'cancel', 'ref'], 'no reason string'],
        [['plan', 'error', 'err', '--phase', 'execute', '--message', 'x'], 'no record object'],
      ] as const) {
        const run = await runCliInEnv([...args, '--server', url], { RECOURSE_TOKEN: token });
        expect(run.status, args.join(' ')).toBe(3);
        expect(run.stdout, args.join(' ')).toBe('');
        expect(run.stderr, args.join(' ')).toMatch(
          new RegExp(
            `^recourse ${args[0] === 'plan' ? `plan ${args[1]}` : 'errors'}: ${url}: the answer to .* is not a Recourse answer \\(${problem.replace(/[[\].]/g, '\\$&')}\\): is it a Recourse server\\?\n$`,
          ),
        );
      }
    } finally {
      await new Promise((resolve) => stub.close(resolve));
    }
  });

  it('no token or a wrong one: one line, exit 4; --server and --token flags work as the variables do', async () => {
    await failing('S1', 1);
    const none = await runCliInEnv(['errors', 'S1'], { RECOURSE_SERVER: server.url });
    expect(none).toMatchObject({
      status: 4,
      stdout: '',
      stderr: `recourse errors: ${server.url}: the server refused the request (401: unauthorized: send Authorization: Bearer TOKEN (or open /?token=TOKEN in a browser)); pass --token or set RECOURSE_TOKEN\n`,
    });
    const wrong = await runCliInEnv(['errors', 'S1', '--token', 'nope'], { RECOURSE_SERVER: server.url });
    expect(wrong.status).toBe(4);
    expect(wrong.stderr).not.toContain('nope');
    const flags = await runCliInEnv(['errors', 'S1', '--server', server.url, '--token', token]);
    expect(flags.status).toBe(0);
  });

  it('a server that cannot be reached: one line, exit 3; a --server that is not a URL: exit 2', async () => {
    const closed = await startTestService();
    await closed.stop();
    const closedUrl = closed.service.url;
    const run = await runCliInEnv(['plan', 'cancel', 'S1', '--server', closedUrl], {
      RECOURSE_TOKEN: token,
    });
    expect(run.status).toBe(3);
    expect(run.stderr).toBe(
      `recourse plan cancel: ${closedUrl}: cannot reach the Recourse server (ECONNREFUSED); start it with \`recourse serve\` or pass --server\n`,
    );
    const bad = await runCliInEnv(['errors', 'S1', '--server', 'ftp://x'], env);
    expect(bad).toMatchObject({
      status: 2,
      stderr: 'recourse errors: --server must be an http:// or https:// URL (got "ftp://x")\n',
    });
    const badToken = await runCliInEnv(['errors', 'S1'], {
      ...env,
      RECOURSE_TOKEN: 'hunter2pass-0123456789\r\n',
    });
    expect(badToken.status).toBe(2);
    expect(badToken.stderr).toMatch(/^recourse errors: .*RECOURSE_TOKEN.*\n$/);
    expect(badToken.stderr).not.toContain('hunter2pass');
    for (const server of [
      'http://user:hunter2pass@127.0.0.1:7420',
      'http://127.0.0.1:7420/?token=hunter2pass',
    ]) {
      const leaky = await runCliInEnv(['errors', 'S1', '--server', server], env);
      expect(leaky.status, server).toBe(2);
      expect(leaky.stderr, server).toMatch(/^recourse errors: --server must not carry .+\n$/);
      expect(leaky.stderr, server).not.toContain('hunter2pass');
    }
  });
});
