import { createHmac } from 'node:crypto';
import type { Dispatcher, DispatchOptions } from '../engine/index.js';
import { badPortProblem } from '../support/fetch-bad-ports.js';
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
 * Why a webhook URL cannot be used, or null when it can: an http(s) URL without credentials (`fetch` refuses a URL
 * that carries a user or password, so every delivery would fail). The message shows the URL with its password as
 * `***`.
 */
export function webhookUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be a URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http or https URL';
  if (parsed.username !== '' || parsed.password !== '') {
    return `must not carry a user or password (got ${JSON.stringify(maskedUrl(parsed))}): sign deliveries with RECOURSE_WEBHOOK_SECRET and check X-Recourse-Signature instead`;
  }
  // fetch refuses these ports outright: every delivery would fail as "bad port", so say it at start-up.
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  const unreachable = badPortProblem('port', port);
  if (unreachable !== null) return `${unreachable}: no delivery could ever be made`;
  return null;
}

/** The URL as it may be shown: its password as `***`, its query left out (it may carry a key). */
export function maskedUrl(url: URL): string {
  const shown = new URL(url.href);
  if (shown.password !== '') shown.password = '***';
  shown.search = '';
  shown.hash = '';
  return shown.href;
}

/** Why a delivery failed, for the log: a status, a refused redirect, a timeout or a network error code; no body. */
export function deliveryFailure(error: unknown): string {
  if (error instanceof WebhookAnswer) return error.message;
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return 'no answer within 10 s';
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}

/** The webhook answered, but not with success. */
class WebhookAnswer extends Error {
  override readonly name = 'WebhookAnswer';
}

/**
 * Delivery by webhook: a POST of the intent as JSON, signed `X-Recourse-Signature: sha256=<hex HMAC-SHA256 of the
 * body>` with the shared secret. A non-2xx answer (a redirect too: it is never followed, so the signed intent and
 * its payload go nowhere else) or no answer within 10 s is a delivery that surely failed or may have: either way
 * the dispatch is uncertain.
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
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel();
    if (response.status >= 300 && response.status < 400) {
      throw new WebhookAnswer(`the webhook answered ${response.status}, a redirect (not followed)`);
    }
    if (!response.ok) throw new WebhookAnswer(`the webhook answered ${response.status}`);
  };
}
