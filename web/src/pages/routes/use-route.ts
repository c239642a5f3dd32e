import { useCallback } from 'react';
import { api, ApiError } from '../../api.js';
import { useLiveEvents, useResource } from '../../live/hooks.js';
import type { CandidateView } from './allowed-actions.js';
import type { AttemptDoc, RouteDoc, TransitionEvent } from './route-types.js';

export interface RouteData {
  readonly route: RouteDoc;
  readonly attempts: readonly AttemptDoc[];
  /** The route's profile candidates now (null when the profile cannot be read: an interactive route's). */
  readonly candidates: readonly CandidateView[] | null;
}

async function loadRoute(id: string): Promise<RouteData> {
  const path = `/v1/routes/${encodeURIComponent(id)}`;
  const [route, attempts] = await Promise.all([
    api<RouteDoc>('GET', path),
    api<{ attempts: AttemptDoc[] }>('GET', `${path}/attempts`),
  ]);
  let candidates: CandidateView[] | null = null;
  try {
    const profile = await api<{ candidates?: CandidateView[] }>(
      'GET',
      `/v1/profiles/${encodeURIComponent(route.body.profile_id)}`,
    );
    candidates = Array.isArray(profile.body.candidates) ? profile.body.candidates : null;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
  }
  return { route: route.body, attempts: attempts.body.attempts, candidates };
}

/**
 * One route with its attempt history and its profile's candidates, kept current by `route.transition` events for
 * it (a newer revision replaces the route and the history is read again); a `route.purged` naming it drops what is
 * shown and reads it again (not found). `onTransition` hears each one.
 */
export function useRoute(id: string, onTransition: (event: TransitionEvent) => void) {
  const resource = useResource(`route:${id}`, () => loadRoute(id));
  const { set, reload } = resource;
  /** Shows a newer copy of the route (an event, an action's reply, a 409's snapshot) and re-reads the history. */
  const showRoute = useCallback(
    (route: RouteDoc) => {
      set((current) =>
        current === null || current.route.revision > route.revision ? current : { ...current, route },
      );
      const path = `/v1/routes/${encodeURIComponent(route.id)}/attempts`;
      api<{ attempts: AttemptDoc[] }>('GET', path).then(
        ({ body }) =>
          // Attempts are append-only: of two replies that cross, the longer history is the newer one.
          set((current) =>
            current === null || current.attempts.length > body.attempts.length
              ? current
              : { ...current, attempts: body.attempts },
          ),
        () => undefined, // the history stays as it was; the next event or reload reads it again
      );
    },
    [set],
  );
  useLiveEvents((event) => {
    if (event.type === 'route.purged') {
      // Deleted with its history: the page must not go on offering actions on it. Read again, it is not found.
      const ids = event.data.route_ids;
      if (!Array.isArray(ids) || !ids.includes(id)) return;
      set(() => null);
      reload();
      return;
    }
    if (event.type !== 'route.transition') return;
    const data = event.data as unknown as TransitionEvent;
    if (data.route?.id !== id) return;
    showRoute(data.route);
    onTransition(data);
  });
  return { ...resource, showRoute };
}
