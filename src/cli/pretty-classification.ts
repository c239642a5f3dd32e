import type { Classification } from '../core/index.js';

export interface Tally {
  total: number;
  invalid: number;
  byClass: Map<string, number>;
}

type LineResult = { readonly error: { readonly path: string; readonly message: string } } | Classification;

/** One human line per envelope: line number, class, code, confidence, rule, timing and the safe excerpt. */
export function renderPretty(line: number, result: LineResult): string {
  const n = String(line).padStart(4);
  if ('error' in result)
    return `${n}  invalid       ${result.error.path || '(line)'}: ${result.error.message}\n`;
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
  return (
    `${n}  ${what.padEnd(28)} ${code.padEnd(24)} ${result.confidence.padEnd(6)} ${result.classifier_rule ?? '-'}` +
    `${timing ? `  [${timing}]` : ''}\n      ${JSON.stringify(excerpt)}\n`
  );
}

export function renderSummary(tally: Tally): string {
  const parts = [...tally.byClass.entries()].sort().map(([cls, count]) => `${count} ${cls}`);
  if (tally.invalid > 0) parts.push(`${tally.invalid} invalid`);
  return `\n${tally.total} envelopes: ${parts.join(', ') || 'none'}\n`;
}
