import { useState } from 'react';
import { absoluteTime } from '../../format.js';
import { Disclosure } from '../../ui/disclosure.js';
import { summarizeHistory } from '../../../../src/core/plan/error-history.js';
import type { PlanErrorRecord } from '../../../../src/core/plan/error-record.js';
import { verdictReason } from '../../../../src/core/plan/plan-decision.js';

/** History shown at first, like `recourse errors` (its last 10); the rest on request. */
const shownAtFirst = 10;

/**
 * The error history, oldest first (seed 004, "Error History"): the total, the breakdown by category, and each
 * error with its time, phase, category, retry count and what was decided, in the core's words.
 */
export function PlanHistory(props: { readonly planId: string; readonly errors: readonly PlanErrorRecord[] }) {
  const [all, setAll] = useState(false);
  const summary = summarizeHistory({ plan_id: props.planId, records: props.errors });
  const breakdown = Object.entries(summary.by_category)
    .map(([category, count]) => `${category} ${count}`)
    .join(', ');
  const skipped = all ? 0 : Math.max(0, props.errors.length - shownAtFirst);
  return (
    <section aria-labelledby="plan-history-title">
      <h2 id="plan-history-title">Error history</h2>
      <p data-testid="plan-history-total">
        {summary.total_errors} error{summary.total_errors === 1 ? '' : 's'}
        {breakdown === '' ? '' : ` (${breakdown})`}
      </p>
      {skipped > 0 && (
        <p>
          {skipped} earlier error{skipped === 1 ? '' : 's'} not shown.{' '}
          <button type="button" onClick={() => setAll(true)}>
            Show all {props.errors.length}
          </button>
        </p>
      )}
      <ol className="plan-history" start={skipped + 1}>
        {props.errors.slice(skipped).map((record, i) => (
          <li key={`${record.occurred_at}-${skipped + i}`} className="card">
            <p>
              <strong>{record.category}</strong> in {record.phase} ·{' '}
              <time dateTime={record.occurred_at}>{absoluteTime(record.occurred_at)}</time>
            </p>
            <p>
              {record.exception_type === null ? '' : `${record.exception_type}: `}
              {record.message}
            </p>
            <p className="muted">
              Retry {record.retry_count}/{record.max_retries} ·{' '}
              {verdictReason(record) ?? 'retried automatically'}
            </p>
            {(record.actor !== null || record.tool_call !== null || record.stack_summary !== null) && (
              <Disclosure summary="Details">
                <dl className="facts">
                  {record.actor !== null && (
                    <>
                      <dt>Actor</dt>
                      <dd>{record.actor}</dd>
                    </>
                  )}
                  {record.tool_call !== null && (
                    <>
                      <dt>Tool call</dt>
                      <dd>{record.tool_call}</dd>
                    </>
                  )}
                  {record.stack_summary !== null && (
                    <>
                      <dt>Stack</dt>
                      <dd>
                        <pre>{record.stack_summary}</pre>
                      </dd>
                    </>
                  )}
                </dl>
              </Disclosure>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
