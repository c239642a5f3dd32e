import { accessLevels, roleMayAccess } from '../auth.js';
import type { ServerContext } from '../context.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import { HttpError } from '../http-errors.js';

/** Liveness, readiness and who the caller is. */
export function metaEndpoints(context: ServerContext): Endpoint[] {
  return [
    endpoint({
      method: 'GET',
      url: '/healthz',
      access: 'public',
      tag: 'meta',
      summary: 'The process is up',
      responses: { 200: '`{status: ok}`' },
      handler: () => Promise.resolve({ status: 200, body: { status: 'ok' } }),
    }),
    endpoint({
      method: 'GET',
      url: '/readyz',
      access: 'public',
      tag: 'meta',
      summary: 'The store answers and its migrations are applied',
      responses: { 200: '`{status: ready}`', 503: 'not ready' },
      async handler() {
        try {
          await context.recourse.store.countRoutes();
          await context.recourse.events.lastId();
        } catch {
          throw new HttpError(503, 'not_ready', 'the store does not answer');
        }
        return { status: 200, body: { status: 'ready' } };
      },
    }),
    endpoint({
      method: 'GET',
      url: '/v1/me',
      access: 'read',
      tag: 'meta',
      summary:
        'The caller’s role, what it may do (`may`: read, operate, admin, orchestrate, adapter) and the server’s time',
      responses: { 200: '`{role, server_time, may}`', 401: 'no or unknown credential' },
      handler: ({ role }) =>
        Promise.resolve({
          status: 200,
          body: {
            role,
            server_time: new Date(context.recourse.clock.now()).toISOString(),
            // From the same table the server authorizes by, so a page offers exactly what the role may do.
            may: Object.fromEntries(accessLevels.map((a) => [a, role !== null && roleMayAccess(role, a)])),
          },
        }),
    }),
  ];
}
