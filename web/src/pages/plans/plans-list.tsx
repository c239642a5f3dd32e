import { api, query } from '../../api.js';
import { absoluteTime } from '../../format.js';
import { useLiveEvents, useResource } from '../../live/hooks.js';
import { useMorePages, withLaterPages } from '../../live/use-more-pages.js';
import { Link, pathOf } from '../../router.js';
import { ShowMore } from '../../ui/show-more.js';
import { planEventTypes, planStateWords } from './plan-words.js';
import type { PlanRow } from './plan-types.js';

interface PlansAnswer {
  readonly plans: readonly PlanRow[];
  readonly next_cursor: string | null;
}

const keyOf = (plan: PlanRow) => plan.id;

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
    keyOf,
    async (cursor) => {
      const { body } = await api<PlansAnswer>('GET', `/v1/plans${query({ limit: 50, cursor })}`);
      return { rows: body.plans, next: body.next_cursor };
    },
    'Loading more plans failed.',
  );
  const rows = withLaterPages(first.data?.plans ?? [], more.rows, keyOf);
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
      <ShowMore more={more} listed={rows.length > 0} noun="plans" />
    </section>
  );
}
