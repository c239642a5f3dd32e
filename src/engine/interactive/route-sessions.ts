import type { TaskSession } from '../../core/index.js';

/**
 * Which task session an engine event's route belongs to. A single engine knows every session it opened (and the
 * ones it found at start). A shared node also serves sessions another node opened: it looks the route up in the
 * database once, and events of a route that arrive while its lookup runs wait for that same lookup, so they are
 * still handled in the order the engine told them.
 */
export class RouteSessions {
  private readonly known = new Map<string, TaskSession>();
  private readonly looking = new Map<string, Promise<TaskSession | null>>();

  constructor(private readonly lookUp?: (routeId: string) => Promise<TaskSession | null>) {}

  remember(session: TaskSession): void {
    this.known.set(session.routeId, session);
  }

  forget(routeId: string): void {
    this.known.delete(routeId);
  }

  /**
   * The route's session: at once when known, a promise while a lookup runs (or when one starts: only when
   * `mayLookUp`, for routes known to be interactive), null when the route is none of ours.
   */
  resolve(routeId: string, mayLookUp: boolean): TaskSession | Promise<TaskSession | null> | null {
    const known = this.known.get(routeId);
    if (known !== undefined) return known;
    const pending = this.looking.get(routeId);
    if (pending !== undefined) return pending;
    if (this.lookUp === undefined || !mayLookUp) return null;
    const lookup = this.lookUp(routeId).then(
      (session) => {
        this.looking.delete(routeId);
        if (session !== null) this.known.set(routeId, session);
        return session;
      },
      (error: unknown) => {
        this.looking.delete(routeId);
        throw error;
      },
    );
    this.looking.set(routeId, lookup);
    return lookup;
  }
}
