import { createHmac } from 'node:crypto';
import type { Dispatcher, DispatchOptions } from '../engine/index.js';
import type { DispatchIntent, JsonValue } from '../core/index.js';

/** A dispatch intent as the orchestrator receives it (webhook body, `route.dispatch` event). */
export function intentDocument(
  intent: DispatchIntent,
  payload: JsonValue | null,
  continuation: string | null = null,
) {
  return {
    id: intent.id,
    route_id: intent.routeId,
    generation: intent.generation,
    candidate: intent.candidate,
    kind: intent.kind,
    created_at: new Date(intent.createdAtMs).toISOString(),
    payload,
    /** After a person's Resume / Start fresh: how to continue the provider session; null otherwise. */
    continuation,
    ack: `/v1/routes/${encodeURIComponent(intent.routeId)}/dispatches/${encodeURIComponent(intent.id)}/ack`,
  };
}

export interface AckDispatcherOptions {
  /** Hands the intent to the orchestrator (a webhook POST, an event); throws when delivery surely failed. */
  readonly deliver: (intent: DispatchIntent, payload: JsonValue | null) => Promise<void>;
  /** How long an intent waits for its acknowledgement before delivery counts as uncertain (30 s by default). */
  readonly ackTimeoutMs?: number;
}

interface Waiting {
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * The server's Dispatcher: delivers each intent to the orchestrator and waits for its acknowledgement, which the
 * orchestrator sends to `POST /v1/routes/{id}/dispatches/{dispatch_id}/ack` on any node: that node records it
 * (`Engine.acknowledgeDispatch`) and the engine that sent the intent aborts this wait. No acknowledgement within
 * the timeout rejects, and the engine's ambiguity rule applies: the route stops for a person, the intent is never
 * sent again.
 */
export class AckDispatcher implements Dispatcher {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly options: AckDispatcherOptions) {}

  async dispatch(
    intent: DispatchIntent,
    payload: JsonValue | null,
    options?: DispatchOptions,
  ): Promise<void> {
    const signal = options?.signal;
    const acknowledged = new Promise<void>((_, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(intent.id);
        reject(new Error(`dispatch ${intent.id} was not acknowledged in time`));
      }, this.options.ackTimeoutMs ?? 30_000);
      timer.unref();
      this.waiting.set(intent.id, { reject, timer });
    });
    // The acknowledgement was recorded (here or on another node): the wait is over, its outcome is not read.
    signal?.addEventListener('abort', () => this.settle(intent.id)?.reject(new Error('answered')), {
      once: true,
    });
    if (signal?.aborted === true) this.settle(intent.id)?.reject(new Error('answered'));
    // It may end while the delivery is under way: the caller reads it once delivered, so it is not unhandled.
    acknowledged.catch(() => undefined);
    try {
      // Answered before it was handed over (the orchestrator read the `route.dispatch` event and acknowledged on
      // some node): it is not delivered a second time.
      if (signal?.aborted !== true) await this.options.deliver(intent, payload);
    } catch (error) {
      this.settle(intent.id)?.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return acknowledged;
  }

  /** Ends every wait as uncertain (shutdown): the next start stops those routes rather than repeat them. */
  abandonAll(): void {
    for (const id of [...this.waiting.keys()]) {
      this.settle(id)?.reject(new Error('the server is shutting down'));
    }
  }

  private settle(intentId: string): Waiting | undefined {
    const entry = this.waiting.get(intentId);
    if (entry === undefined) return undefined;
    clearTimeout(entry.timer);
    this.waiting.delete(intentId);
    return entry;
  }
}

/**
 * Delivery by webhook: a POST of the intent as JSON, signed `X-Recourse-Signature: sha256=<hex HMAC-SHA256 of the
 * body>` with the shared secret. A non-2xx answer or no answer within 10 s is a delivery that surely failed or
 * may have: either way the dispatch is uncertain.
 */
export function webhookDelivery(
  url: string,
  secret: string,
  continuationOf: (intent: DispatchIntent) => string | null = () => null,
): (intent: DispatchIntent, payload: JsonValue | null) => Promise<void> {
  return async (intent, payload) => {
    const body = JSON.stringify({
      type: 'dispatch',
      intent: intentDocument(intent, payload, continuationOf(intent)),
    });
    const signature = createHmac('sha256', secret).update(body).digest('hex');
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-recourse-signature': `sha256=${signature}` },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`the webhook answered ${response.status}`);
  };
}
