import { classify, hasIdShape, snapshotOf, type RouteSnapshot } from '../../core/index.js';
import { documentOf, type ServerContext } from '../context.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import { HttpError, invalid } from '../http-errors.js';
import { checkedEnvelope } from '../checked-envelope.js';
import { onPathRoute, outcomeReply } from '../outcome-reply.js';
import { classifyBody, evidenceBody, promptBody, successBody } from '../schemas.js';
import type { z } from 'zod';

/**
 * What an agent adapter reports (the `adapter` role only, API-04): failures with their evidence envelope and
 * replay facts, successes, new prompts, dispatch acknowledgements, and the classifier itself. Everything
 * `recourse simulate` does to a route, an adapter does here.
 */
export function adapterEndpoints(context: ServerContext): Endpoint[] {
  const engine = context.recourse.engine;
  return [
    endpoint<z.infer<typeof evidenceBody>>({
      method: 'POST',
      url: '/v1/routes/:id/evidence',
      access: 'adapter',
      tag: 'adapters',
      summary:
        'A failure of the route’s attempt: classified, gated for replay safety, decided by the candidate’s policy, committed',
      body: evidenceBody,
      responses: {
        200: '`{result, decision, route, classification}`',
        404: 'no such route',
        409: 'refused (`stale_generation`, `stale_invocation`, `prompt_open`, ...): `{error, route}`',
        422: 'invalid fields (the envelope’s problems under `/envelope/...`)',
      },
      async handler({ params, body }) {
        const envelope = checkedEnvelope(body.envelope);
        return outcomeReply(
          context,
          await onPathRoute(params.id!, () =>
            engine.reportFailure({
              routeId: params.id!,
              generation: body.generation,
              evidence: envelope,
              progress: body.replay ?? null,
              ...(body.invocation_id === undefined ? {} : { invocationId: body.invocation_id }),
              ...(body.prompt_open === undefined ? {} : { promptOpen: body.prompt_open }),
            }),
          ),
        );
      },
    }),
    endpoint<z.infer<typeof successBody>>({
      method: 'POST',
      url: '/v1/routes/:id/success',
      access: 'adapter',
      tag: 'adapters',
      summary: 'The route’s attempt succeeded',
      body: successBody,
      responses: { 200: '`{result, route}`', 404: 'no such route', 409: 'refused', 422: 'invalid fields' },
      async handler({ params, body }) {
        return outcomeReply(
          context,
          await onPathRoute(params.id!, () =>
            engine.reportSuccess({
              routeId: params.id!,
              generation: body.generation,
              ...(body.invocation_id === undefined ? {} : { invocationId: body.invocation_id }),
            }),
          ),
        );
      },
    }),
    endpoint<z.infer<typeof promptBody>>({
      method: 'POST',
      url: '/v1/routes/:id/prompts',
      access: 'adapter',
      tag: 'adapters',
      summary:
        'A new user prompt begins (a new prompt generation): `route.dispatch.id` is the invocation id to report with',
      body: promptBody,
      responses: { 200: '`{result, route}`', 404: 'no such route', 409: 'refused', 422: 'invalid fields' },
      async handler({ params, body }) {
        return outcomeReply(
          context,
          await onPathRoute(params.id!, () =>
            engine.beginPrompt({
              routeId: params.id!,
              ...(body?.expected_generation === undefined
                ? {}
                : { expectedGeneration: body.expected_generation }),
            }),
          ),
        );
      },
    }),
    endpoint({
      method: 'POST',
      url: '/v1/routes/:id/dispatches/:dispatch_id/ack',
      access: 'adapter',
      tag: 'adapters',
      summary:
        'The orchestrator accepted a dispatched attempt (its delivery is proven), on any node: recorded once; an intent not acknowledged in time stops its route as ambiguous',
      responses: {
        200: '`{result: acknowledged|unchanged, route}`',
        404: 'no such route',
        409: '`stale_dispatch`: not this route’s waiting dispatch (timed out, superseded, or never sent)',
      },
      async handler({ params }) {
        const routeId = params.id!;
        const dispatchId = params.dispatch_id!;
        const before = await engine.route(routeId);
        if (before === null) throw new HttpError(404, 'not_found', `no route ${JSON.stringify(routeId)}`);
        const repeated = (route: RouteSnapshot) =>
          route.dispatch?.intentId === dispatchId && route.dispatch.acknowledged;
        // A repeat (sent twice, or to two nodes) is answered without a write: acknowledged is for good.
        if (repeated(before)) {
          return { status: 200, body: { result: 'unchanged', route: documentOf(context, before) } };
        }
        const outcome = hasIdShape(dispatchId)
          ? await onPathRoute(routeId, () => engine.acknowledgeDispatch({ routeId, intentId: dispatchId }))
          : null;
        const route = outcome === null ? before : snapshotOf(outcome.route);
        const document = documentOf(context, route);
        if (outcome?.outcome === 'changed')
          return { status: 200, body: { result: 'acknowledged', route: document } };
        // Refused after another node recorded the same acknowledgement first: the same answer as a repeat.
        if (repeated(route)) return { status: 200, body: { result: 'unchanged', route: document } };
        throw new HttpError(
          409,
          'stale_dispatch',
          `dispatch ${JSON.stringify(dispatchId)} is not waiting for an acknowledgement on this route`,
          { route: document },
        );
      },
    }),
    endpoint<z.infer<typeof classifyBody>>({
      method: 'POST',
      url: '/v1/classify',
      access: 'adapter',
      tag: 'adapters',
      summary: 'Classify one evidence envelope (what `recourse classify` prints for one line)',
      body: classifyBody,
      responses: { 200: 'the classification', 422: 'invalid fields (the envelope’s under `/envelope/...`)' },
      handler({ body }) {
        if ((body.invocation_id === undefined) !== (body.generation === undefined)) {
          throw invalid([{ path: '/generation', message: 'invocation_id and generation go together' }]);
        }
        const envelope = checkedEnvelope(body.envelope);
        const classification = classify(envelope, {
          now: context.recourse.clock.now(),
          ...(body.invocation_id === undefined
            ? {}
            : { current: { invocationId: body.invocation_id, promptGeneration: body.generation! } }),
        });
        return Promise.resolve({ status: 200, body: classification });
      },
    }),
  ];
}
