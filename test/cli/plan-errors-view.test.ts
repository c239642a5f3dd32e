import { describe, expect, it } from 'vitest';
import type { PlanErrorsDocument } from '../../src/app/index.js';
import { renderPlanErrorBlock } from '../../src/cli/plan-error-block.js';
import { renderPlanErrors } from '../../src/cli/plan-errors-view.js';
import { styleFor } from '../../src/cli/plan-style.js';
import { panelRows } from './run-cli.js';
import {
  createErrorRecoveryPolicy,
  planDecisionOf,
  recordPlanError,
  summarizeHistory,
  type PlanErrorRecord,
} from '../../src/core/index.js';

const t0 = Date.UTC(2026, 5, 1, 12);
const plain = { color: false };
const colour = { color: true };
// eslint-disable-next-line no-control-regex -- finding colour codes is the point
const sgr = /\u001b\[[0-9;]*m/g;

function records(n: number, message = 'Connection timed out', exceptionType: string | null = 'RuntimeError') {
  const checked = createErrorRecoveryPolicy({});
  if (!checked.ok) throw new Error('valid');
  return Array.from({ length: n }, (_, i) =>
    recordPlanError(
      { planId: 'P1', phase: 'execute', message, exceptionType, retryCount: i },
      checked.value,
      t0 + i,
    ),
  );
}

function doc(errors: readonly PlanErrorRecord[], state = 'errored' as const): PlanErrorsDocument {
  const history = { plan_id: 'P1', records: errors };
  const { total_errors, by_category, retry_counts } = summarizeHistory(history);
  return {
    plan: {
      id: 'P1',
      phase: 'execute',
      state,
      recovery: { auto_retry_threshold: 0, max_retries: 3, subplan: false },
      error_details: {},
      revision: 3,
      created_at: '2026-06-01T12:00:00.000Z',
      updated_at: '2026-06-01T12:00:00.000Z',
    },
    errors,
    summary: { total_errors, by_category, retry_counts },
    decision: planDecisionOf(history),
  };
}

describe('recourse errors: the Plan Errors panel', () => {
  it('[CLI-01][CLI-05][CLI-06][CLI-07] rich output is the seed panel: plan, error, category, retry count, hints with commands', () => {
    const out = renderPlanErrors(doc(records(4)), 'rich', plain);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^╭─ Plan Errors ─+╮$/);
    expect(lines.at(-1)).toMatch(/^╰─+╯$/);
    // Every row is boxed to the same width.
    expect(new Set(lines.map((l) => [...l].length)).size).toBe(1);
    const rows = panelRows(lines);
    expect(rows.slice(0, 4)).toEqual([
      'Plan: P1',
      'Phase: execute',
      'State: errored',
      'Error: RuntimeError: Connection timed out',
    ]);
    expect(rows.slice(5, 10)).toEqual([
      'Error Category: transient',
      'Error Phase: execute',
      'Retry Count: 3/3',
      'Retriable: false',
      '✗ Automatic retry not available (retries exhausted after 3 of 3 attempts).',
    ]);
    // CLI-01: the retry history, oldest first, with each decision.
    expect(rows).toContain('History: 4 errors (transient 4)');
    expect(rows).toContain('  1. 2026-06-01T12:00:00Z execute transient 0/3 retry: Connection timed out');
    expect(rows).toContain(
      '  4. 2026-06-01T12:00:00.003Z execute transient 3/3 exhausted: Connection timed out',
    );
    expect(rows.slice(-3)).toEqual([
      'Recovery Suggestions:',
      '  → Retry the operation — the failure was transient.',
      '    $ recourse plan retry P1',
    ]);
    expect(out.match(sgr)).toBeNull();
  });

  it('[CLI-05] an error recorded without an exception type shows only its message', () => {
    const out = renderPlanErrors(doc(records(1, 'patch does not apply', null)), 'rich', plain);
    expect(out).toContain('│ Error: patch does not apply ');
    expect(out).toContain('✓ Automatic retry available.');
    expect(out).toContain('$ recourse plan revert P1 --to-phase strategize');
  });

  it('[CLI-08] with no error recorded it prints a green confirmation instead (plain text without colour)', () => {
    expect(renderPlanErrors(doc([], 'errored'), 'rich', colour)).toBe(
      '\u001b[32mNo errors recorded for plan P1.\u001b[0m\n',
    );
    expect(renderPlanErrors(doc([]), 'rich', plain)).toBe('No errors recorded for plan P1.\n');
    expect(renderPlanErrors(doc([]), 'plain', colour)).toBe('No errors recorded for plan P1.\n');
    expect(JSON.parse(renderPlanErrors(doc([]), 'json', colour))).toMatchObject({ error: null, history: [] });
  });

  it('[CLI-02][CLI-03] json output is the documented document: plan, latest metadata, history, recovery', () => {
    const json = JSON.parse(renderPlanErrors(doc(records(2)), 'json', colour)) as Record<string, unknown>;
    expect(json).toEqual({
      plan_id: 'P1',
      phase: 'execute',
      state: 'errored',
      error: {
        error_category: 'transient',
        error_phase: 'execute',
        retry_count: '1',
        max_retries: '3',
        is_retriable: 'true',
        recovery_action: 'retry',
        recovery_hint: 'Retry the operation — the failure was transient.',
        recovery_command: 'recourse plan retry P1',
        message: 'Connection timed out',
        exception_type: 'RuntimeError',
        occurred_at: '2026-06-01T12:00:00.001Z',
      },
      history: expect.any(Array) as unknown[],
      summary: { total_errors: 2, by_category: { transient: 2 }, retry_counts: [0, 1] },
      recovery: {
        hints: [
          {
            action: 'retry',
            message: 'Retry the operation — the failure was transient.',
            cli_command: 'recourse plan retry P1',
          },
        ],
        automatic_retry: true,
        reason: null,
        message: null,
      },
    });
    expect((json.history as unknown[]).length).toBe(2);
  });

  it('[CLI-04] plain output is Key: value lines in the panel order, without box or colour', () => {
    const out = renderPlanErrors(doc(records(4)), 'plain', colour);
    expect(out.split('\n').slice(0, 10)).toEqual([
      'Plan: P1',
      'Phase: execute',
      'State: errored',
      'Error: RuntimeError: Connection timed out',
      'Error Category: transient',
      'Error Phase: execute',
      'Retry Count: 3/3',
      'Retriable: false',
      'Automatic Retry: not available (retries exhausted after 3 of 3 attempts)',
      'Total Errors: 4',
    ]);
    expect(out).toContain('Recovery Suggestion: Retry the operation — the failure was transient.\n');
    expect(out).toContain('Recovery Command: recourse plan retry P1\n');
    expect(out).not.toMatch(/[╭│╰]/);
    expect(out.match(sgr)).toBeNull();
  });

  it('colours the rich panel only when asked, and the colour does not break the box', () => {
    const out = renderPlanErrors(doc(records(1)), 'rich', colour);
    expect(out).toMatch(sgr);
    expect(out.replace(sgr, '')).toBe(renderPlanErrors(doc(records(1)), 'rich', plain));
  });

  it('[CLI-05] keeps the box square around wide characters: CJK and emoji take two terminal cells, a combining mark none', () => {
    // Terminal cells, counted independently of the renderer: wide CJK and emoji 2, combining marks 0, the rest 1.
    const cells = (line: string) =>
      [...line].reduce(
        (n, c) =>
          n + (/[\u3000-\u9fff\uff01-\uff60]|\p{Emoji_Presentation}/u.test(c) ? 2 : /\p{M}/u.test(c) ? 0 : 1),
        0,
      );
    const out = renderPlanErrors(doc(records(2, '接続がタイムアウトしました 🚀 cafe\u0301')), 'rich', plain);
    const lines = out.trimEnd().split('\n');
    expect(lines.some((l) => l.includes('接続'))).toBe(true);
    expect(new Set(lines.map(cells)).size).toBe(1);
  });

  it('escapes terminal controls that came in with an error message', () => {
    const out = renderPlanErrors(doc(records(1, 'bad \u001b]0;pwned\u0007 title')), 'rich', plain);
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u0007');
  });
});

describe('recourse: the recovery block of a reported plan error', () => {
  it('[CLI-09][CLI-10][CLI-11] Error [category], Phase, Retry n/m, suggestions, then the automatic-retry line', () => {
    const [first] = records(1, 'Connection timed out after 30s', null);
    expect(renderPlanErrorBlock(first!, planDecisionOf({ plan_id: 'P1', records: [first!] }), plain)).toBe(
      [
        'Error [transient]: Connection timed out after 30s',
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

  it('[CLI-11] says why automatic retry is not available', () => {
    const four = records(4);
    const block = renderPlanErrorBlock(four[3]!, planDecisionOf({ plan_id: 'P1', records: four }), plain);
    expect(block).toContain('  Retry: 3/3\n');
    expect(block.trimEnd().split('\n').at(-1)).toBe(
      '  ✗ Automatic retry not available (retries exhausted after 3 of 3 attempts).',
    );
  });
});

describe('when to colour', () => {
  it('colours a terminal only, and never when NO_COLOR is set (an empty NO_COLOR does not count)', () => {
    expect(styleFor({ isTTY: true }, {})).toEqual({ color: true });
    expect(styleFor({ isTTY: true }, { NO_COLOR: '1' })).toEqual({ color: false });
    expect(styleFor({ isTTY: true }, { NO_COLOR: '' })).toEqual({ color: true });
    expect(styleFor({ isTTY: false }, {})).toEqual({ color: false });
    expect(styleFor({}, {})).toEqual({ color: false });
  });
});
