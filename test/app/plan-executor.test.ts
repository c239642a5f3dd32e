import { afterEach, describe, expect, it } from 'vitest';
import { PlanExecutor, type PlanActor } from '../../src/app/index.js';
import { openPlanWorld, tempPlanDatabase, type PlanWorld } from './plan-harness.js';

let open: PlanWorld[] = [];
afterEach(async () => {
  for (const w of open) await w.close();
  open = [];
});

async function world(): Promise<PlanWorld> {
  const w = await openPlanWorld(await tempPlanDatabase());
  open.push(w);
  return w;
}

class TimeoutError extends Error {
  override name = 'TimeoutError';
}

/** An actor that fails with the given errors in turn, then succeeds; it counts its runs. */
function actor(name: string, failures: readonly Error[]): PlanActor & { runs: number } {
  const queue = [...failures];
  return {
    name,
    runs: 0,
    run() {
      this.runs++;
      const next = queue.shift();
      return next === undefined ? Promise.resolve() : Promise.reject(next);
    },
  };
}

const timeouts = (n: number) => Array.from({ length: n }, () => new TimeoutError('Connection timed out'));

describe('the plan executor (seed 004, Execute Phase Integration)', () => {
  it('[PLN-37][PLN-39] with the service, execute runs again while the decision is an automatic retry, then moves on to apply', async () => {
    const w = await world();
    await w.service.configure('P1', {});
    const execute = actor('ExecuteActor', timeouts(2));
    const executor = new PlanExecutor({
      lifecycle: w.lifecycle,
      actors: { strategize: actor('StrategizeActor', []), execute },
      errorRecovery: w.service,
    });
    expect(await executor.runStrategize('P1')).toMatchObject({
      status: 'completed',
      plan: { phase: 'execute' },
    });
    const run = await executor.runExecute('P1');
    expect(run).toMatchObject({
      status: 'completed',
      attempts: 3,
      plan: { phase: 'apply', state: 'running' },
    });
    expect(execute.runs).toBe(3);
    const records = await w.store.listPlanErrors('P1');
    expect(records.map((r) => [r.phase, r.category, r.retry_count, r.actor])).toEqual([
      ['execute', 'transient', 0, 'ExecuteActor'],
      ['execute', 'transient', 1, 'ExecuteActor'],
    ]);
    expect(records[0]!.exception_type).toBe('TimeoutError');
    expect(records[0]!.stack_summary).toMatch(/^at /);
  });

  it('[PLN-38] retries exhausted: the actor ran 1 + max_retries times and the plan is ERRORED', async () => {
    const w = await world();
    await w.service.configure('P1', { max_retries: 2 });
    await w.lifecycle.completePhase('P1', 'strategize');
    const execute = actor('ExecuteActor', timeouts(10));
    const executor = new PlanExecutor({
      lifecycle: w.lifecycle,
      actors: { strategize: actor('s', []), execute },
      errorRecovery: w.service,
    });
    const run = await executor.runExecute('P1');
    expect(run).toMatchObject({
      status: 'errored',
      attempts: 3,
      plan: { phase: 'execute', state: 'errored' },
      record: { verdict: 'exhausted', retry_count: 2 },
    });
    expect(execute.runs).toBe(3);
  });

  it('[PLN-38] a non-retriable error is ERRORED after one attempt', async () => {
    const w = await world();
    await w.service.configure('P1', {});
    await w.lifecycle.completePhase('P1', 'strategize');
    const execute = actor('ExecuteActor', [
      new TypeError("Cannot read properties of undefined (reading 'x')"),
    ]);
    const executor = new PlanExecutor({
      lifecycle: w.lifecycle,
      actors: { strategize: actor('s', []), execute },
      errorRecovery: w.service,
    });
    expect(await executor.runExecute('P1')).toMatchObject({
      status: 'errored',
      attempts: 1,
      record: { category: 'internal', verdict: 'not_retriable' },
    });
    expect(execute.runs).toBe(1);
  });

  it('[PLN-35][PLN-36] a strategize failure is recorded through the service and never retried: ERRORED in strategize', async () => {
    const w = await world();
    await w.service.configure('P1', {});
    const strategize = actor('StrategizeActor', timeouts(3));
    const executor = new PlanExecutor({
      lifecycle: w.lifecycle,
      actors: { strategize, execute: actor('e', []) },
      errorRecovery: w.service,
    });
    const run = await executor.runStrategize('P1');
    expect(run).toMatchObject({
      status: 'errored',
      attempts: 1,
      plan: { phase: 'strategize', state: 'errored' },
      record: {
        phase: 'strategize',
        category: 'transient',
        verdict: 'read_only_phase',
        actor: 'StrategizeActor',
      },
    });
    expect(strategize.runs).toBe(1);
    expect(await w.store.listPlanErrors('P1')).toHaveLength(1);
  });

  it('[PLN-34] without the service the executor makes one attempt, then the plan is ERRORED (nothing recorded)', async () => {
    const w = await world();
    await w.service.configure('P1', {});
    await w.lifecycle.completePhase('P1', 'strategize');
    const execute = actor('ExecuteActor', timeouts(3));
    const executor = new PlanExecutor({
      lifecycle: w.lifecycle,
      actors: { strategize: actor('s', []), execute },
    });
    expect(await executor.runExecute('P1')).toMatchObject({
      status: 'errored',
      attempts: 1,
      record: null,
      plan: { state: 'errored', phase: 'execute' },
    });
    expect(execute.runs).toBe(1);
    expect(await w.store.listPlanErrors('P1')).toEqual([]);
  });

  it('does not run an actor for a plan that is not running in that phase', async () => {
    const w = await world();
    await w.service.configure('P1', {});
    const execute = actor('ExecuteActor', []);
    const executor = new PlanExecutor({
      lifecycle: w.lifecycle,
      actors: { strategize: actor('s', []), execute },
    });
    expect(await executor.runExecute('P1')).toMatchObject({ status: 'refused', reason: 'wrong_phase' });
    await w.service.act('P1', { action: 'cancel' });
    expect(await executor.runStrategize('P1')).toMatchObject({ status: 'refused', reason: 'finished' });
    expect(execute.runs).toBe(0);
  });

  it('a thrown non-Error, or an error without a message, is still recorded with a readable message', async () => {
    const w = await world();
    await w.service.configure('P1', {});
    const strategize: PlanActor = {
      name: 'StrategizeActor',
      run: () => Promise.reject(new Error('')),
    };
    const executor = new PlanExecutor({
      lifecycle: w.lifecycle,
      actors: { strategize, execute: actor('e', []) },
      errorRecovery: w.service,
    });
    expect(await executor.runStrategize('P1')).toMatchObject({
      status: 'errored',
      record: { message: 'Error without a message' },
    });
  });
});
