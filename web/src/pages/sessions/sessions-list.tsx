import { api, query } from '../../api.js';
import { absoluteTime } from '../../format.js';
import { useLiveEvents, useResource } from '../../live/hooks.js';
import { useMorePages, withLaterPages } from '../../live/use-more-pages.js';
import { Link, pathOf } from '../../router.js';
import { ShowMore } from '../../ui/show-more.js';
import { sessionStateWords } from './session-words.js';
import type { SessionRow } from './session-types.js';

interface SessionsPage {
  readonly sessions: readonly SessionRow[];
  readonly next_cursor: string | null;
}

/** Where a session's page is: its id in the path, its task in the query (the pair names it, NOT-43). */
export function sessionHref(row: { readonly task_id: string; readonly session_id: string }): string {
  return `${pathOf('sessions', row.session_id)}${query({ task_id: row.task_id })}`;
}

const keyOf = (row: SessionRow) => `${row.task_id}\u0000${row.session_id}`;

/** `/sessions`: task sessions, newest first, each with its route's state in words; "Show more" pages on. */
export function SessionsList() {
  const first = useResource<SessionsPage>(
    'sessions',
    async () => (await api<SessionsPage>('GET', '/v1/sessions?limit=50')).body,
  );
  // A route's move changes a session's state words: reload the first page (quiet: the list stays meanwhile).
  useLiveEvents((event) => {
    if (event.type === 'route.transition') first.reload();
  });
  const more = useMorePages<SessionRow>(
    first.data?.next_cursor ?? null,
    keyOf,
    async (cursor) => {
      const { body } = await api<SessionsPage>('GET', `/v1/sessions${query({ limit: 50, cursor })}`);
      return { rows: body.sessions, next: body.next_cursor };
    },
    'Loading more sessions failed.',
  );
  const rows = withLaterPages(first.data?.sessions ?? [], more.rows, keyOf);
  return (
    <section>
      <h1>Sessions</h1>
      {first.error !== null && (
        <p className="banner error" role="alert">
          Sessions could not be loaded: {first.error.message}
        </p>
      )}
      {first.data === null && first.error === null && <p>Loading sessions…</p>}
      {first.data !== null && rows.length === 0 && <p>No task sessions yet.</p>}
      {rows.length > 0 && (
        <table className="stack-on-phone sessions-table">
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">What is happening</th>
              <th scope="col">Task and owner</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={keyOf(row)}>
                <td>
                  <Link href={sessionHref(row)}>{row.session_id}</Link>
                </td>
                <td data-testid="session-state">{sessionStateWords(row.state, row.outcome)}</td>
                <td>
                  Task {row.task_id} · {row.owner}
                </td>
                <td>{absoluteTime(row.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ShowMore more={more} listed={rows.length > 0} noun="sessions" />
    </section>
  );
}
