import type { Engine } from '../engine/index.js';
import type { RouteSnapshot } from '../core/index.js';

/** Every route, a page at a time. */
export async function allRoutes(engine: Engine): Promise<RouteSnapshot[]> {
  const routes: RouteSnapshot[] = [];
  let after: string | undefined;
  do {
    const page = await engine.listRoutes({ limit: 500, ...(after === undefined ? {} : { after }) });
    routes.push(...page.routes);
    after = page.next ?? undefined;
  } while (after !== undefined);
  return routes;
}
