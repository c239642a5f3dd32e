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
      // The SDK would only log it, with text the agent chose, raw on the host's standard error.
      if (isStray(message)) return;
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

/**
 * A message no request of this client can be waiting for: a response (no method) whose id is not one the SDK's
 * client gives its requests (0, 1, 2, ...). The SDK logs such a response with its id on `console.error`, so an
 * agent could write escape sequences or bidi controls to the user's terminal through it.
 */
function isStray(message: AnyMessage): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as { method?: unknown; id?: unknown };
  if (m.method !== undefined || !('id' in m)) return false;
  return !(typeof m.id === 'number' && Number.isSafeInteger(m.id) && m.id >= 0);
}
