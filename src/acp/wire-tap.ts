import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';

/**
 * Sees every JSON-RPC message of a connection in wire order, before the SDK handles it. The SDK starts its
 * notification handlers asynchronously, so a `session/update` sent before the `session/prompt` response could
 * reach a handler after the response resolved the request; read here instead, in the order the agent wrote them,
 * the updates are queued before the response is delivered, which is what the prompt barrier relies on.
 */
export function tapStream(stream: Stream, onIncoming: (message: AnyMessage) => void): Stream {
  const tap = new TransformStream<AnyMessage, AnyMessage>({
    transform(message, controller) {
      try {
        onIncoming(message);
      } catch {
        // An observer must never break the transport.
      }
      controller.enqueue(message);
    },
  });
  return { writable: stream.writable, readable: stream.readable.pipeThrough(tap) };
}

/** The `session/update` params of a message, or null when it is anything else. */
export function sessionUpdateOf(
  message: AnyMessage,
): { readonly sessionId: string; readonly update: Readonly<Record<string, unknown>> } | null {
  if (typeof message !== 'object' || message === null) return null;
  const m = message as { method?: unknown; id?: unknown; params?: unknown };
  if (m.method !== 'session/update' || m.id !== undefined) return null;
  const params = m.params as { sessionId?: unknown; update?: unknown } | undefined;
  if (typeof params?.sessionId !== 'string') return null;
  const update = params.update;
  if (typeof update !== 'object' || update === null || Array.isArray(update)) return null;
  return { sessionId: params.sessionId, update: update as Record<string, unknown> };
}
