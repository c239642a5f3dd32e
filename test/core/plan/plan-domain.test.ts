import { describe, expect, it } from 'vitest';
import * as core from '../../../src/core/index.js';
import type {
  ErrorRecoveryPolicy,
  PlanErrorCategory,
  PlanErrorHistory,
  PlanErrorRecord,
  RecoveryAction,
  RecoveryHint,
} from '../../../src/core/index.js';

describe('the plan domain model', () => {
  it('[PLN-48] core exports the seed domain: category, record, history, policy, action, hint, classify and hints', () => {
    // The seed's names, ours beside them: ErrorCategory, ErrorRecord, ErrorHistory, ErrorRecoveryPolicy,
    // RecoveryAction, RecoveryHint, classify_error, get_recovery_hints.
    const category: PlanErrorCategory = core.classifyPlanError('Connection timed out', 'NetworkError');
    expect(category).toBe('transient');
    expect(core.planErrorCategories).toContain(category);
    const checked = core.createErrorRecoveryPolicy({ autoRetryThreshold: 0, maxRetries: 3 });
    if (!checked.ok) throw new Error('valid');
    const policy: ErrorRecoveryPolicy = checked.value;
    const record: PlanErrorRecord = core.recordPlanError(
      { planId: 'P1', phase: 'execute', message: 'Connection timed out', retryCount: 0 },
      policy,
      0,
    );
    const history: PlanErrorHistory = core.appendPlanError(core.emptyHistory('P1'), record);
    expect(core.summarizeHistory(history).total_errors).toBe(1);
    expect(core.shouldRetryPlanError(policy, { category, retryCount: 0 })).toBe(true);
    const hints: RecoveryHint[] = core.getRecoveryHints(category, 'P1');
    const action: RecoveryAction = hints[0]!.action;
    expect(core.recoveryActions).toContain(action);
    expect(hints).toEqual([
      {
        action: 'retry',
        message: 'Retry the operation — the failure was transient.',
        cli_command: 'recourse plan retry P1',
      },
    ]);
  });
});
