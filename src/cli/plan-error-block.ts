import type { PlanDecision, PlanErrorRecord, RecoveryHint } from '../core/index.js';
import { escapeControlCharacters } from '../core/text/escape-controls.js';
import { paint, type Style } from './plan-style.js';

/** Text from a record, made safe to print: controls and bidi marks escaped, so it cannot act on the terminal. */
export const safe = (text: string): string => escapeControlCharacters(text);

/** `→ message` then `$ command` (none for `manual`), indented by `indent` spaces. */
export function hintLines(hints: readonly RecoveryHint[], indent: number, style: Style): string[] {
  const pad = ' '.repeat(indent);
  return hints.flatMap((h) => [
    `${pad}→ ${safe(h.message)}`,
    ...(h.cli_command === null ? [] : [`${pad}  ${paint(style, 'dim', '$')} ${safe(h.cli_command)}`]),
  ]);
}

/** `✓ Automatic retry available.` or `✗ Automatic retry not available (<reason>).` (CLI-11 and its decision). */
export function automaticRetryLine(decision: PlanDecision, style: Style): string {
  return decision.should_retry
    ? paint(style, 'green', '✓ Automatic retry available.')
    : paint(
        style,
        'red',
        `✗ Automatic retry not available (${safe(decision.reason ?? 'no error recorded')}).`,
      );
}

/**
 * The recovery block a command prints when it reports a plan error (seed 004, "CLI Output"; CLI-09 to CLI-11):
 *
 * ```
 * Error [transient]: Connection timed out after 30s
 *   Phase: execute
 *   Retry: 0/3
 *   Recovery suggestions:
 *     → Retry the operation — the failure was transient.
 *       $ recourse plan retry 01HXYZ...
 *   ✓ Automatic retry available.
 * ```
 */
export function renderPlanErrorBlock(record: PlanErrorRecord, decision: PlanDecision, style: Style): string {
  const lines = [
    `${paint(style, 'red', `Error [${safe(record.category)}]`)}: ${safe(record.message)}`,
    `  Phase: ${safe(record.phase)}`,
    `  Retry: ${safe(`${record.retry_count}/${record.max_retries}`)}`,
    '  Recovery suggestions:',
    ...hintLines(record.hints, 4, style),
    `  ${automaticRetryLine(decision, style)}`,
  ];
  return `${lines.join('\n')}\n`;
}
