import { afterEach, describe, expect, it } from 'vitest';
import { PlanNotFoundError, type PlanEvent } from '../../src/app/index.js';
import { EngineInputError } from '../../src/engine/index.js';
import { openPlanWorld, tempPlanDatabase, type PlanWorld } from './plan-harness.js';

const timeout = { phase: 'execute', message: 'Connection timed out', exception_type: 'RuntimeError' };
let open: PlanWorld[] = [];
afterEach(async () => {
  for (const w of open) await w.close();
  open = [];
});

async function world(options: Parameters<typeof openPlanWorld>[1] = {}, file?: string): Promise<PlanWorld> {
  const w = await openPlanWorld(file ?? (await tempPlanDatabase()), options);
  open.push(w);
  return w;
}

/** A configured plan moved to the execute phase. */
async function executing(w: PlanWorld, id = 'P1', config: object = {}): Promise<void> {
  await w.service.configure(id, config);
  await w.lifecycle.completePhase(id, 'strategize');
}

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('the plan service: configure', () => {
  it('[PLN-40][PLN-16][PLN-23] a plan takes the service defaults (the automation threshold, 3 retries) for omitted fields', async () => {
    const w = await world({ autoRetryThreshold: 1, maxRetries: 2 });
    const created = await w.service.configure('P1', {});
    expect(created.status).toBe('created');
    expect(created.plan).toMatchObject({
      id: 'P1',
      phase: 'strategize',
      state: 'running',
      recovery: { auto_retry_threshold: 1, max_retries: 2, subplan: false },
      error_details: {},
    });
    // The threshold 1.0 from the automation profile asks a person, even for a retriable error.
    await w.lifecycle.completePhase('P1', 'strategize');
    const answer = await w.service.recordError('P1', timeout);
    expect(answer).toMatchObject({ status: 'recorded', decision: { verdict: 'human_threshold' } });
    const plain = await world();
    expect((await plain.service.configure('P2', {})).plan.recovery).toEqual({
      auto_retry_threshold: 0,
      max_retries: 3,
      subplan: false,
    });
  });

  it('[PLN-24][PLN-16] a reconfigured plan keeps its phase and state; a subplan allows at most 5 retries', async () => {
    const w = await world();
    await executing(w);
    const again = await w.service.configure('P1', {
      auto_retry_threshold: 0.5,
      max_retries: 5,
      subplan: true,
    });
    expect(again).toMatchObject({
      status: 'changed',
      plan: { phase: 'execute', state: 'running', revision: 3 },
    });
    expect(again.plan.recovery).toEqual({ auto_retry_threshold: 0.5, max_retries: 5, subplan: true });
    const error = await thrown(w.service.configure('P1', { max_retries: 6, subplan: true }));
    expect(error).toBeInstanceOf(EngineInputError);
    expect((error as EngineInputError).issues).toEqual([
      { path: '/max_retries', message: 'max_retries must be an integer from 0 to 5 for a subplan (got 6)' },
    ]);
  });

  it('bad configuration is refused field by field, all at once, and changes nothing', async () => {
    const w = await world();
    const error = await thrown(
      w.service.configure('P1', { auto_retry_threshold: 2, max_retries: 'x', subplan: 'yes', colour: 1 }),
    );
    expect((error as EngineInputError).code).toBe('invalid_input');
    expect((error as EngineInputError).issues.map((i) => i.path).sort()).toEqual([
      '/auto_retry_threshold',
      '/colour',
      '/max_retries',
      '/subplan',
    ]);
    expect(await w.store.readPlan('P1')).toBeNull();
    const badId = await thrown(w.service.configure('', {}));
    expect((badId as EngineInputError).issues[0]!.path).toBe('/plan_id');
  });
});

describe('the plan service: configure merges, is fenced, and leaves finished plans alone', () => {
  it('[PLN-16][PLN-24] only the fields given change: a later configure keeps the threshold and the subplan flag', async () => {
    const w = await world();
    await w.service.configure('M1', { auto_retry_threshold: 1, subplan: true, max_retries: 4 });
    const later = await w.service.configure('M1', { max_retries: 2 });
    expect(later.plan.recovery).toEqual({ auto_retry_threshold: 1, max_retries: 2, subplan: true });
    // The merged config is checked as a whole: a subplan's limit applies to a max_retries set earlier.
    await w.service.configure('M2', { max_retries: 8 });
    const error = await thrown(w.service.configure('M2', { subplan: true }));
    expect((error as EngineInputError).issues[0]?.path).toBe('/max_retries');
    expect((await w.store.readPlan('M2'))?.recovery).toMatchObject({ maxRetries: 8, subplan: false });
  });

  it('an expected revision fences the write: a stale one is refused (stale_revision), nothing changed', async () => {
    const w = await world();
    const first = await w.service.configure('F1', {}, { expectedRevision: 0 });
    expect(first).toMatchObject({ status: 'created', plan: { revision: 1 } });
    const again = await w.service.configure('F1', {}, { expectedRevision: 0 });
    expect(again).toMatchObject({ status: 'refused', reason: 'stale_revision' });
    const ok = await w.service.configure('F1', { max_retries: 1 }, { expectedRevision: 1 });
    expect(ok).toMatchObject({ status: 'changed', plan: { revision: 2 } });
    const stale = await w.service.configure('F1', { max_retries: 5 }, { expectedRevision: 1 });
    expect(stale).toMatchObject({ status: 'refused', reason: 'stale_revision', plan: { revision: 2 } });
    expect((await w.store.readPlan('F1'))?.recovery.maxRetries).toBe(1);
    expect(await thrown(w.service.configure('F9', {}, { expectedRevision: 3 }))).toBeInstanceOf(
      PlanNotFoundError,
    );
  });

  it('a cancelled or completed plan refuses a new configuration (finished)', async () => {
    const w = await world();
    await w.service.configure('X1', {});
    await w.service.act('X1', { action: 'cancel' });
    const refused = await w.service.configure('X1', { max_retries: 1 });
    expect(refused).toMatchObject({ status: 'refused', reason: 'finished', plan: { state: 'cancelled' } });
    expect((await w.store.readPlan('X1'))?.recovery.maxRetries).toBe(3);
  });
});

describe('the plan service: completing phases', () => {
  it('[PLN-39] complete moves strategize -> execute -> apply -> completed; a wrong phase or stale revision is refused', async () => {
    const w = await world();
    await w.service.configure('C1', {});
    const wrong = await w.service.complete('C1', { phase: 'execute' });
    expect(wrong).toMatchObject({ status: 'refused', reason: 'wrong_phase' });
    expect(await w.service.complete('C1', { phase: 'strategize', revision: 1 })).toMatchObject({
      status: 'changed',
      plan: { phase: 'execute', state: 'running', revision: 2 },
    });
    const stale = await w.service.complete('C1', { phase: 'execute', revision: 1 });
    expect(stale).toMatchObject({ status: 'refused', reason: 'stale_revision' });
    await w.service.complete('C1', { phase: 'execute' });
    expect(await w.service.complete('C1', { phase: 'apply' })).toMatchObject({
      plan: { phase: 'apply', state: 'completed' },
    });
    expect(await w.service.complete('C1', { phase: 'apply' })).toMatchObject({ reason: 'finished' });
    const bad = await thrown(w.service.complete('C1', { phase: 'later', revision: 0, extra: 1 }));
    expect((bad as EngineInputError).issues.map((i) => i.path).sort()).toEqual([
      '/extra',
      '/phase',
      '/revision',
    ]);
  });
});

describe('the plan service: recording errors', () => {
  it('[PLN-41][PLN-26][PLN-30] record_error answers the record and the decision and merges the metadata into error_details', async () => {
    const w = await world();
    await executing(w);
    const answer = await w.service.recordError('P1', {
      ...timeout,
      stack: 'Error: x\n    at a (/a.js:1:1)\n    at b (/b.js:2:2)',
      actor: 'ExecuteActor',
      tool_call: 'run_tests',
    });
    if (answer.status !== 'recorded') throw new Error(answer.message);
    expect(answer.record).toMatchObject({
      plan_id: 'P1',
      phase: 'execute',
      category: 'transient',
      exception_type: 'RuntimeError',
      retry_count: 0,
      max_retries: 3,
      verdict: 'retry',
      actor: 'ExecuteActor',
      tool_call: 'run_tests',
      stack_summary: 'at a (/a.js:1:1) | at b (/b.js:2:2)',
    });
    expect(answer.decision).toMatchObject({ should_retry: true, should_escalate: false, reason: null });
    expect(answer.plan.state).toBe('running');
    expect(answer.plan.error_details).toMatchObject({
      error_category: 'transient',
      error_phase: 'execute',
      retry_count: '0',
      max_retries: '3',
      is_retriable: 'true',
      error_actor: 'ExecuteActor',
      error_tool_call: 'run_tests',
      recovery_action: 'retry',
      recovery_command: 'recourse plan retry P1',
    });
    // Without an exception there is no stack, no actor and no tool call: those keys are not stored.
    await w.lifecycle.completePhase('P1', 'execute');
    const bare = await w.service.recordError('P1', {
      phase: 'apply',
      message: 'CONFLICT (content): Merge conflict in a.ts',
    });
    if (bare.status !== 'recorded') throw new Error(bare.message);
    expect(bare.record).toMatchObject({
      category: 'merge_conflict',
      stack_summary: null,
      exception_type: null,
    });
    // The new error's keys replace the old ones; keys it does not name are left as they were.
    expect(bare.plan.error_details).toMatchObject({
      error_category: 'merge_conflict',
      error_actor: 'ExecuteActor',
    });
  });

  it('[PLN-38] a recorded error is one write: the revision rises by one, retried or ERRORED alike', async () => {
    const w = await world();
    await executing(w);
    const before = (await w.lifecycle.read('P1')).revision;
    const retried = await w.service.recordError('P1', timeout);
    expect(retried).toMatchObject({ status: 'recorded', plan: { state: 'running', revision: before + 1 } });
    const failed = await w.service.recordError('P1', { ...timeout, message: "KeyError: 'x'" });
    expect(failed).toMatchObject({ status: 'recorded', plan: { state: 'errored', revision: before + 2 } });
    expect((await w.lifecycle.read('P1')).revision).toBe(before + 2);
  });

  it('[PLN-42][PLN-43][PLN-45] should_retry and should_escalate: both false without an error; history counts every error', async () => {
    const w = await world();
    await executing(w);
    expect([await w.service.shouldRetry('P1'), await w.service.shouldEscalate('P1')]).toEqual([false, false]);
    await w.service.recordError('P1', timeout);
    expect([await w.service.shouldRetry('P1'), await w.service.shouldEscalate('P1')]).toEqual([true, false]);
    await w.service.recordError('P1', {
      phase: 'execute',
      message: 'access denied',
      exception_type: 'PermissionDenied',
    });
    expect([await w.service.shouldRetry('P1'), await w.service.shouldEscalate('P1')]).toEqual([false, true]);
    const history = await w.service.errorHistory('P1');
    expect(history).toMatchObject({
      plan_id: 'P1',
      total_errors: 2,
      by_category: { transient: 1, authentication: 1 },
      retry_counts: [0, 1],
    });
  });

  it('[PLN-25][PLN-38] the fourth failure exhausts 3 retries: ERRORED, a clear message, the hints, the history kept', async () => {
    const w = await world();
    await executing(w);
    const verdicts: string[] = [];
    for (let n = 0; n < 4; n++) {
      const answer = await w.service.recordError('P1', timeout);
      if (answer.status !== 'recorded') throw new Error(answer.message);
      verdicts.push(answer.record.verdict);
      expect(answer.plan.state).toBe(n < 3 ? 'running' : 'errored');
    }
    expect(verdicts).toEqual(['retry', 'retry', 'retry', 'exhausted']);
    const doc = await w.service.errors('P1');
    expect(doc.decision).toMatchObject({
      should_retry: false,
      should_escalate: true,
      verdict: 'exhausted',
      message: 'Retries exhausted after 3 of 3 attempts: transient error in execute.',
      reason: 'retries exhausted after 3 of 3 attempts',
      hints: [{ action: 'retry', cli_command: 'recourse plan retry P1' }],
    });
    expect(doc.errors).toHaveLength(4);
    expect(doc.summary.total_errors).toBe(4);
    expect(doc.plan.error_details).toMatchObject({ retry_count: '3', is_retriable: 'false' });
  });

  it('[PLN-51] the latest metadata and the whole history survive a restart (a new service on the same file)', async () => {
    const file = await tempPlanDatabase();
    const first = await world({}, file);
    await executing(first);
    await first.service.recordError('P1', timeout);
    await first.close();
    open = open.filter((w) => w !== first);
    const second = await world({}, file);
    const doc = await second.service.errors('P1');
    expect(doc.plan.error_details).toMatchObject({ error_category: 'transient', retry_count: '0' });
    expect(doc.errors.map((r) => r.message)).toEqual(['Connection timed out']);
    const next = await second.service.recordError('P1', timeout);
    expect(next).toMatchObject({ status: 'recorded', record: { retry_count: 1 } });
  });

  it('refuses a report for another phase, an errored plan or a finished one; a bad report is refused by field and stores nothing', async () => {
    const w = await world();
    await executing(w);
    expect(await w.service.recordError('P1', { ...timeout, phase: 'apply' })).toMatchObject({
      status: 'refused',
      reason: 'wrong_phase',
      message: 'plan P1 is in phase execute, not apply',
    });
    const bad = await thrown(
      w.service.recordError('P1', { phase: 'deploy', message: '', extra: true, actor: 7 }),
    );
    expect((bad as EngineInputError).issues.map((i) => i.path).sort()).toEqual([
      '/actor',
      '/extra',
      '/message',
      '/phase',
    ]);
    expect(await w.store.listPlanErrors('P1')).toEqual([]);
    // Only control characters, spaces or a terminal escape: stored sanitized, it would be an empty message.
    for (const message of ['\u0007\u0000\u001f', ' \t\r\n', '\u001b[31m\u001b[0m', '\u200b\u0008']) {
      const blank = await thrown(w.service.recordError('P1', { phase: 'execute', message }));
      expect((blank as EngineInputError).issues.map((i) => i.path)).toEqual(['/message']);
    }
    expect(await w.store.listPlanErrors('P1')).toEqual([]);
    await w.service.recordError('P1', { phase: 'execute', message: 'boom', exception_type: 'TypeError' });
    expect(await w.service.recordError('P1', timeout)).toMatchObject({
      status: 'refused',
      reason: 'errored',
    });
    await w.service.act('P1', { action: 'cancel' });
    expect(await w.service.recordError('P1', timeout)).toMatchObject({
      status: 'refused',
      reason: 'finished',
    });
    expect(await w.store.listPlanErrors('P1')).toHaveLength(1);
  });

  it('an unknown plan is not_found for every method', async () => {
    const w = await world();
    for (const call of [
      () => w.service.recordError('nope', timeout),
      () => w.service.errors('nope'),
      () => w.service.decision('nope'),
      () => w.service.act('nope', { action: 'retry' }),
    ]) {
      const error = await thrown(call());
      expect(error).toBeInstanceOf(PlanNotFoundError);
      expect((error as PlanNotFoundError).code).toBe('not_found');
    }
  });

  it('emits plan.error.recorded with the record after the commit; a failing listener breaks nothing', async () => {
    const w = await world();
    await executing(w);
    const events: PlanEvent[] = [];
    w.service.subscribe(() => {
      throw new Error('observer broke');
    });
    const stop = w.service.subscribe((e) => events.push(e));
    const answer = await w.service.recordError('P1', timeout);
    expect(events).toHaveLength(1);
    expect(events[0]).toEqual({ type: 'plan.error.recorded', ...answer });
    stop();
    await w.service.recordError('P1', timeout);
    expect(events).toHaveLength(1);
  });

  it('emits plan.changed with its cause for every other write: configure, complete, actions, the executor', async () => {
    const w = await world();
    const events: PlanEvent[] = [];
    w.service.subscribe((e) => events.push(e));
    await w.service.configure('V1', {});
    await w.service.configure('V1', { max_retries: 0 });
    await w.service.complete('V1', { phase: 'strategize' });
    await w.service.recordError('V1', timeout);
    await w.service.act('V1', { action: 'retry' });
    await w.lifecycle.fail('V1', 'execute');
    await w.service.act('V1', { action: 'revert_strategize' });
    await w.service.act('V1', { action: 'cancel' });
    await w.service.act('V1', { action: 'cancel' }); // refused: no event
    expect(events.map((e) => (e.type === 'plan.changed' ? e.cause : e.type))).toEqual([
      'created',
      'configured',
      'phase_completed',
      'plan.error.recorded',
      'retry',
      'failed',
      'revert_strategize',
      'cancel',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'plan.changed', plan: { id: 'V1', state: 'cancelled' } });
  });
});

describe('the plan service: formatting', () => {
  it('[PLN-44] formats the recovery hints as the CLI error block', async () => {
    const w = await world();
    await executing(w);
    expect(await w.service.formatRecoveryHintsForCli('P1')).toBe('No errors recorded for plan P1.\n');
    await w.service.recordError('P1', timeout);
    expect(await w.service.formatRecoveryHintsForCli('P1')).toBe(
      [
        'Error [transient]: Connection timed out',
        '  Phase: execute',
        '  Retry: 0/3',
        '  Recovery suggestions:',
        '    → Retry the operation — the failure was transient.',
        '      $ recourse plan retry P1',
        '  ✓ Automatic retry available.',
        '',
      ].join('\n'),
    );
  });

  it('[PLN-46] renders the errors as rich, json or plain; any other format is refused at /format', async () => {
    const w = await world();
    await executing(w);
    await w.service.recordError('P1', timeout);
    const json = JSON.parse(await w.service.formatErrorOutput('P1', 'json')) as Record<string, unknown>;
    expect(json).toMatchObject({ plan_id: 'P1', error: { error_category: 'transient' } });
    expect(await w.service.formatErrorOutput('P1', 'rich')).toContain('╭─ Plan Errors ─');
    expect(await w.service.formatErrorOutput('P1', 'plain')).toContain('Error Category: transient\n');
    const error = await thrown(w.service.formatErrorOutput('P1', 'xml'));
    expect((error as EngineInputError).issues).toEqual([
      { path: '/format', message: 'format must be one of rich, json, plain' },
    ]);
  });
});

describe('the plan service: recovery actions (the table in docs/plan-errors.md)', () => {
  /** A plan errored in `phase` by a non-retriable error. */
  async function errored(w: PlanWorld, phase: 'execute' | 'apply' = 'execute'): Promise<void> {
    await executing(w);
    if (phase === 'apply') await w.lifecycle.completePhase('P1', 'execute');
    await w.service.recordError('P1', { phase, message: 'boom', exception_type: 'TypeError' });
  }

  it.each([
    // The retry budget restarts after the one error recorded (retrySince 1); cancel leaves it.
    ['retry', 'apply', 'running', 1],
    ['prompt', 'apply', 'running', 1],
    ['correct', 'apply', 'running', 1],
    ['revert_strategize', 'strategize', 'running', 1],
    ['cancel', 'apply', 'cancelled', 0],
  ] as const)('errored + %s -> phase %s, state %s', async (action, phase, state, retrySince) => {
    const w = await world();
    await errored(w, 'apply');
    const answer = await w.service.act('P1', { action });
    expect(answer).toMatchObject({ status: 'changed', plan: { phase, state } });
    expect(await w.store.readPlan('P1')).toMatchObject({ phase, state, retrySince });
  });

  it('running + cancel -> cancelled; running + any other action is refused (not_errored)', async () => {
    const w = await world();
    await executing(w);
    for (const action of ['retry', 'prompt', 'correct', 'revert_strategize'] as const) {
      expect(await w.service.act('P1', { action })).toMatchObject({
        status: 'refused',
        reason: 'not_errored',
        plan: { state: 'running', revision: 2 },
      });
    }
    expect(await w.service.act('P1', { action: 'cancel' })).toMatchObject({
      status: 'changed',
      plan: { state: 'cancelled', phase: 'execute' },
    });
  });

  it('completed or cancelled + any action is refused (finished) and changes nothing', async () => {
    const w = await world();
    await executing(w);
    await w.lifecycle.completePhase('P1', 'execute');
    await w.lifecycle.completePhase('P1', 'apply');
    const done = await w.store.readPlan('P1');
    expect(done?.state).toBe('completed');
    for (const action of ['retry', 'prompt', 'correct', 'revert_strategize', 'cancel'] as const) {
      expect(await w.service.act('P1', { action })).toMatchObject({ status: 'refused', reason: 'finished' });
    }
    expect(await w.store.readPlan('P1')).toEqual(done);
  });

  it('a resumed plan gets its full retry budget again; the earlier errors stay in the history', async () => {
    const w = await world();
    await executing(w, 'P1', { max_retries: 1 });
    await w.service.recordError('P1', timeout);
    const exhausted = await w.service.recordError('P1', timeout);
    expect(exhausted).toMatchObject({ record: { verdict: 'exhausted' }, plan: { state: 'errored' } });
    await w.service.act('P1', { action: 'retry' });
    expect(await w.service.recordError('P1', timeout)).toMatchObject({
      record: { retry_count: 0, verdict: 'retry' },
      plan: { state: 'running' },
    });
    expect((await w.service.errorHistory('P1')).total_errors).toBe(3);
  });

  it('an unknown action is refused at /action and changes nothing', async () => {
    const w = await world();
    await errored(w);
    const error = await thrown(w.service.act('P1', { action: 'manual' }));
    expect((error as EngineInputError).issues).toEqual([
      {
        path: '/action',
        message: 'action must be one of retry, prompt, correct, revert_strategize, cancel (got "manual")',
      },
    ]);
    expect((await w.store.readPlan('P1'))?.state).toBe('errored');
  });
});

describe('the plan lifecycle service', () => {
  it('[PLN-32][PLN-33] update_error_details merges into error_details and keeps the keys it does not name', async () => {
    const w = await world();
    await executing(w);
    await w.service.recordError('P1', timeout);
    const plan = await w.lifecycle.updateErrorDetails('P1', { retry_count: '2', ticket: 'OPS-1' });
    expect(plan.errorDetails).toMatchObject({
      error_category: 'transient',
      error_phase: 'execute',
      retry_count: '2',
      ticket: 'OPS-1',
    });
    expect((await w.store.readPlan('P1'))?.errorDetails).toEqual(plan.errorDetails);
  });
});
