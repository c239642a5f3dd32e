import { describe, expect, it } from 'vitest';
import {
  applyPlanAction,
  completePhase,
  createErrorRecoveryPolicy,
  failPhase,
  mergeErrorDetails,
  newPlan,
  planDecisionOf,
  recordPlanError,
  revise,
  type Plan,
} from '../../../src/core/index.js';

const t0 = Date.UTC(2026, 5, 1);
const recovery = { autoRetryThreshold: 0, maxRetries: 3, subplan: false };
const plan = (change: Partial<Plan> = {}): Plan => ({ ...newPlan('P1', recovery, t0), ...change });

describe('the plan lifecycle (pure)', () => {
  it('[PLN-39] phases run strategize, execute, apply, then the plan completes; a failure makes it ERRORED', () => {
    let p = plan();
    for (const [phase, next] of [
      ['strategize', 'execute'],
      ['execute', 'apply'],
    ] as const) {
      const done = completePhase(p, phase, 2, t0 + 1);
      if (!done.ok) throw new Error(done.message);
      expect(done.plan).toMatchObject({ phase: next, state: 'running', retrySince: 2 });
      p = done.plan;
    }
    expect(completePhase(p, 'execute', 2, t0)).toMatchObject({ ok: false, reason: 'wrong_phase' });
    const failed = failPhase(p, 'apply', t0 + 2);
    expect(failed).toMatchObject({ ok: true, plan: { state: 'errored', phase: 'apply' } });
    const done = completePhase(p, 'apply', 3, t0 + 3);
    expect(done).toMatchObject({ ok: true, plan: { state: 'completed', revision: 4 } });
    if (done.ok) expect(completePhase(done.plan, 'apply', 3, t0)).toMatchObject({ reason: 'finished' });
  });

  it('[PLN-33] mergeErrorDetails keeps the keys an update does not name', () => {
    const p = mergeErrorDetails(plan({ errorDetails: { a: '1', b: '2' } }), { b: '3', c: '4' }, t0);
    expect(p.errorDetails).toEqual({ a: '1', b: '3', c: '4' });
    expect(p.revision).toBe(2);
  });

  it('[PLN-36] a strategize failure is never retried, even a retriable one under an automatic policy', () => {
    const checked = createErrorRecoveryPolicy({});
    if (!checked.ok) throw new Error('valid');
    const record = recordPlanError(
      { planId: 'P1', phase: 'strategize', message: 'Connection timed out', retryCount: 0 },
      checked.value,
      t0,
    );
    expect(record).toMatchObject({ category: 'transient', verdict: 'read_only_phase' });
    expect(planDecisionOf({ plan_id: 'P1', records: [record] })).toMatchObject({
      should_retry: false,
      should_escalate: true,
      reason: 'strategize failures are not retried',
    });
  });

  it('refuses recovery actions on a running plan and everything on a finished one', () => {
    expect(applyPlanAction(plan(), 'retry', 0, t0)).toMatchObject({ ok: false, reason: 'not_errored' });
    expect(applyPlanAction(plan({ state: 'cancelled' }), 'cancel', 0, t0)).toMatchObject({
      ok: false,
      reason: 'finished',
    });
    expect(applyPlanAction(revise(plan(), { state: 'errored' }, t0), 'cancel', 0, t0)).toMatchObject({
      ok: true,
      plan: { state: 'cancelled' },
    });
  });

  it('[PLN-06] a recovery action with the revision seen refuses a plan that moved on, before any other check', () => {
    const errored = revise(plan(), { state: 'errored' }, t0);
    expect(applyPlanAction(errored, 'retry', 0, t0, errored.revision)).toMatchObject({
      ok: true,
      plan: { state: 'running', revision: errored.revision + 1 },
    });
    for (const action of ['retry', 'cancel'] as const) {
      expect(applyPlanAction(errored, action, 0, t0, errored.revision - 1)).toMatchObject({
        ok: false,
        reason: 'stale_revision',
      });
    }
    // A finished plan at another revision says the revision first: the page is stale whatever it shows.
    expect(applyPlanAction(plan({ state: 'cancelled' }), 'cancel', 0, t0, 99)).toMatchObject({
      ok: false,
      reason: 'stale_revision',
    });
  });
});
