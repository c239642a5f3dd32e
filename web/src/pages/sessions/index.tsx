import { Link, type Location } from '../../router.js';
import { SessionView } from './session-view.js';
import { SessionsList } from './sessions-list.js';

/** `/sessions`: the task sessions with their state in words. */
export function SessionsPage() {
  return <SessionsList />;
}

/** `/sessions/ID?task_id=TASK`: one session's transcript and retry card; the pair names it (NOT-43). */
export function SessionPage(props: { readonly id: string; readonly location: Location }) {
  const taskId = props.location.search.get('task_id') ?? '';
  if (taskId === '')
    return (
      <section>
        <h1>Session {props.id}</h1>
        <p className="banner error" role="alert">
          This address names no task. Open the session from the <Link href="/sessions">list of sessions</Link>
          .
        </p>
      </section>
    );
  // Keyed by the pair: another session starts from an empty transcript, never the previous one's.
  return <SessionView key={`${taskId}\u0000${props.id}`} sessionKey={{ taskId, sessionId: props.id }} />;
}
