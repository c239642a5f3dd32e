import { useAnnounce } from '../../ui/announcer.js';
import { Link, pathOf } from '../../router.js';
import { RouteDeadline } from './route-deadline.js';
import { groupOf, groupTitles, headline, routeGroups, whyWords, type RouteGroup } from './route-words.js';
import type { RouteDoc } from './route-types.js';
import { useRouteList } from './use-route-list.js';

/**
 * The landing page: every route grouped by state, most urgent first, each group counted, each route with one
 * plain headline (a wait is never "running"), why, and when its next attempt is due. Live: a transition replaces
 * the route in place and is announced once (the ticking countdowns are not).
 */
export function RoutesPage() {
  const announce = useAnnounce();
  const list = useRouteList((event) => {
    announce(`Route ${event.route.id}: ${headline(event.route)}`);
  });
  const routes = list.data?.routes ?? [];
  const groups = new Map<RouteGroup, RouteDoc[]>(routeGroups.map((g) => [g, []]));
  for (const route of routes) groups.get(groupOf(route))!.push(route);
  return (
    <section aria-labelledby="routes-title">
      <h1 id="routes-title">Routes</h1>
      {list.error !== null && (
        <div className="banner error" role="alert">
          The routes could not be loaded: {list.error.message}{' '}
          <button type="button" onClick={list.reload}>
            Try again
          </button>
        </div>
      )}
      {list.data === null && list.error === null && <p>Loading routes…</p>}
      {list.data !== null && (
        <>
          <ul className="route-counts" aria-label="Routes by state">
            {routeGroups.map((group) => (
              <li key={group} className={groups.get(group)!.length === 0 ? 'muted' : undefined}>
                {groupTitles[group]}: <strong>{groups.get(group)!.length}</strong>
              </li>
            ))}
          </ul>
          {list.data.truncated && (
            <p className="banner info">
              Showing the first {routes.length.toLocaleString()} routes; the counts cover these.
            </p>
          )}
          {routes.length === 0 && (
            <p className="banner info">
              No routes yet. A route appears here when an orchestrator or adapter starts one.
            </p>
          )}
          {routeGroups
            .filter((group) => groups.get(group)!.length > 0)
            .map((group) => (
              <RouteGroupSection key={group} group={group} routes={groups.get(group)!} />
            ))}
        </>
      )}
    </section>
  );
}

function RouteGroupSection(props: { readonly group: RouteGroup; readonly routes: readonly RouteDoc[] }) {
  const titleId = `group-${props.group}`;
  const sorted = [...props.routes].sort(byUrgency);
  return (
    <section aria-labelledby={titleId} className="route-group" data-group={props.group}>
      <h2 id={titleId}>
        {groupTitles[props.group]} <span className="route-count">({props.routes.length})</span>
      </h2>
      <ul className="route-list">
        {sorted.map((route) => (
          <RouteRow key={route.id} route={route} />
        ))}
      </ul>
    </section>
  );
}

function RouteRow(props: { readonly route: RouteDoc }) {
  const route = props.route;
  const why = whyWords(route);
  return (
    <li className="card route-row" data-route-id={route.id}>
      <p className="route-headline">
        <strong>{headline(route)}</strong>
      </p>
      {why !== null && <p className="route-why">{why}</p>}
      {route.deadline_at !== null && (
        <p className="route-when">
          <RouteDeadline deadlineAt={route.deadline_at} />
        </p>
      )}
      <p className="route-meta muted">
        <Link href={pathOf('routes', route.id)} className="route-link">
          <span className="visually-hidden">Open route </span>
          {route.id}
        </Link>{' '}
        · profile {route.profile_id} · on {route.candidate}
      </p>
    </li>
  );
}

/** The soonest deadline first; routes without one by their last change, newest first. */
function byUrgency(a: RouteDoc, b: RouteDoc): number {
  if (a.deadline_at !== null && b.deadline_at !== null)
    return Date.parse(a.deadline_at) - Date.parse(b.deadline_at);
  if (a.deadline_at !== null) return -1;
  if (b.deadline_at !== null) return 1;
  return Date.parse(b.updated_at) - Date.parse(a.updated_at);
}
