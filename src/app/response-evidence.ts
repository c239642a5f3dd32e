import { evidenceBounds, headerRecord, type EvidenceHints, type HttpEnvelope } from '../core/index.js';

/** What `evidenceOfResponse` reads of a `fetch` Response (or anything shaped like one). */
export interface ResponseLike {
  readonly status: number;
  readonly headers: unknown;
  readonly body?: ReadableStream<Uint8Array> | null;
  readonly bodyUsed?: boolean;
  text?(): Promise<string>;
}

/**
 * An evidence envelope from an HTTP response the caller got (a provider's error answer): its status, headers and
 * body. At most the envelope's bound of the body is read (the rest is cancelled, never buffered), so a huge or
 * endless error page costs nothing; a body already read by the caller is simply absent.
 */
export async function evidenceOfResponse(
  response: ResponseLike,
  hints: EvidenceHints = {},
): Promise<HttpEnvelope> {
  return {
    kind: 'http',
    ...Object.fromEntries(Object.entries(hints).filter(([, v]) => v !== undefined)),
    status: response.status,
    headers: headerRecord(response.headers) ?? {},
    body: await boundedBody(response, evidenceBounds.textBytes),
  };
}

async function boundedBody(response: ResponseLike, maxBytes: number): Promise<string> {
  if (response.bodyUsed === true) return '';
  const stream = response.body;
  if (stream === undefined || stream === null) {
    return response.text === undefined ? '' : (await response.text().catch(() => '')).slice(0, maxBytes);
  }
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
    }
  } catch {
    // A body that broke off mid-read is evidence too: keep what arrived.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const all = new Uint8Array(Math.min(bytes, maxBytes));
  let at = 0;
  for (const chunk of chunks) {
    const take = chunk.subarray(0, all.length - at);
    all.set(take, at);
    at += take.length;
    if (at >= all.length) break;
  }
  return new TextDecoder().decode(all);
}
