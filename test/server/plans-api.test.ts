import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { panelRows, runCliInEnv } from '../cli/run-cli.js';
import { bearer, call, roleTokens, startLiveService, type LiveService } from './live-service.js';
import type { Role } from '../../src/server/auth.js';

// Plans over the real HTTP server only: an orchestrator (the adapter role) creates a plan and drives it through its
// phases; a person (operator) recovers it; `recourse errors` reads what the server holds.
let live: LiveService;
beforeAll(async () => {
  live = await startLiveService();
});
afterAll(async () => {
  await live.close();
});

const send = (
  role: Role,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) =>
  call(live.url, {
    method,
    path,
    headers: { ...bearer(role), ...headers },
    ...(body === undefined ? {} : { body }),
  });

const timeout = { phase: 'execute', message: 'Connection timed out', exception_type: 'RuntimeError' };

interface PlanAnswer {
  readonly status?: string;
  readonly plan: { readonly phase: string; readonly state: string; readonly revision: number };
  readonly decision?: {
    readonly should_retry: boolean;
    readonly retry_count: number;
    readonly verdict: string;
  };
}

describe('driving a plan through its phases over HTTP', () => {
  it('[PLN-37][PLN-38][PLN-20][PLN-25][PLN-39][CLI-06][CLI-11] strategize -> execute, retries up to max, exhaustion, retry restarts the budget, completion', async () => {
    const env = { RECOURSE_SERVER: live.url, RECOURSE_TOKEN: roleTokens.operator };
    // The orchestrator creates the plan (orchestrate access, as for routes and sessions).
    const created = await send('adapter', 'PUT', '/v1/plans/drive-1', {});
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ phase: 'strategize', state: 'running', revision: 1 });
    // An execute error before strategize completed is refused, and says why.
    const early = await send('adapter', 'POST', '/v1/plans/drive-1/errors', timeout);
    expect(early.status).toBe(409);
    expect(early.json).toMatchObject({ error: { code: 'refused', reason: 'wrong_phase' } });
    // Completing a phase that is not the current one, or with a revision that moved on, is refused too.
    const wrong = await send('adapter', 'POST', '/v1/plans/drive-1/complete', { phase: 'execute' });
    expect(wrong.status).toBe(409);
    expect(wrong.json).toMatchObject({
      error: { reason: 'wrong_phase', message: 'plan drive-1 is in phase strategize, not execute' },
    });
    const stale = await send('adapter', 'POST', '/v1/plans/drive-1/complete', {
      phase: 'strategize',
      revision: 7,
    });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({ error: { reason: 'stale_revision' }, plan: { revision: 1 } });
    // strategize -> execute.
    const done = await send('adapter', 'POST', '/v1/plans/drive-1/complete', {
      phase: 'strategize',
      revision: 1,
    });
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ status: 'changed', plan: { phase: 'execute', state: 'running' } });
    // The first error is retried automatically: the CLI block says so.
    const first = await runCliInEnv(
      ['plan', 'error', 'drive-1', '--phase', 'execute', '--message', 'Connection timed out after 30s'],
      env,
    );
    expect(first.status).toBe(0);
    expect(first.lines).toContain('  Retry: 0/3');
    expect(first.lines.at(-1)).toBe('  ✓ Automatic retry available.');
    // Two more retries, then the fourth failure exhausts the budget of 3.
    for (const n of [1, 2]) {
      const again = (await send('adapter', 'POST', '/v1/plans/drive-1/errors', timeout)).json as PlanAnswer;
      expect(again).toMatchObject({
        plan: { state: 'running' },
        decision: { should_retry: true, retry_count: n },
      });
    }
    const last = (await send('adapter', 'POST', '/v1/plans/drive-1/errors', timeout)).json as PlanAnswer;
    expect(last).toMatchObject({
      plan: { phase: 'execute', state: 'errored' },
      decision: { should_retry: false, retry_count: 3, verdict: 'exhausted' },
    });
    const panel = await runCliInEnv(['errors', 'drive-1'], env);
    expect(panel.status).toBe(0);
    const rows = panelRows(panel.lines);
    expect(rows.slice(0, 4)).toEqual([
      'Plan: drive-1',
      'Phase: execute',
      'State: errored',
      'Error: RuntimeError: Connection timed out',
    ]);
    expect(rows).toContain('Retry Count: 3/3');
    expect(rows).toContain('Error Phase: execute');
    expect(rows).toContain('Retriable: false');
    // An errored plan cannot be completed: a person acts first.
    const blocked = await send('adapter', 'POST', '/v1/plans/drive-1/complete', { phase: 'execute' });
    expect(blocked.json).toMatchObject({ error: { reason: 'errored' } });
    // retry restarts the budget: the next error is retry 0 of 3 again.
    const retried = await runCliInEnv(['plan', 'retry', 'drive-1'], env);
    expect(retried).toMatchObject({
      status: 0,
      stdout: 'retry: plan drive-1: phase execute, state running\n',
    });
    const fresh = (await send('adapter', 'POST', '/v1/plans/drive-1/errors', timeout)).json as PlanAnswer;
    expect(fresh).toMatchObject({
      plan: { state: 'running' },
      decision: { should_retry: true, retry_count: 0 },
    });
    // execute -> apply (the CLI's command), apply -> completed.
    const applied = await runCliInEnv(['plan', 'complete', 'drive-1', '--phase', 'execute'], env);
    expect(applied).toMatchObject({
      status: 0,
      stdout: 'complete execute: plan drive-1: phase apply, state running\n',
    });
    const completed = await send('adapter', 'POST', '/v1/plans/drive-1/complete', { phase: 'apply' });
    expect(completed.json).toMatchObject({ plan: { phase: 'apply', state: 'completed' } });
    const again = await runCliInEnv(['plan', 'complete', 'drive-1', '--phase', 'apply'], env);
    expect(again.status).toBe(1);
    expect(again.stderr).toBe(
      `recourse plan complete: ${live.url}: the server answered 409: refused (finished): plan drive-1 is completed\n`,
    );
  });

  it('a viewer may not create, complete or record; the adapter may not take a recovery action', async () => {
    expect((await send('viewer', 'PUT', '/v1/plans/roles-1', {})).status).toBe(403);
    expect((await send('adapter', 'PUT', '/v1/plans/roles-1', {})).status).toBe(200);
    expect((await send('viewer', 'POST', '/v1/plans/roles-1/complete', { phase: 'strategize' })).status).toBe(
      403,
    );
    expect((await send('adapter', 'POST', '/v1/plans/roles-1/actions', { action: 'cancel' })).status).toBe(
      403,
    );
    expect(
      (await send('operator', 'POST', '/v1/plans/roles-1/complete', { phase: 'strategize' })).status,
    ).toBe(200);
  });
});

describe('PUT /v1/plans/{id}: only the fields given change, fenced, not on a finished plan', () => {
  it('[PLN-16][PLN-24] a second configure keeps the threshold and subplan it does not name', async () => {
    await send('operator', 'PUT', '/v1/plans/merge-1', { auto_retry_threshold: 1, subplan: true });
    const later = await send('operator', 'PUT', '/v1/plans/merge-1', { max_retries: 2 });
    expect(later.status).toBe(200);
    expect(later.json).toMatchObject({
      recovery: { auto_retry_threshold: 1, max_retries: 2, subplan: true },
    });
  });

  it('If-Match names the revision the caller saw: a stale one is 409 stale_revision; 0 only creates', async () => {
    const created = await send('operator', 'PUT', '/v1/plans/fence-1', {}, { 'if-match': '"0"' });
    expect(created.status).toBe(200);
    const twice = await send('operator', 'PUT', '/v1/plans/fence-1', {}, { 'if-match': '"0"' });
    expect(twice.status).toBe(409);
    expect(twice.json).toMatchObject({ error: { code: 'refused', reason: 'stale_revision' } });
    // Two people read revision 1; the first write wins, the second is refused rather than lost.
    expect(
      (await send('operator', 'PUT', '/v1/plans/fence-1', { max_retries: 1 }, { 'if-match': '"1"' })).status,
    ).toBe(200);
    const lost = await send(
      'operator',
      'PUT',
      '/v1/plans/fence-1',
      { max_retries: 5 },
      { 'if-match': '"1"' },
    );
    expect(lost.status).toBe(409);
    expect(lost.json).toMatchObject({ error: { reason: 'stale_revision' }, plan: { revision: 2 } });
    const bad = await send('operator', 'PUT', '/v1/plans/fence-1', {}, { 'if-match': 'soon' });
    expect(bad.status).toBe(422);
    const unknown = await send('operator', 'PUT', '/v1/plans/fence-none', {}, { 'if-match': '"4"' });
    expect(unknown.status).toBe(404);
  });

  it("a PUT that changes nothing keeps the revision, so a repeat never makes anyone else's If-Match stale", async () => {
    const created = await send('operator', 'PUT', '/v1/plans/same-1', { max_retries: 2 });
    expect(created.json).toMatchObject({ revision: 1 });
    // The orchestrator repeats its request (a retry after a lost answer), and an empty one names nothing to change.
    for (const body of [{ max_retries: 2 }, {}, { max_retries: 2, subplan: false }]) {
      const again = await send('operator', 'PUT', '/v1/plans/same-1', body);
      expect(again.status, JSON.stringify(body)).toBe(200);
      expect(again.json, JSON.stringify(body)).toMatchObject({ revision: 1, recovery: { max_retries: 2 } });
    }
    // A person who read revision 1 still completes the phase with it.
    const completed = await send('operator', 'POST', '/v1/plans/same-1/complete', {
      phase: 'strategize',
      revision: 1,
    });
    expect(completed.status).toBe(200);
  });

  it('[PLN-06] a recovery action with the revision seen: two people retry one errored plan, the second is refused stale_revision', async () => {
    await send('adapter', 'PUT', '/v1/plans/act-fence-1', { max_retries: 0 });
    await send('adapter', 'POST', '/v1/plans/act-fence-1/complete', { phase: 'strategize' });
    const failed = (await send('adapter', 'POST', '/v1/plans/act-fence-1/errors', timeout))
      .json as PlanAnswer;
    expect(failed.plan.state).toBe('errored');
    // Both pages show the errored plan at this revision.
    const seen = failed.plan.revision;
    const first = await send('operator', 'POST', '/v1/plans/act-fence-1/actions', {
      action: 'retry',
      revision: seen,
    });
    expect(first.status).toBe(200);
    expect((first.json as PlanAnswer).plan).toMatchObject({ state: 'running', revision: seen + 1 });
    // The second person's page is stale: whatever they pressed is refused, and nothing changes.
    for (const action of ['retry', 'cancel', 'revert_strategize']) {
      const late = await send('operator', 'POST', '/v1/plans/act-fence-1/actions', {
        action,
        revision: seen,
      });
      expect(late.status, action).toBe(409);
      expect(late.json, action).toMatchObject({
        error: { reason: 'stale_revision' },
        plan: { state: 'running', revision: seen + 1 },
      });
    }
    for (const revision of [0, -1, 1.5, '2', null]) {
      const bad = await send('operator', 'POST', '/v1/plans/act-fence-1/actions', {
        action: 'cancel',
        revision,
      });
      expect(bad.status, JSON.stringify(revision)).toBe(422);
      expect(JSON.stringify(bad.json), JSON.stringify(revision)).toContain('/revision');
    }
    const now = await send('operator', 'GET', '/v1/plans/act-fence-1/errors');
    expect(now.json).toMatchObject({ plan: { state: 'running', revision: seen + 1 } });
    // Without a revision the action is as before (an orchestrator's script that reads nothing first).
    const cancelled = await send('operator', 'POST', '/v1/plans/act-fence-1/actions', { action: 'cancel' });
    expect(cancelled.status).toBe(200);
  });

  it('a cancelled plan refuses a new configuration: 409 finished', async () => {
    await send('operator', 'PUT', '/v1/plans/done-1', {});
    await send('operator', 'POST', '/v1/plans/done-1/actions', { action: 'cancel' });
    const refused = await send('operator', 'PUT', '/v1/plans/done-1', { max_retries: 1 });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ error: { reason: 'finished' }, plan: { state: 'cancelled' } });
  });
});

describe('plan input at the boundary', () => {
  it('an unknown plan is 404 before its body is read, even a malformed one', async () => {
    for (const path of ['/v1/plans/nope-1/errors', '/v1/plans/nope-1/actions', '/v1/plans/nope-1/complete']) {
      const answer = await send('operator', 'POST', path, '{"phase":', {
        'content-type': 'application/json',
      });
      expect(answer.status, path).toBe(404);
      expect(answer.json).toMatchObject({ error: { code: 'not_found' } });
    }
  });

  it('a plan id that looks like a credential is refused as one (not said to have the wrong characters), never echoed', async () => {
    const key = `sk-ant-api03-${'Q'.repeat(40)}`;
    const answer = await send('adapter', 'PUT', `/v1/plans/build:${key}`, {});
    expect(answer.status).toBe(422);
    const [issue] = (answer.json as { errors: { path: string; message: string }[] }).errors;
    expect(issue?.path).toBe('/id');
    expect(issue?.message).toMatch(/^plan id looks like a credential/);
    expect(answer.text).not.toContain('QQQQQQQQ');
    const shape = await send('adapter', 'PUT', '/v1/plans/-x', {});
    const [shapeIssue] = (shape.json as { errors: { path: string; message: string }[] }).errors;
    expect(shapeIssue?.message).toMatch(/^a plan id is 1 to 128 letters/);
  });

  it('a message made only of control characters is 422 at /message, and nothing is stored', async () => {
    await send('adapter', 'PUT', '/v1/plans/blank-1', {});
    const answer = await send('adapter', 'POST', '/v1/plans/blank-1/errors', {
      phase: 'strategize',
      message: '\u0007\u0000\u001b[0m',
    });
    expect(answer.status).toBe(422);
    expect(answer.json).toMatchObject({ errors: [{ path: '/message' }] });
    const doc = await send('viewer', 'GET', '/v1/plans/blank-1/errors');
    expect(doc.json).toMatchObject({ errors: [] });
  });
});

describe('plan events on /v1/events', () => {
  it('every change of a plan is an event: plan.changed with its cause, plan.error.recorded for an error', async () => {
    const controller = new AbortController();
    const response = await fetch(`${live.url}/v1/events`, {
      headers: bearer('viewer'),
      signal: controller.signal,
    });
    const reader: ReadableStreamDefaultReader<Uint8Array> = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const reading = (async () => {
      for (;;) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch {
          return; // aborted: the test has read enough
        }
        if (next.done) return;
        text += decoder.decode(next.value, { stream: true });
      }
    })();
    await send('adapter', 'PUT', '/v1/plans/ev-1', {});
    await send('operator', 'PUT', '/v1/plans/ev-1', { max_retries: 0 });
    await send('adapter', 'POST', '/v1/plans/ev-1/complete', { phase: 'strategize' });
    await send('adapter', 'POST', '/v1/plans/ev-1/errors', timeout);
    await send('operator', 'POST', '/v1/plans/ev-1/actions', { action: 'retry' });
    await send('operator', 'POST', '/v1/plans/ev-1/actions', { action: 'revert_strategize' }); // refused: none
    await send('operator', 'POST', '/v1/plans/ev-1/actions', { action: 'cancel' });
    const causes = (): string[] =>
      text
        .split('\n\n')
        .filter((block) => block.includes('"ev-1"'))
        .map((block) => {
          const type = /^event: (.+)$/m.exec(block)?.[1] ?? '';
          const data = JSON.parse(/^data: (.+)$/m.exec(block)?.[1] ?? '{}') as { cause?: string };
          return type === 'plan.changed' ? `${type}:${data.cause}` : type;
        });
    const deadline = Date.now() + 5000;
    while (causes().length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    await reading;
    expect(causes()).toEqual([
      'plan.changed:created',
      'plan.changed:configured',
      'plan.changed:phase_completed',
      'plan.error.recorded',
      'plan.changed:retry',
      'plan.changed:cancel',
    ]);
  });
});
