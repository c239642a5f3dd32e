import { describe, expect, it } from 'vitest';
import {
  agentsCommandTemplates,
  appendPlanError,
  classifyPlanError,
  createErrorRecoveryPolicy,
  emptyHistory,
  errorDetailKeys,
  errorDetailsOf,
  exhaustedMessage,
  getRecoveryHints,
  planErrorCategories,
  planRetryVerdict,
  recordPlanError,
  retriableCategories,
  retriesAttempted,
  shouldEscalatePlan,
  shouldRetryPlan,
  shouldRetryPlanError,
  summarizeHistory,
  type ErrorRecoveryPolicy,
} from '../../../src/core/index.js';

const now = Date.parse('2026-06-01T12:00:00Z');
const policy = (threshold = 0, maxRetries = 3): ErrorRecoveryPolicy => {
  const r = createErrorRecoveryPolicy({ autoRetryThreshold: threshold, maxRetries });
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.value;
};

describe('plan error categories', () => {
  it('[PLN-01][PLN-02] nine categories with their retriable flags', () => {
    expect([...planErrorCategories]).toEqual([
      'transient',
      'validation',
      'configuration',
      'resource',
      'merge_conflict',
      'authentication',
      'provider',
      'internal',
      'unknown',
    ]);
    expect(
      Object.entries(retriableCategories)
        .filter(([, r]) => r)
        .map(([c]) => c)
        .sort(),
    ).toEqual(['merge_conflict', 'provider', 'transient', 'validation']);
  });

  it.each([
    ['[PLN-05] Connection timed out', 'Connection timed out', 'NetworkError', 'transient'],
    ['[PLN-05] a RuntimeError timeout', 'Connection timed out', 'RuntimeError', 'transient'],
    ['[PLN-01] a provider overload', 'API Error: 529 Overloaded', null, 'transient'],
    [
      '[PLN-01] a quota',
      'You exceeded your current quota, please check your plan and billing details.',
      'RateLimitError',
      'provider',
    ],
    [
      '[PLN-01] a missing model',
      'The model `gpt-9` does not exist or you do not have access to it.',
      'NotFoundError',
      'provider',
    ],
    [
      '[PLN-03] a token limit',
      "This model's maximum context length is 8192 tokens",
      'BadRequestError',
      'provider',
    ],
    [
      '[PLN-01] bad credentials',
      'Incorrect API key provided: sk-REDACTED',
      'AuthenticationError',
      'authentication',
    ],
    [
      '[PLN-01] provider misconfiguration',
      'The API deployment for this resource does not exist.',
      null,
      'configuration',
    ],
    [
      '[PLN-03] a schema failure',
      'Plan output failed validation: field "steps" is required',
      'ValidationError',
      'validation',
    ],
    ['[PLN-03] a failed assertion in Apply', 'expected 3 files but got 2', 'AssertionError', 'validation'],
    [
      '[PLN-03] missing configuration',
      'missing required field: workspace.root',
      'ConfigError',
      'configuration',
    ],
    ['[PLN-03] a missing branch', 'branch feature/x does not exist', null, 'resource'],
    [
      '[PLN-03] a missing file',
      "FileNotFoundError: [Errno 2] No such file or directory: 'plan.yaml'",
      'FileNotFoundError',
      'resource',
    ],
    [
      '[PLN-03] a sandbox merge conflict',
      'CONFLICT (content): Merge conflict in src/app.ts',
      null,
      'merge_conflict',
    ],
    [
      '[PLN-03] an internal bug',
      "Cannot read properties of undefined (reading 'id')",
      'TypeError',
      'internal',
    ],
    ['[PLN-04] anything else', 'the moon is in the wrong phase', 'Exception', 'unknown'],
  ])('%s', (_name, message, exceptionType, category) => {
    expect(classifyPlanError(message, exceptionType)).toBe(category);
  });

  // The seed's own words for each category (PLN-03), and near misses that belong to none of them.
  it.each([
    ['[PLN-03] provider: token limit exceeded', 'token limit exceeded', null, 'provider'],
    [
      '[PLN-03] provider: Token limit reached',
      'Token limit reached while generating the plan',
      null,
      'provider',
    ],
    ['[PLN-03] provider: max_tokens exceeded', 'max_tokens exceeded', 'RuntimeError', 'provider'],
    ['[PLN-03] provider: a token limit type', 'too long', 'TokenLimitExceededError', 'provider'],
    ['[PLN-03] authentication: permission denied', 'permission denied', null, 'authentication'],
    ['[PLN-03] authentication: PermissionDeniedError', 'no', 'PermissionDeniedError', 'authentication'],
    [
      '[PLN-03] authentication: PermissionError',
      'Operation not permitted',
      'PermissionError',
      'authentication',
    ],
    ['[PLN-03] authentication: failed', 'Authentication failed for the sandbox', null, 'authentication'],
    ['[PLN-03] resource: type named in the message', 'FileNotFoundError: no such file', null, 'resource'],
    [
      '[PLN-03] resource: dotted type in the message',
      "builtins.FileNotFoundError: 'plan.yaml'",
      null,
      'resource',
    ],
    ['[PLN-03] internal: KeyError in the message', "KeyError: 'x'", null, 'internal'],
    [
      '[PLN-03] internal: a traceback ending in its type',
      'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\nKeyError: \'x\'',
      null,
      'internal',
    ],
    ['[PLN-04] near miss: a token refreshed', 'token refreshed; limit raised', null, 'unknown'],
    ['[PLN-04] near miss: a limit of tokens set', 'max_tokens set to 4096', null, 'unknown'],
    ['[PLN-04] near miss: tokenizer limit words', 'the token limit is 8k', null, 'unknown'],
    ['[PLN-04] near miss: permission granted', 'permission granted to the sandbox', null, 'unknown'],
    ['[PLN-04] near miss: an unknown type in the message', "PlanFizzleError: 'x'", null, 'unknown'],
    [
      '[PLN-04] near miss: a type named mid-sentence',
      "while reading: KeyError: 'x' happened",
      null,
      'unknown',
    ],
    ['[PLN-04] near miss: a bare Error prefix', 'Error: the moon is in the wrong phase', null, 'unknown'],
    ['[PLN-04] a given type wins over the message', "KeyError: 'x'", 'PlanFizzle', 'unknown'],
  ])('%s', (_name, message, exceptionType, category) => {
    expect(classifyPlanError(message, exceptionType)).toBe(category);
  });
});

describe('recovery actions and hints', () => {
  it('[PLN-06][PLN-13][PLN-07][PLN-08][PLN-09][PLN-11][PLN-12] every category maps to actions with commands', () => {
    const actions = Object.fromEntries(
      planErrorCategories.map((c) => [c, getRecoveryHints(c, 'P1').map((h) => h.action)]),
    );
    expect(actions).toEqual({
      transient: ['retry'],
      validation: ['correct'],
      configuration: ['prompt', 'cancel'],
      resource: ['revert_strategize'],
      merge_conflict: ['revert_strategize'],
      authentication: ['cancel'],
      provider: ['retry'],
      internal: ['manual'],
      unknown: ['prompt', 'cancel'],
    });
    expect(getRecoveryHints('internal', 'P1')[0]!.cli_command).toBeNull();
  });

  it('[PLN-14][PLN-15][PLN-10] the transient hint, with the plan id filled in, in Recourse and in seed commands', () => {
    expect(getRecoveryHints('transient', '01HXYZ')).toEqual([
      {
        action: 'retry',
        message: 'Retry the operation — the failure was transient.',
        cli_command: 'recourse plan retry 01HXYZ',
      },
    ]);
    expect(getRecoveryHints('transient', '01HXYZ', agentsCommandTemplates)[0]!.cli_command).toBe(
      'agents plan prompt 01HXYZ',
    );
    expect(getRecoveryHints('resource', '01HXYZ', agentsCommandTemplates)[0]!.cli_command).toBe(
      'agents plan revert 01HXYZ --to-phase strategize',
    );
    expect(getRecoveryHints('unknown', '01HXYZ', agentsCommandTemplates).map((h) => h.cli_command)).toEqual([
      'agents plan prompt 01HXYZ',
      'agents plan cancel 01HXYZ',
    ]);
  });
});

describe('the plan retry policy', () => {
  it('[PLN-23][PLN-24][PLN-22] defaults to 3 retries; subplans at most 5; threshold within 0 to 1', () => {
    expect(createErrorRecoveryPolicy({})).toEqual({
      ok: true,
      value: { autoRetryThreshold: 0, maxRetries: 3 },
    });
    expect(createErrorRecoveryPolicy({ maxRetries: 5, subplan: true }).ok).toBe(true);
    const six = createErrorRecoveryPolicy({ maxRetries: 6, subplan: true });
    expect(six.ok ? null : six.issues[0]!.message).toBe(
      'max_retries must be an integer from 0 to 5 for a subplan (got 6)',
    );
    expect(createErrorRecoveryPolicy({ autoRetryThreshold: 1.5 }).ok).toBe(false);
    expect(createErrorRecoveryPolicy({ maxRetries: 11 }).ok).toBe(false);
  });

  it('[PLN-17][PLN-18][PLN-19][PLN-20][PLN-21][PLN-22][PLN-47] follows the decision flow', () => {
    expect(planRetryVerdict(policy(0), 'transient', 0)).toBe('retry');
    expect(planRetryVerdict(policy(0.5), 'transient', 2)).toBe('retry');
    expect(planRetryVerdict(policy(1), 'transient', 0)).toBe('human_threshold');
    expect(planRetryVerdict(policy(0), 'transient', 3)).toBe('exhausted');
    expect(planRetryVerdict(policy(0), 'authentication', 0)).toBe('not_retriable');
    expect(shouldRetryPlanError(policy(0), { category: 'merge_conflict', retryCount: 1 })).toBe(true);
  });

  it('[PLN-25][PLN-29] max_retries counts attempts after the first: the fourth failure is exhausted and escalates', () => {
    let history = emptyHistory('P1');
    for (let attempt = 0; attempt < 4; attempt++) {
      const record = recordPlanError(
        {
          planId: 'P1',
          phase: 'execute',
          message: 'Connection timed out',
          exceptionType: 'RuntimeError',
          retryCount: retriesAttempted(history, 'execute'),
        },
        policy(),
        now,
      );
      history = appendPlanError(history, record);
    }
    const last = history.records[3]!;
    expect(history.records.map((r) => r.verdict)).toEqual(['retry', 'retry', 'retry', 'exhausted']);
    expect(errorDetailsOf(last).is_retriable).toBe('false');
    expect(exhaustedMessage(last)).toBe(
      'Retries exhausted after 3 of 3 attempts: transient error in execute.',
    );
    expect(shouldRetryPlan(history)).toBe(false);
    expect(shouldEscalatePlan(history)).toBe(true);
  });
});

describe('structured error metadata and history', () => {
  const stack = [
    'Error: Connection timed out',
    '    at connect (/home/jane/app/node_modules/undici/lib/core/connect.js:10:5)',
    '    at Client.dispatch (/app/client.js:20:3)',
    '    at Plan.run (/app/plan.js:30:7)',
    '    at main (/app/main.js:40:1)',
  ].join('\n');

  it('[PLN-26][PLN-27][PLN-28][PLN-30][PLN-31] stores the seed keys, every value a string, the last 3 frames', () => {
    const record = recordPlanError(
      {
        planId: 'P1',
        phase: 'execute',
        message: 'Connection timed out',
        exceptionType: 'RuntimeError',
        stack,
        actor: 'ExecuteStubActor',
        toolCall: 'run_tests',
        retryCount: 0,
      },
      policy(),
      now,
    );
    const details = errorDetailsOf(record);
    expect(Object.keys(details).sort()).toEqual([...errorDetailKeys].sort());
    for (const value of Object.values(details)) expect(typeof value).toBe('string');
    expect(details).toMatchObject({
      error_category: 'transient',
      error_phase: 'execute',
      retry_count: '0',
      max_retries: '3',
      is_retriable: 'true',
      error_actor: 'ExecuteStubActor',
      error_tool_call: 'run_tests',
      recovery_action: 'retry',
      recovery_hint: 'Retry the operation — the failure was transient.',
      recovery_command: 'recourse plan retry P1',
    });
    expect(details.stack_summary).toBe(
      'at Client.dispatch (/app/client.js:20:3) | at Plan.run (/app/plan.js:30:7) | at main (/app/main.js:40:1)',
    );
  });

  it('[PLN-30] omits actor, tool call and command when they do not apply', () => {
    const details = errorDetailsOf(
      recordPlanError(
        { planId: 'P1', phase: 'apply', message: 'boom', exceptionType: 'TypeError', retryCount: 0 },
        policy(),
        now,
      ),
    );
    expect(details).not.toHaveProperty('error_actor');
    expect(details).not.toHaveProperty('error_tool_call');
    expect(details).not.toHaveProperty('recovery_command');
    expect(details.recovery_action).toBe('manual');
  });

  it('[PLN-49][PLN-50] history keeps every error in order with counts, retry counts and a category breakdown', () => {
    let h = emptyHistory('P9');
    for (const message of [
      'Connection timed out',
      'Connection timed out',
      'CONFLICT (content): Merge conflict in a.ts',
    ]) {
      h = appendPlanError(
        h,
        recordPlanError(
          { planId: 'P9', phase: 'execute', message, retryCount: retriesAttempted(h, 'execute') },
          policy(),
          now,
        ),
      );
    }
    const summary = summarizeHistory(h);
    expect(summary).toMatchObject({
      total_errors: 3,
      by_category: { transient: 2, merge_conflict: 1 },
      retry_counts: [0, 1, 2],
    });
    expect(summary.records.every((r) => r.hints.length > 0)).toBe(true);
    expect(shouldRetryPlan(emptyHistory('none'))).toBe(false);
    expect(shouldEscalatePlan(emptyHistory('none'))).toBe(false);
  });

  it('keeps no secret in a record', () => {
    const record = recordPlanError(
      {
        planId: 'P1',
        phase: 'execute',
        message: 'Incorrect API key provided: sk-proj-AbCdEfGhIjKlMnOpQrStUv12',
        retryCount: 0,
      },
      policy(),
      now,
    );
    expect(JSON.stringify(record)).not.toContain('AbCdEfGhIjKl');
  });
});
