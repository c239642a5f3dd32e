import { manualActions, parseIsoDateTime, snapshotOf } from '../../core/index.js';
import { attemptDelay } from '../attempt-delay.js';
import { documentOf, type ServerContext } from '../context.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import { HttpError } from '../http-errors.js';
import { onPathRoute, outcomeReply, renamedIssues } from '../outcome-reply.js';
import { listRoutesQuery, purgeRoutesBody, routeActionBody, startRouteBody } from '../schemas.js';
import type { z } from 'zod';

/** Routes: start, read, list, history, and the manual actions of a person (operator). */
export function routeEndpoints(context: ServerContext): Endpoint[] {
  const engine = context.recourse.engine;
  const notFound = (id: string | undefined) =>
    new HttpError(404, 'not_found', `no route ${JSON.stringify(id)}`);
  return [
    endpoint<z.infer<typeof startRouteBody>>({
      method: 'POST',
      url: '/v1/routes',
      access: 'orchestrate',
      tag: 'routes',
      summary: 'Start a route on its profile’s first candidate and dispatch the initial attempt',
      body: startRouteBody,
      responses: { 201: 'the route', 404: 'no such profile', 409: '`route_exists`', 422: 'invalid fields' },
      async handler({ body }) {
        const routeId = body.route_id ?? body.session_id;
        const route = await renamedIssues(
          () =>
            engine.startRoute({
              profileId: body.profile_id,
              ...(routeId === undefined ? {} : { routeId }),
              ...(body.caller === undefined ? {} : { caller: body.caller }),
              ...(body.payload === undefined ? {} : { payload: body.payload }),
            }),
          // The route id came from `session_id` when no `route_id` was given.
          body.route_id === undefined ? { '/route_id': '/session_id' } : {},
        );
        return { status: 201, body: documentOf(context, snapshotOf(route)) };
      },
    }),
    endpoint<z.infer<typeof purgeRoutesBody>>({
      method: 'POST',
      url: '/v1/routes/purge',
      access: 'admin',
      tag: 'routes',
      summary:
        'Delete routes that wait for nothing (needing action with no attempt running, or active after a turn that answered), with their history, when they last changed before `finished_before`; a task session’s route stays while its session does. At most `limit` (default 1,000) per call: call again while `purged` equals it',
      body: purgeRoutesBody,
      responses: { 200: '`{purged, limit}`', 422: 'invalid fields' },
      async handler({ body }) {
        const limit = body.limit ?? 1000;
        const purged = await engine.purgeRoutes({ beforeMs: parseIsoDateTime(body.finished_before)!, limit });
        return { status: 200, body: { purged, limit } };
      },
    }),
    endpoint<undefined, z.infer<typeof listRoutesQuery>>({
      method: 'GET',
      url: '/v1/routes',
      access: 'read',
      tag: 'routes',
      summary: 'Routes by state and profile, in id order, a page at a time (`next_cursor` continues)',
      query: listRoutesQuery,
      responses: { 200: '`{routes, next_cursor}`' },
      async handler({ query }) {
        const page = await renamedIssues(
          () =>
            engine.listRoutes({
              ...(query.state === undefined ? {} : { state: query.state }),
              ...(query.profile_id === undefined ? {} : { profileId: query.profile_id }),
              ...(query.cursor === undefined ? {} : { after: query.cursor }),
              ...(query.limit === undefined ? {} : { limit: query.limit }),
            }),
          { '/after': '/cursor' },
        );
        return {
          status: 200,
          body: { routes: page.routes.map((r) => documentOf(context, r)), next_cursor: page.next },
        };
      },
    }),
    endpoint({
      method: 'GET',
      url: '/v1/routes/:id',
      access: 'read',
      tag: 'routes',
      summary: 'A route as it is now (API-03)',
      responses: { 200: 'the route', 404: 'no such route' },
      async handler({ params }) {
        const route = await engine.route(params.id!);
        if (route === null) throw notFound(params.id);
        return { status: 200, body: documentOf(context, route) };
      },
    }),
    endpoint({
      method: 'GET',
      url: '/v1/routes/:id/attempts',
      access: 'read',
      tag: 'routes',
      summary:
        'The route’s append-only attempt history, with each decision’s policy snapshot and its delay (`delay_seconds`, `delay_source`: policy, retry_after, reset_at or null)',
      responses: { 200: '`{attempts}`', 404: 'no such route' },
      async handler({ params }) {
        const route = await engine.route(params.id!);
        if (route === null) throw notFound(params.id);
        const attempts = await context.recourse.store.listAttempts(params.id!);
        return {
          status: 200,
          body: {
            attempts: attempts.map((a) => ({
              seq: a.seq,
              candidate: a.candidate,
              generation: a.generation,
              code: a.code,
              class: a.failureClass,
              catalogue_version: a.catalogueVersion,
              classifier_rule: a.rule,
              policy: a.policySnapshot,
              decision: a.decision,
              retry_ordinal: a.retryOrdinal,
              deadline_at: a.deadlineMs === null ? null : new Date(a.deadlineMs).toISOString(),
              ...attemptDelay(a, route.lastFailure),
              pending_outcome: a.pendingOutcome,
              safe_excerpt: a.safeExcerpt,
              note: a.note,
              at: new Date(a.atMs).toISOString(),
            })),
          },
        };
      },
    }),
    endpoint<z.infer<typeof routeActionBody>>({
      method: 'POST',
      url: '/v1/routes/:id/actions',
      access: 'operate',
      tag: 'routes',
      summary:
        'Retry now, skip now, cancel or stop, fenced by the generation (and the state) the person saw; answers with the authoritative snapshot',
      body: routeActionBody,
      // A refused body of a known action counts as `invalid` (a stale client sending a bad generation, say).
      onInvalidBody(raw) {
        const action = (raw as { action?: unknown } | null)?.action;
        if ((manualActions as readonly unknown[]).includes(action)) {
          context.observeAction(action as (typeof manualActions)[number], 'invalid');
        }
      },
      responses: {
        200: '`{result: changed|unchanged, route}` (a repeated cancel or stop is `unchanged`)',
        404: 'no such route',
        409: 'refused (`stale_generation`, `stale_state`, `not_allowed`): `{error, route}`',
        422: 'invalid fields',
      },
      async handler({ params, body }) {
        try {
          const outcome = await onPathRoute(params.id!, () =>
            engine.act({
              routeId: params.id!,
              action: body.action,
              expectedGeneration: body.expected_generation,
              ...(body.expected_state === undefined ? {} : { expectedState: body.expected_state }),
            }),
          );
          context.observeAction(
            body.action,
            outcome.outcome === 'changed'
              ? 'applied'
              : outcome.outcome === 'refused'
                ? 'refused'
                : 'unchanged',
          );
          return outcomeReply(context, outcome);
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          context.observeAction(
            body.action,
            code === 'not_found' ? 'not_found' : code === 'invalid_input' ? 'invalid' : 'error',
          );
          throw error;
        }
      },
    }),
  ];
}
