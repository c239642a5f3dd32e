import type { Classification } from '../core/index.js';
import { escapeControlCharacters, escapeControlsInJson } from '../core/text/escape-controls.js';

export interface Tally {
  total: number;
  invalid: number;
  byClass: Map<string, number>;
}

type LineResult = { readonly error: { readonly path: string; readonly message: string } } | Classification;

/**
 * One human line per envelope: line number, class, code, confidence, rule, timing, then the safe excerpt as a
 * JSON string. Whatever came from the input (an error's path and message, the excerpt) is printed with its
 * control and bidi characters escaped, so it cannot act on the terminal.
 */
export function renderPretty(line: number, result: LineResult): string {
  const n = String(line).padStart(4);
  if ('error' in result)
    return `${n}  invalid       ${escapeControlCharacters(`${result.error.path || '(line)'}: ${result.error.message}`)}\n`;
  const what = result.class === 'unclassified' ? `unclassified (${result.reason})` : result.class;
  const code = result.code ?? '-';
  const timing = [
    result.retry_after ? `retry after ${result.retry_after}` : '',
    result.reset_at ? `resets ${result.reset_at}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const excerpt =
    result.safe_excerpt.length > 100 ? `${result.safe_excerpt.slice(0, 100)}…` : result.safe_excerpt;
  const head =
    `${n}  ${what.padEnd(28)} ${code.padEnd(24)} ${result.confidence.padEnd(6)} ${result.classifier_rule ?? '-'}` +
    `${timing ? `  [${timing}]` : ''}`;
  return `${escapeControlCharacters(head)}\n      ${escapeControlsInJson(JSON.stringify(excerpt))}\n`;
}

export function renderSummary(tally: Tally): string {
  const parts = [...tally.byClass.entries()].sort().map(([cls, count]) => `${count} ${cls}`);
  if (tally.invalid > 0) parts.push(`${tally.invalid} invalid`);
  return `\n${tally.total} envelopes: ${parts.join(', ') || 'none'}\n`;
}
