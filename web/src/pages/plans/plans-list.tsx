import { useState } from 'react';
import { api, query } from '../../api.js';
import { absoluteTime } from '../../format.js';
import { useLiveEvents, useResource } from '../../live/hooks.js';
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
  const [more, setMore] = useState<readonly PlanRow[]>([]);
  const [next, setNext] = useState<string | null | undefined>(undefined);
  const [problem, setProblem] = useState<string | null>(null);
  useLiveEvents((event) => {
    if (planEventTypes.has(event.type)) first.reload();
  });
  const firstRows = first.data?.plans ?? [];
  const seen = new Set(firstRows.map((p) => p.id));
  const rows = [...firstRows, ...more.filter((p) => !seen.has(p.id))];
  const cursor = next === undefined ? (first.data?.next_cursor ?? null) : next;
  const loadMore = async () => {
    if (cursor === null) return;
    try {
      const { body } = await api<PlansAnswer>('GET', `/v1/plans${query({ limit: 50, cursor })}`);
      setMore((m) => [...m, ...body.plans]);
      setNext(body.next_cursor);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : 'Loading more plans failed.');
    }
  };
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
      {problem !== null && (
        <p className="banner error" role="alert">
          {problem}
        </p>
      )}
      {cursor !== null && rows.length > 0 && (
        <div className="actions">
          <button type="button" onClick={() => void loadMore()}>
            Show more plans
          </button>
        </div>
      )}
    </section>
  );
}
