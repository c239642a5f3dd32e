import type { EngineEvent } from '../engine/index.js';
import { snapshotOf, type TranscriptEvent } from '../core/index.js';
import { intentDocument } from './ack-dispatcher.js';
import { circuitDocument, messageDocument } from './documents.js';
import type { EventHub } from './event-hub.js';
import type { ProfileCache } from './profile-cache.js';
import type { Continuations } from './continuations.js';
import { routeDocument } from './route-document.js';

/** What the engine tells its observers, as stream events (the seed's names where it has them). */
export function publishEngineEvent(
  hub: EventHub,
  profiles: ProfileCache,
  continuations: Continuations,
  event: EngineEvent,
): void {
  switch (event.type) {
    case 'transition':
      hub.publish({
        type: 'route.transition',
        data: {
          route: routeDocument(snapshotOf(event.route), profiles.get(event.route.profileId)),
          from: event.from,
          decision: event.decision,
          classification: event.classification,
        },
      });
      return;
    case 'dispatch':
      // The payload stays out of the stream (viewers read it): an adapter fetches it with the intent.
      hub.publish({
        type: 'route.dispatch',
        data: {
          intent: {
            ...intentDocument(event.intent, null, continuations.of(event.intent)),
            payload: undefined,
          },
        },
      });
      return;
    case 'circuit':
      hub.publish({ type: 'circuit.changed', data: { circuit: circuitDocument(event.circuit) } });
      return;
    case 'reconciled':
      hub.publish({
        type: 'recourse.reconciled',
        data: {
          rearmed: event.report.rearmed.length,
          stopped: event.report.stopped.length,
          orphaned: event.report.orphaned.length,
        },
      });
      return;
    case 'purged':
      // A purge may delete thousands: in pieces, so no one event is large.
      for (let at = 0; at < event.routeIds.length; at += purgedPerEvent) {
        hub.publish({
          type: 'route.purged',
          data: { route_ids: event.routeIds.slice(at, at + purgedPerEvent) },
        });
      }
      return;
    default:
      return;
  }
}

/** At most this many route ids in one `route.purged` event. */
const purgedPerEvent = 500;

/** Transcript changes, whole messages (the seed's `session.message.created|updated|deleted`). */
export function publishTranscriptEvent(hub: EventHub, event: TranscriptEvent): void {
  if (event.type === 'session.message.deleted') {
    hub.publish({
      type: event.type,
      data: { task_id: event.taskId, session_id: event.sessionId, message_id: event.messageId },
    });
  } else {
    hub.publish({ type: event.type, data: { message: messageDocument(event.message) } });
  }
}
