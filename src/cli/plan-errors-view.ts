import { errorDetailsOf, type PlanErrorRecord } from '../core/index.js';
import { escapeControlsInJson } from '../core/text/escape-controls.js';
import type { PlanErrorsDocument } from '../app/plan-json.js';
import { automaticRetryLine, hintLines, safe } from './plan-error-block.js';
import { paint, type Style } from './plan-style.js';

/** The output formats of `recourse errors` (CLI-02 to CLI-04); anything else is a usage error. */
export const planErrorFormats = ['rich', 'json', 'plain'] as const;
export type PlanErrorFormat = (typeof planErrorFormats)[number];

/** History lines shown in rich and plain output; JSON always has the whole history. */
const shownHistory = 10;

/**
 * `recourse errors PLAN_ID` (seed 004, "CLI Commands"): the "Plan Errors" panel (rich), a JSON document, or
 * `Key: value` lines in the panel's order (plain). With no error recorded, rich and plain print the (green)
 * confirmation `No errors recorded for plan <id>.`. Pure: colour only when `style` allows it.
 */
export function renderPlanErrors(doc: PlanErrorsDocument, format: PlanErrorFormat, style: Style): string {
  if (format === 'json') return `${escapeControlsInJson(JSON.stringify(jsonView(doc), null, 2))}\n`;
  const latest = doc.errors.at(-1);
  if (latest === undefined) {
    const none = `No errors recorded for plan ${safe(doc.plan.id)}.`;
    return `${format === 'rich' ? paint(style, 'green', none) : none}\n`;
  }
  return format === 'rich' ? richPanel(doc, latest, style) : plainLines(doc, latest);
}

/** The CLI-03 decision's document: the plan, its latest error's metadata, the history, and what to do now. */
function jsonView(doc: PlanErrorsDocument) {
  const latest = doc.errors.at(-1);
  return {
    plan_id: doc.plan.id,
    phase: doc.plan.phase,
    state: doc.plan.state,
    error:
      latest === undefined
        ? null
        : {
            ...errorDetailsOf(latest),
            message: latest.message,
            exception_type: latest.exception_type,
            occurred_at: latest.occurred_at,
          },
    history: doc.errors,
    summary: doc.summary,
    recovery: {
      hints: doc.decision.hints,
      automatic_retry: doc.decision.should_retry,
      reason: doc.decision.reason,
      message: doc.decision.message,
    },
  };
}

const cut = (text: string, max: number): string => {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
};

function errorLine(record: PlanErrorRecord, max: number): string {
  const type = record.exception_type === null ? '' : `${record.exception_type}: `;
  return `Error: ${safe(cut(`${type}${record.message}`, max))}`;
}

function historyLine(record: PlanErrorRecord, n: number): string {
  return `${n}. ${record.occurred_at} ${record.phase} ${record.category} ${record.retry_count}/${record.max_retries} ${record.verdict}: ${safe(cut(record.message, 60))}`;
}

function historyOf(doc: PlanErrorsDocument): string[] {
  const skipped = Math.max(0, doc.errors.length - shownHistory);
  const breakdown = Object.entries(doc.summary.by_category)
    .map(([category, count]) => `${category} ${count}`)
    .join(', ');
  return [
    `History: ${doc.summary.total_errors} error${doc.summary.total_errors === 1 ? '' : 's'} (${breakdown})`,
    ...(skipped > 0 ? [`  … ${skipped} earlier`] : []),
    ...doc.errors.slice(skipped).map((r, i) => `  ${historyLine(r, skipped + i + 1)}`),
  ];
}

/** East Asian wide and fullwidth ranges: a terminal gives each of these characters two cells. */
const wide =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]|\p{Emoji_Presentation}/u;
/** Combining marks and zero-width joiners, selectors: drawn on the cell before them. */
const zeroWidth = /[\p{M}\u200b-\u200d\u2060\ufeff]/u;

/** How many terminal cells `text` takes (the box is measured in cells, not characters, so it stays square). */
function cellsOf(text: string): number {
  let cells = 0;
  for (const c of text) cells += wide.test(c) ? 2 : zeroWidth.test(c) ? 0 : 1;
  return cells;
}

/** A row of the panel: its text, and the colour it is painted in after the box is measured. */
type Row = { readonly text: string; readonly paint?: (text: string) => string };

function richPanel(doc: PlanErrorsDocument, latest: PlanErrorRecord, style: Style): string {
  const retry = automaticRetryLine(doc.decision, { color: false });
  // Every field came from the server: escaped row by row (escaping is idempotent), before the box is measured.
  const fields: Row[] = [
    { text: `Plan: ${doc.plan.id}` },
    { text: `Phase: ${doc.plan.phase}` },
    { text: `State: ${doc.plan.state}` },
    { text: errorLine(latest, 100), paint: (t) => paint(style, 'red', t) },
    { text: '' },
    { text: `Error Category: ${latest.category}` },
    { text: `Error Phase: ${safe(latest.phase)}` },
    { text: `Retry Count: ${latest.retry_count}/${latest.max_retries}` },
    { text: `Retriable: ${latest.verdict === 'retry'}` },
    { text: retry, paint: (t) => paint(style, doc.decision.should_retry ? 'green' : 'red', t) },
    { text: '' },
    ...historyOf(doc).map((text) => ({ text })),
    { text: '' },
    { text: 'Recovery Suggestions:' },
    ...hintLines(latest.hints, 2, { color: false }).map((text) => ({ text })),
  ];
  const rows = fields.map((row) => ({ ...row, text: safe(row.text) }));
  const width = Math.max(52, ...rows.map((r) => cellsOf(r.text)));
  const title = ' Plan Errors ';
  const top = `╭─${title}${'─'.repeat(width + 1 - cellsOf(title))}╮`;
  const body = rows.map((r) => {
    const padded = `${r.text}${' '.repeat(width - cellsOf(r.text))}`;
    return `│ ${r.paint === undefined ? padded : r.paint(padded)} │`;
  });
  return `${[top, ...body, `╰${'─'.repeat(width + 2)}╯`].join('\n')}\n`;
}

function plainLines(doc: PlanErrorsDocument, latest: PlanErrorRecord): string {
  const retry = doc.decision.should_retry ? 'available' : `not available (${doc.decision.reason ?? 'none'})`;
  const skipped = Math.max(0, doc.errors.length - shownHistory);
  const lines = [
    `Plan: ${safe(doc.plan.id)}`,
    `Phase: ${doc.plan.phase}`,
    `State: ${doc.plan.state}`,
    errorLine(latest, 2048),
    `Error Category: ${latest.category}`,
    `Error Phase: ${safe(latest.phase)}`,
    `Retry Count: ${latest.retry_count}/${latest.max_retries}`,
    `Retriable: ${latest.verdict === 'retry'}`,
    `Automatic Retry: ${retry}`,
    `Total Errors: ${doc.summary.total_errors}`,
    ...doc.errors.slice(skipped).map((r, i) => `History: ${historyLine(r, skipped + i + 1)}`),
    ...latest.hints.flatMap((h) => [
      `Recovery Suggestion: ${safe(h.message)}`,
      ...(h.cli_command === null ? [] : [`Recovery Command: ${safe(h.cli_command)}`]),
    ]),
  ];
  // Every field came from the server: escaped line by line (escaping is idempotent).
  return `${lines.map(safe).join('\n')}\n`;
}
