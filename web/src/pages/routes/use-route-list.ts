import { useCallback } from 'react';
import { api, query } from '../../api.js';
import { useLiveEvents, useResource, type Resource } from '../../live/hooks.js';
import type { RouteDoc, TransitionEvent } from './route-types.js';

/** At most this many routes are read for the board (5 pages of the service's largest page). */
const pageSize = 1000;
const maxPages = 5;

export interface RouteList {
  readonly routes: readonly RouteDoc[];
  /** More routes exist than the board read: the counts cover the routes shown. */
  readonly truncated: boolean;
}

async function loadRoutes(): Promise<RouteList> {
  const routes: RouteDoc[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const { body }: { body: { routes: RouteDoc[]; next_cursor: string | null } } = await api(
      'GET',
      `/v1/routes${query({ limit: pageSize, cursor })}`,
    );
    routes.push(...body.routes);
    cursor = body.next_cursor;
    if (cursor === null) return { routes, truncated: false };
  }
  return { routes, truncated: true };
}

/**
 * Every route (up to 5,000), kept current by `route.transition` events: a route is replaced in place by its id
 * (a new one is added), and a copy older than the one shown (a lower revision) is ignored; `route.purged` drops
 * the routes it names. `onTransition` hears
 * each applied change (the board announces it).
 */
export function useRouteList(onTransition: (event: TransitionEvent) => void): Resource<RouteList> {
  const resource = useResource('routes', loadRoutes);
  const { set } = resource;
  const apply = useCallback(
    (event: TransitionEvent) => {
      set((current) => {
        if (current === null) return current;
        const at = current.routes.findIndex((r) => r.id === event.route.id);
        if (at === -1) return { ...current, routes: [...current.routes, event.route] };
        if (current.routes[at]!.revision > event.route.revision) return current;
        const routes = current.routes.slice();
        routes[at] = event.route;
        return { ...current, routes };
      });
    },
    [set],
  );
  useLiveEvents((event) => {
    if (event.type === 'route.purged') {
      // Deleted with their history: a row left on screen would lead to a route that is no longer there.
      const ids = event.data.route_ids;
      if (!Array.isArray(ids)) return;
      const gone = new Set(ids);
      set((current) =>
        current === null || !current.routes.some((r) => gone.has(r.id))
          ? current
          : { ...current, routes: current.routes.filter((r) => !gone.has(r.id)) },
      );
      return;
    }
    if (event.type !== 'route.transition') return;
    const data = event.data as unknown as TransitionEvent;
    if (typeof data.route?.id !== 'string') return;
    apply(data);
    onTransition(data);
  });
  return resource;
}
