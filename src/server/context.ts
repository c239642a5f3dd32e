import type { Recourse } from '../app/index.js';
import type { RouteSnapshot } from '../core/index.js';
import type { Continuations } from './continuations.js';
import type { EventHub } from './event-hub.js';
import type { ProfileCache } from './profile-cache.js';
import { routeDocument, type RouteDocument } from './route-document.js';
import type { RouteAction, RouteActionResult } from './observability/index.js';

/** What every endpoint works with: the open Recourse and the server's own parts. */
export interface ServerContext {
  readonly recourse: Recourse;
  readonly hub: EventHub;
  readonly profiles: ProfileCache;
  /** Resume / Start fresh choices, read when their dispatch goes out. */
  readonly continuations: Continuations;
  /** Counts a manual action's result (metrics); a no-op without them. */
  readonly observeAction: (action: RouteAction, result: RouteActionResult) => void;
}

export function documentOf(context: ServerContext, route: RouteSnapshot): RouteDocument {
  return routeDocument(route, context.profiles.get(route.profileId));
}
