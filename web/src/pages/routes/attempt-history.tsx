import { failureInWords } from '../../../../src/core/notice/recovery-reason.js';
import { absoluteTime, durationWords } from '../../format.js';
import { decisionWords, delaySourceWords } from './route-words.js';
import type { AttemptDoc } from './route-types.js';

/**
 * The route's attempt history, newest first: when, on which candidate, what was decided and why (in words), and
 * for each wait how long and where its length came from (the provider's Retry-After, its reset time, or the
 * policy's schedule). Raw codes stay in the Details disclosure.
 */
export function AttemptHistory(props: { readonly attempts: readonly AttemptDoc[] }) {
  const rows = [...props.attempts].reverse();
  return (
    <section aria-labelledby="route-history-title">
      <h2 id="route-history-title">Attempt history</h2>
      {rows.length === 0 ? (
        <p className="muted">No failure or decision recorded yet.</p>
      ) : (
        <table className="stack-on-phone route-history">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Candidate</th>
              <th scope="col">What happened</th>
              <th scope="col">Wait</th>
              <th scope="col">Delay from</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((attempt) => (
              <tr key={attempt.seq} data-seq={attempt.seq}>
                <td>
                  <span className="cell-label">When: </span>
                  <time dateTime={attempt.at}>{absoluteTime(attempt.at)}</time>
                </td>
                <td>
                  <span className="cell-label">Candidate: </span>
                  {attempt.candidate}
                </td>
                <td>
                  <span className="cell-label">What happened: </span>
                  {decisionWords(attempt.decision)}
                  {attempt.retry_ordinal !== null && ` (retry ${attempt.retry_ordinal})`}
                  {attempt.class !== null &&
                    `: ${failureInWords({ code: attempt.code, class: attempt.class })}`}
                </td>
                <td>
                  <span className="cell-label">Wait: </span>
                  {waitWords(attempt)}
                </td>
                <td>
                  <span className="cell-label">Delay from: </span>
                  {delaySourceWords(attempt)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function waitWords(attempt: AttemptDoc): string {
  if (attempt.deadline_at === null) return 'none';
  const until = `until ${absoluteTime(attempt.deadline_at)}`;
  // An older service does not send the delay: it is the time from the decision to the deadline.
  const seconds =
    typeof attempt.delay_seconds === 'number'
      ? attempt.delay_seconds
      : Math.round((Date.parse(attempt.deadline_at) - Date.parse(attempt.at)) / 1000);
  return Number.isFinite(seconds) ? `${durationWords(seconds)}, ${until}` : until;
}
