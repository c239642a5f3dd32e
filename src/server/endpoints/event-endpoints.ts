import type { LoggedEvent } from '../../core/index.js';
import type { ServerContext } from '../context.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import { z } from 'zod';

const eventsQuery = z.strictObject({ last_event_id: z.string().max(32).optional() });

/** A slow client is dropped past this much unsent data; it resumes from its last id when it reconnects. */
const maxBufferedBytes = 4 * 1024 * 1024;
const heartbeatMs = 15_000;
/** The longest delay `setTimeout` keeps (about 24.8 days); a cookie lasts 12 hours. */
const maxTimerMs = 2_147_483_647;
const pageSize = 1000;

/**
 * `GET /v1/events`: Server-Sent Events. Each event has an id from the durable log and `server_time` in its data;
 * `Last-Event-ID` (or `?last_event_id=`) resumes right after that id with no gap: the backlog is read from the log
 * while live events wait, then the live ones follow. A client whose id is older than the log keeps (or unknown)
 * gets one `reload` event and the stream ends: it must reload its state rather than miss events silently.
 */
export function eventEndpoints(context: ServerContext): Endpoint[] {
  return [
    endpoint<undefined, z.infer<typeof eventsQuery>>({
      method: 'GET',
      url: '/v1/events',
      access: 'read',
      tag: 'events',
      summary:
        'Server-Sent Events: route.transition, route.dispatch, route.purged, circuit.changed, session.message.created|updated|deleted, plan.changed, plan.error.recorded; resumable with Last-Event-ID',
      query: eventsQuery,
      streams: true,
      responses: {
        200: 'text/event-stream',
        503: '`too_many_streams`: the limit of open streams (in all or for the role) is reached; `Retry-After`',
      },
      async handler({ query, headers, reply, request, credentialExpiresAtMs }) {
        // An empty id names no event (EventSource sends none then): follow from now, whichever way it came.
        const given = (text: unknown) => (typeof text === 'string' && text !== '' ? text : undefined);
        const resumeText = given(headers['last-event-id']) ?? given(query.last_event_id);
        const raw = reply.raw;
        raw.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        // HEAD (which Fastify answers with this handler) has no body: the headers are the whole answer.
        if (request.method === 'HEAD') {
          raw.end();
          return null;
        }
        let closed = false;
        let lastSent = 0;
        let live: LoggedEvent[] | null = [];
        const write = (text: string) => {
          if (closed) return;
          raw.write(text);
          if (raw.writableLength > maxBufferedBytes) drop();
        };
        const send = (event: LoggedEvent) => {
          if (event.id <= lastSent) return;
          lastSent = event.id;
          write(`id: ${event.id}\nevent: ${event.type}\ndata: ${event.data}\n\n`);
        };
        const unsubscribe = context.hub.subscribe((event) => {
          if (live !== null) live.push(event);
          else send(event);
        });
        const beat = () =>
          write(
            `event: heartbeat\ndata: ${JSON.stringify({ server_time: new Date(context.recourse.clock.now()).toISOString() })}\n\n`,
          );
        const heartbeat = setInterval(beat, heartbeatMs);
        heartbeat.unref();
        // A stream opened with a session cookie ends when the cookie does: reconnecting then asks to sign in again.
        const expiry =
          credentialExpiresAtMs === null
            ? null
            : setTimeout(() => end(), Math.min(Math.max(0, credentialExpiresAtMs - Date.now()), maxTimerMs));
        expiry?.unref();
        const end = () => {
          if (closed) return;
          closed = true;
          clearInterval(heartbeat);
          if (expiry !== null) clearTimeout(expiry);
          unsubscribe();
          raw.end();
        };
        // A client this far behind may have stopped reading altogether: an ended stream would wait for it to read
        // to the end, holding its connection, its unsent megabytes and its place among the open streams for as long
        // as the client lives. The connection is cut instead; the client resumes from its last whole event.
        const drop = () => {
          end();
          raw.destroy();
        };
        request.raw.on('close', end);
        try {
          const log = context.recourse.events;
          const newest = await log.lastId();
          write(`retry: 2000\n: resumable from id ${newest}\n\n`);
          if (resumeText === undefined) {
            lastSent = newest;
          } else {
            const resume = /^\d{1,15}$/.test(resumeText) ? Number(resumeText) : Number.NaN;
            // Whether the events right after `id` are still kept: the log is pruned from its oldest end only.
            const keptAfter = async (id: number) => {
              const bounds = await log.bounds();
              return id >= (bounds === null ? newest + 1 : bounds.first) - 1;
            };
            const reload = (reason: 'too_far_behind' | 'unknown_event_id') => {
              write(
                `event: reload\ndata: ${JSON.stringify({
                  reason,
                  message:
                    'events since your last one are no longer kept: reload the state, then follow from now',
                  server_time: new Date(context.recourse.clock.now()).toISOString(),
                })}\n\n`,
              );
              end();
              return null;
            };
            if (!Number.isSafeInteger(resume) || resume > newest) return reload('unknown_event_id');
            if (!(await keptAfter(resume))) return reload('too_far_behind');
            lastSent = resume;
            for (;;) {
              const from = lastSent;
              const page = await log.after(from, pageSize);
              // A prune (any node's append) between the check above and this read may have taken the events right
              // after `from`: sent from here, the stream would skip them. Checked again after the read, it says so.
              if (page[0]?.id !== from + 1 && !(await keptAfter(from))) return reload('too_far_behind');
              for (const event of page) send(event);
              if (page.length < pageSize || closed) break;
            }
            // A replayed event carries the server_time of when it was written: the clock a page anchors its
            // countdowns to would be behind by the time it was away, until the next heartbeat. Say the time now.
            if (lastSent > resume) beat();
          }
          const waiting = live;
          live = null;
          for (const event of waiting) send(event);
        } catch (error) {
          // The headers are out (200): nothing else can tell the client. Ended, the stream is opened again by the
          // client (EventSource does so after `retry`) from its last id; left open, it would carry heartbeats and
          // never an event (live ones would pile up behind a replay that never finished).
          request.log.error(
            { err: { message: (error as Error).message } },
            'event stream could not read the log',
          );
          end();
        }
        return null;
      },
    }),
  ];
}
