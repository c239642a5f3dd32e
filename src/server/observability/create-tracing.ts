import { SpanStatusCode, ROOT_CONTEXT, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { Classification, DispatchIntent, Route } from '../../core/index.js';
import type { Engine, EngineEvent } from '../../engine/index.js';

export interface TracingOptions {
  readonly recourse: { readonly engine: Pick<Engine, 'subscribe'> };
  /** The tracer's version (the package version). */
  readonly version: string;
}

export interface Tracing {
  /** Stops tracing the engine's events and ends the attempt spans still open (`recourse.attempt.outcome=unfinished`). */
  close(): void;
}

/** How an attempt span ends; `error.type` is the semantic code of a failure, when there is one. */
interface AttemptEnd {
  readonly outcome: 'succeeded' | 'failed' | 'ambiguous' | 'superseded';
  readonly errorType?: string;
}

interface OpenAttempt {
  readonly intentId: string;
  readonly span: Span;
}

/**
 * Spans through `@opentelemetry/api`: one per attempt, from its dispatch (or the prompt the caller announced) to
 * its outcome, and one per decision, a child of the attempt it answers. Spans go to whatever tracer provider the
 * host registered; with none, the API's no-op tracer makes this free. Times are the engine's clock (epoch ms).
 * Route and attempt ids are span attributes (a trace is per request, unlike a metric label); the caller's payload
 * and the evidence text never are.
 */
export function createTracing(options: TracingOptions): Tracing {
  const tracer = trace.getTracer('recourse', options.version);
  // One running attempt per route at most (a route has one current dispatch).
  const attempts = new Map<string, OpenAttempt>();

  const endAttempt = (routeId: string, end: AttemptEnd, atMs: number): void => {
    const open = attempts.get(routeId);
    if (open === undefined) return;
    attempts.delete(routeId);
    open.span.setAttribute('recourse.attempt.outcome', end.outcome);
    if (end.errorType !== undefined) {
      open.span.setAttribute('error.type', end.errorType);
      open.span.setStatus({ code: SpanStatusCode.ERROR, message: end.errorType });
    }
    open.span.end(atMs);
  };

  const startAttempt = (routeId: string, intent: DispatchIntent, atMs: number): void => {
    // Normally ended by the transition before; a span still open here was replaced without an answer.
    endAttempt(routeId, { outcome: 'superseded' }, atMs);
    const span = tracer.startSpan(
      'recourse.attempt',
      {
        startTime: atMs,
        attributes: {
          'recourse.route.id': routeId,
          'recourse.attempt.id': intent.id,
          'recourse.attempt.kind': intent.kind,
          'recourse.route.generation': intent.generation,
          'recourse.candidate': intent.candidate,
        },
      },
      ROOT_CONTEXT,
    );
    attempts.set(routeId, { intentId: intent.id, span });
  };

  /** A decision is an instant of the engine's clock: its span starts and ends there. */
  const decisionSpan = (routeId: string, atMs: number, attributes: Attributes, errorType: string | null) => {
    const open = attempts.get(routeId);
    const parent = open === undefined ? ROOT_CONTEXT : trace.setSpan(ROOT_CONTEXT, open.span);
    const span = tracer.startSpan(
      'recourse.decision',
      { startTime: atMs, attributes: { 'recourse.route.id': routeId, ...attributes } },
      parent,
    );
    if (errorType !== null) {
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
    }
    span.end(atMs);
  };

  const onEvent = (event: EngineEvent): void => {
    switch (event.type) {
      case 'dispatch':
        startAttempt(event.intent.routeId, event.intent, event.atMs);
        return;
      case 'prompt':
        startAttempt(event.route.id, event.intent, event.atMs);
        return;
      case 'transition': {
        const route = event.route;
        const c = event.classification;
        decisionSpan(
          route.id,
          event.atMs,
          {
            'recourse.decision': event.decision,
            'recourse.route.state': route.state,
            ...(event.from === null ? {} : { 'recourse.route.previous_state': event.from }),
            ...(c === null ? {} : { 'recourse.failure.class': c.class }),
          },
          c === null ? null : errorTypeOf(c),
        );
        const open = attempts.get(route.id);
        const end = open === undefined ? null : attemptEnd(route, event.decision, c, open.intentId);
        if (end !== null) endAttempt(route.id, end, event.atMs);
        // A prompt that left `action_required` is told as a transition, not as a prompt event.
        if (event.decision === 'prompt' && route.dispatch !== null) {
          const d = route.dispatch;
          startAttempt(
            route.id,
            {
              ...d,
              id: d.intentId,
              routeId: route.id,
              generation: route.generation,
              createdAtMs: event.atMs,
            },
            event.atMs,
          );
        }
        return;
      }
      case 'dispatch_acknowledged':
        attempts.get(event.route.id)?.span.addEvent('acknowledged', event.atMs);
        decisionSpan(event.route.id, event.atMs, { 'recourse.decision': 'dispatch_acknowledged' }, null);
        return;
      case 'refused':
        decisionSpan(
          event.routeId,
          event.atMs,
          { 'recourse.decision': 'refused', 'recourse.refusal.reason': event.reason },
          null,
        );
        // The running attempt's failure after a stop: it answered, and schedules nothing.
        if (event.trigger === 'failure' && event.reason === 'route_stopped') {
          endAttempt(event.routeId, { outcome: 'failed' }, event.atMs);
        }
        return;
      default:
        return;
    }
  };
  const unsubscribe = options.recourse.engine.subscribe(onEvent);

  return {
    close() {
      unsubscribe();
      for (const open of attempts.values()) {
        open.span.setAttribute('recourse.attempt.outcome', 'unfinished');
        open.span.end();
      }
      attempts.clear();
    },
  };
}

/** The semantic code of a failure; `unclassified` when the classifier recognized none. */
function errorTypeOf(c: Classification): string {
  return c.code ?? 'unclassified';
}

/** Whether this transition ended the attempt `intentId`, and how; null while it runs on (a cancel, a stop). */
function attemptEnd(
  route: Route,
  decision: string,
  c: Classification | null,
  intentId: string,
): AttemptEnd | null {
  if (decision === 'ambiguous_dispatch') return { outcome: 'ambiguous', errorType: 'ambiguous_dispatch' };
  // A committed decision with a classification is the failure of the route's running attempt.
  if (c !== null) return { outcome: 'failed', errorType: errorTypeOf(c) };
  const d = route.dispatch;
  if (d === null || d.intentId !== intentId) return { outcome: 'superseded' };
  return d.finished ? { outcome: 'succeeded' } : null;
}
