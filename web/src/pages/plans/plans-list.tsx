import { api, query } from '../../api.js';
import { absoluteTime } from '../../format.js';
import { useLiveEvents, useResource } from '../../live/hooks.js';
import { useMorePages } from '../../live/use-more-pages.js';
import { Link, pathOf } from '../../router.js';
import { planEventTypes, planStateWords } from './plan-words.js';
import type { PlanRow } from './plan-types.js';

interface PlansAnswer {
  readonly plans: readonly PlanRow[];
  readonly next_cursor: string | null;
}

/** `/plans`: plans newest first, with their state in words and how many errors each recorded. */
export function PlansList() {
  const first = useResource<PlansAnswer>(
    'plans',
    async () => (await api<PlansAnswer>('GET', '/v1/plans?limit=50')).body,
  );
  useLiveEvents((event) => {
    if (planEventTypes.has(event.type)) first.reload();
  });
  const more = useMorePages<PlanRow>(
    first.data?.next_cursor ?? null,
    (plan) => plan.id,
    async (cursor) => {
      const { body } = await api<PlansAnswer>('GET', `/v1/plans${query({ limit: 50, cursor })}`);
      return { rows: body.plans, next: body.next_cursor };
    },
    'Loading more plans failed.',
  );
  const firstRows = first.data?.plans ?? [];
  const seen = new Set(firstRows.map((p) => p.id));
  const rows = [...firstRows, ...more.rows.filter((p) => !seen.has(p.id))];
  return (
    <section>
      <h1>Plans</h1>
      {first.error !== null && (
        <p className="banner error" role="alert">
          Plans could not be loaded: {first.error.message}
        </p>
      )}
      {first.data === null && first.error === null && <p>Loading plans…</p>}
      {first.data !== null && rows.length === 0 && <p>No plans yet.</p>}
      {rows.length > 0 && (
        <table className="stack-on-phone">
          <thead>
            <tr>
              <th scope="col">Plan</th>
              <th scope="col">What is happening</th>
              <th scope="col">Errors</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <td>
                  <Link href={pathOf('plans', row.id)}>{row.id}</Link>
                </td>
                <td>{planStateWords(row.state, row.phase)}</td>
                <td data-testid="plan-error-count">
                  {row.error_count} error{row.error_count === 1 ? '' : 's'}
                </td>
                <td>{row.last_error_at === null ? 'none' : absoluteTime(row.last_error_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {more.problem !== null && (
        <p className="banner error" role="alert">
          {more.problem}
        </p>
      )}
      {more.cursor !== null && rows.length > 0 && (
        <div className="actions">
          <button type="button" disabled={more.busy} onClick={() => void more.loadMore()}>
            {more.busy ? 'Loading more plans…' : 'Show more plans'}
          </button>
        </div>
      )}
    </section>
  );
}
