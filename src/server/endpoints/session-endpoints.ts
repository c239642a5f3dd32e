import { replayEvidenceOf, snapshotOf, type SessionRef } from '../../core/index.js';
import { documentOf, type ServerContext } from '../context.js';
import { messageDocument } from '../documents.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import { HttpError } from '../http-errors.js';
import { checkedEnvelope } from '../checked-envelope.js';
import { outcomeReply } from '../outcome-reply.js';
import { decodeCursor, encodeCursor } from '../page-cursor.js';
import {
  openSessionBody,
  pageQuery,
  sessionCancelBody,
  sessionEvidenceBody,
  sessionQuery,
  sessionRecoveryBody,
  sessionRefBody,
  sessionSuccessBody,
} from '../schemas.js';
import type { z } from 'zod';

/**
 * Task sessions on a concrete profile, with their interactive retry notice (docs/notices.md). Every call names
 * the task-session pair; a pair that does not exist and a pair that is not the caller's get the same 404
 * (NOT-43).
 */
export function sessionEndpoints(context: ServerContext): Endpoint[] {
  const sessions = context.recourse.sessions;
  const choosing = new Map<string, Promise<unknown>>();
  const ref = (params: Readonly<Record<string, string>>, taskId: string): SessionRef => ({
    taskId,
    sessionId: params.id!,
  });
  /** A session with its route's state (the web UI's list and page): null route fields when the route is gone. */
  const sessionDocument = async (session: {
    taskId: string;
    sessionId: string;
    owner: string;
    routeId: string;
  }) => {
    const route = await context.recourse.engine.route(session.routeId);
    const doc = route === null ? null : documentOf(context, snapshotOf(route));
    return {
      task_id: session.taskId,
      session_id: session.sessionId,
      profile_id: doc?.profile_id ?? null,
      owner: session.owner,
      route_id: session.routeId,
      state: doc?.state ?? null,
      outcome: doc?.outcome ?? null,
      updated_at: doc?.updated_at ?? null,
      route: doc,
    };
  };
  return [
    endpoint<undefined, z.infer<typeof pageQuery>>({
      method: 'GET',
      url: '/v1/sessions',
      access: 'read',
      tag: 'sessions',
      summary:
        'Task sessions, newest first, with their route’s state, a page at a time (`next_cursor` continues)',
      query: pageQuery,
      responses: { 200: '`{sessions, next_cursor}`', 422: 'a bad cursor or limit' },
      async handler({ query }) {
        const limit = query.limit ?? 50;
        const before = decodeCursor(query.cursor);
        const rows = await context.recourse.taskSessions.page({
          limit: limit + 1,
          ...(before === undefined ? {} : { before: { createdAtMs: before[0], sessionId: before[1] } }),
        });
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        const sessions = await Promise.all(
          page.map(async (row) => {
            const listed: Partial<Awaited<ReturnType<typeof sessionDocument>>> = await sessionDocument(row);
            delete listed.route;
            return listed;
          }),
        );
        return {
          status: 200,
          body: {
            sessions,
            next_cursor:
              rows.length > limit && last !== undefined
                ? encodeCursor([last.createdAtMs, last.sessionId])
                : null,
          },
        };
      },
    }),
    endpoint<undefined, z.infer<typeof sessionQuery>>({
      method: 'GET',
      url: '/v1/sessions/:id',
      access: 'read',
      tag: 'sessions',
      summary: 'A task session (`?task_id=`): its owner, its route id and state, and the route document',
      query: sessionQuery,
      responses: { 200: '`{session, route}`', 404: 'no such task session' },
      async handler({ params, query }) {
        const { route, ...session } = await sessionDocument(await owned(context, ref(params, query.task_id)));
        return { status: 200, body: { session, route } };
      },
    }),
    endpoint<z.infer<typeof openSessionBody>>({
      method: 'POST',
      url: '/v1/sessions',
      access: 'orchestrate',
      tag: 'sessions',
      summary: 'Open a task session on a concrete profile and dispatch its first prompt',
      body: openSessionBody,
      responses: { 201: '`{session, route}`', 409: 'the session or its route exists', 422: 'invalid fields' },
      async handler({ body }) {
        if ((await context.recourse.taskSessions.read(body.session_id)) !== null) {
          throw new HttpError(
            409,
            'session_exists',
            `task session ${JSON.stringify(body.session_id)} exists`,
          );
        }
        const route = await sessions.open({
          taskId: body.task_id,
          sessionId: body.session_id,
          profileId: body.profile_id,
          owner: body.owner,
        });
        return {
          status: 201,
          body: {
            session: {
              task_id: body.task_id,
              session_id: body.session_id,
              owner: body.owner,
              route_id: route.id,
            },
            route: documentOf(context, snapshotOf(route)),
          },
        };
      },
    }),
    endpoint<z.infer<typeof sessionEvidenceBody>>({
      method: 'POST',
      url: '/v1/sessions/:id/evidence',
      access: 'adapter',
      tag: 'sessions',
      summary: 'A provider failure of the session’s current attempt',
      body: sessionEvidenceBody,
      responses: {
        200: '`{result, route}`',
        404: 'no such task session',
        409: 'refused or fenced',
        422: 'invalid fields',
      },
      async handler({ params, body }) {
        const session = await owned(context, ref(params, body.task_id));
        const envelope = checkedEnvelope(body.envelope);
        const route = await context.recourse.engine.route(session.routeId);
        const invocation = body.invocation_id ?? route?.dispatch?.intentId ?? '';
        return outcomeReply(
          context,
          await sessions.reportFailure(ref(params, body.task_id), {
            evidence: envelope,
            replay:
              body.replay === undefined || body.replay === null || route === null
                ? null
                : replayEvidenceOf(
                    { sessionId: route.id, executionId: invocation, promptGeneration: route.generation },
                    body.replay,
                  ),
            ...(body.prompt_open === undefined ? {} : { promptOpen: body.prompt_open }),
            ...(body.invocation_id === undefined ? {} : { invocationId: body.invocation_id }),
          }),
        );
      },
    }),
    endpoint<z.infer<typeof sessionSuccessBody>>({
      method: 'POST',
      url: '/v1/sessions/:id/success',
      access: 'adapter',
      tag: 'sessions',
      summary: 'The session’s current attempt succeeded',
      body: sessionSuccessBody,
      responses: { 200: '`{result, route}`', 404: 'no such task session', 409: 'refused or fenced' },
      async handler({ params, body }) {
        await owned(context, ref(params, body.task_id));
        return outcomeReply(
          context,
          await sessions.reportSuccess(ref(params, body.task_id), body.invocation_id),
        );
      },
    }),
    endpoint<z.infer<typeof sessionRefBody>>({
      method: 'POST',
      url: '/v1/sessions/:id/prompts',
      access: 'adapter',
      tag: 'sessions',
      summary: 'A new user prompt begins in the session',
      body: sessionRefBody,
      responses: { 200: '`{result, route}`', 404: 'no such task session', 409: 'refused' },
      async handler({ params, body }) {
        await owned(context, ref(params, body.task_id));
        return outcomeReply(context, await sessions.prompt(ref(params, body.task_id)));
      },
    }),
    endpoint<z.infer<typeof sessionRefBody>>({
      method: 'POST',
      url: '/v1/sessions/:id/stop',
      access: 'operate',
      tag: 'sessions',
      summary: 'Stop the session: a live retry loop ends and every retry notice is retired',
      body: sessionRefBody,
      responses: { 200: '`{result: stopped}`', 404: 'no such task session' },
      async handler({ params, body }) {
        await owned(context, ref(params, body.task_id));
        await sessions.stop(ref(params, body.task_id));
        return { status: 200, body: { result: 'stopped' } };
      },
    }),
    endpoint<z.infer<typeof sessionCancelBody>>({
      method: 'POST',
      url: '/v1/sessions/:id/retry/cancel',
      access: 'operate',
      tag: 'sessions',
      summary:
        'Cancel the session’s retry for its owner: notices retired, a live loop ended, the Resume / Start fresh message written once',
      body: sessionCancelBody,
      responses: {
        200: '`{result: cancelled, active}`',
        404: 'not found: the same answer for a foreign and an unknown task-session pair (NOT-43)',
      },
      async handler({ params, body }) {
        const result = await sessions.cancel(body.owner, ref(params, body.task_id));
        if (result.outcome === 'refused') throw sessionNotFound();
        return { status: 200, body: { result: 'cancelled', active: result.active } };
      },
    }),
    endpoint<z.infer<typeof sessionRecoveryBody>>({
      method: 'POST',
      url: '/v1/sessions/:id/recovery',
      access: 'operate',
      tag: 'sessions',
      summary:
        'The person’s choice on the recovery message: `resume` dispatches the cached prompt to the same provider session, `start_fresh` to a new one (CUR-33, NOT-41); the message is answered once',
      body: sessionRecoveryBody,
      responses: {
        200: '`{result: changed, choice, route}`: the attempt is dispatched with `continuation`',
        404: 'no such task session, or no such recovery message in it',
        409: 'the route no longer needs the choice (`not_allowed`, `stale_generation`), with `route`',
      },
      async handler({ params, body }) {
        const session = await owned(context, ref(params, body.task_id));
        // One choice at a time per session: the second finds the message answered (404), and no choice can
        // overwrite another's continuation before its dispatch has claimed it.
        return oneAtATime(choosing, session.routeId, async () => {
          const messages = await context.recourse.transcript.list(ref(params, body.task_id));
          const message = messages.find((m) => m.id === body.message_id && m.metadata.recovery === 'manual');
          if (message === undefined) {
            throw new HttpError(404, 'not_found', 'no such recovery message in this task session');
          }
          const route = await context.recourse.engine.route(session.routeId);
          if (route === null) throw sessionNotFound();
          // Armed before the action: its dispatch may go out before the action's answer comes back.
          context.continuations.arm(route.id, body.choice);
          const outcome = await context.recourse.engine.act({
            routeId: route.id,
            action: 'retry_now',
            expectedGeneration: route.generation,
            expectedState: 'action_required',
          });
          if (outcome.outcome !== 'changed') {
            context.continuations.disarm(route.id);
            return outcomeReply(context, outcome);
          }
          // Answered once: the choice is made, the message goes (viewers see it deleted).
          await context.recourse.transcript.delete(message.id);
          const reply = outcomeReply(context, outcome);
          return { status: reply.status, body: { ...(reply.body as object), choice: body.choice } };
        });
      },
    }),
    endpoint<undefined, z.infer<typeof sessionQuery>>({
      method: 'DELETE',
      url: '/v1/sessions/:id',
      access: 'operate',
      tag: 'sessions',
      summary: 'Delete a task session (`?task_id=`): its retry and notices are retired first',
      query: sessionQuery,
      responses: { 204: 'deleted', 404: 'no such task session' },
      async handler({ params, query }) {
        await owned(context, ref(params, query.task_id));
        await sessions.deleteSession(ref(params, query.task_id));
        return { status: 204, body: null };
      },
    }),
    endpoint<undefined, z.infer<typeof sessionQuery>>({
      method: 'GET',
      url: '/v1/sessions/:id/messages',
      access: 'read',
      tag: 'sessions',
      summary: 'The session’s transcript messages (`?task_id=`), oldest first',
      query: sessionQuery,
      responses: { 200: '`{messages}`', 404: 'no such task session' },
      async handler({ params, query }) {
        await owned(context, ref(params, query.task_id));
        const messages = await context.recourse.transcript.list(ref(params, query.task_id));
        return { status: 200, body: { messages: messages.map(messageDocument) } };
      },
    }),
  ];
}

function sessionNotFound(): HttpError {
  return new HttpError(404, 'not_found', 'no such task session');
}

/** The session when the pair matches; the same 404 otherwise, whichever part is wrong. */
async function owned(context: ServerContext, ref: SessionRef) {
  const session = await context.recourse.taskSessions.read(ref.sessionId);
  if (session === null || session.taskId !== ref.taskId) throw sessionNotFound();
  return session;
}

/** Runs `work` after every earlier work of the same key has settled (a per-key queue). */
async function oneAtATime<T>(
  queues: Map<string, Promise<unknown>>,
  key: string,
  work: () => Promise<T>,
): Promise<T> {
  const mine = (queues.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
  queues.set(key, mine);
  try {
    return await mine;
  } finally {
    if (queues.get(key) === mine) queues.delete(key);
  }
}
