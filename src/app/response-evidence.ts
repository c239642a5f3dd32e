import { evidenceBounds, headerRecord, type EvidenceHints, type HttpEnvelope } from '../core/index.js';
import { cutUtf8 } from '../core/text/utf8.js';
import { withoutSplitRun } from '../core/text/key-characters.js';

/** What `evidenceOfResponse` reads of a `fetch` Response (or anything shaped like one). */
export interface ResponseLike {
  readonly status: number;
  readonly headers: unknown;
  readonly body?: ReadableStream<Uint8Array> | null;
  readonly bodyUsed?: boolean;
  text?(): Promise<string>;
}

export interface ResponseEvidenceOptions {
  /**
   * How long the body may take to arrive, in ms (10 s by default): a body that stalls is cut there and what
   * arrived is kept, so a provider that never closes its error page cannot hang the attempt.
   */
  readonly bodyTimeoutMs?: number;
}

const defaultBodyTimeoutMs = 10_000;

/**
 * An evidence envelope from an HTTP response the caller got (a provider's error answer): its status, headers and
 * body. At most the envelope's bound of the body is read (the rest of a stream is cancelled, never buffered), so
 * a huge or endless error page costs nothing; a body already read or locked by the caller is simply absent.
 */
export async function evidenceOfResponse(
  response: ResponseLike,
  hints: EvidenceHints = {},
  options: ResponseEvidenceOptions = {},
): Promise<HttpEnvelope> {
  const timeoutMs = options.bodyTimeoutMs ?? defaultBodyTimeoutMs;
  return {
    kind: 'http',
    ...(typeof hints === 'object' && hints !== null
      ? Object.fromEntries(Object.entries(hints).filter(([, v]) => v !== undefined))
      : {}),
    status: response.status,
    headers: headerRecord(response.headers) ?? {},
    body: await boundedBody(
      response,
      evidenceBounds.textBytes,
      Number.isFinite(timeoutMs) && timeoutMs >= 0 ? timeoutMs : defaultBodyTimeoutMs,
    ),
  };
}

async function boundedBody(response: ResponseLike, maxBytes: number, timeoutMs: number): Promise<string> {
  try {
    if (response.bodyUsed === true) return '';
    const stream = response.body;
    if (isReadableStream(stream)) return stream.locked ? '' : await readStream(stream, maxBytes, timeoutMs);
    if (typeof response.text !== 'function') return '';
    // No stream to cut: the whole text arrives at once (a test double, a polyfill). Bounded in time all the same.
    const text = await withDeadline(Promise.resolve(response.text()), timeoutMs);
    if (typeof text !== 'string') return '';
    const kept = cutUtf8(text, maxBytes);
    return kept.length === text.length ? text : withoutSplitRun(kept, text.charCodeAt(kept.length));
  } catch {
    // A body that cannot be read is absent: the status and headers are evidence enough.
    return '';
  }
}

function isReadableStream(value: unknown): value is ReadableStream<Uint8Array> {
  return (
    typeof value === 'object' && value !== null && typeof (value as ReadableStream).getReader === 'function'
  );
}

async function readStream(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  timeoutMs: number,
): Promise<string> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const deadline = Date.now() + timeoutMs;
  try {
    while (bytes < maxBytes) {
      const next = await withDeadline(reader.read(), deadline - Date.now());
      if (next === undefined || next.done) break;
      if (!(next.value instanceof Uint8Array)) break;
      chunks.push(next.value);
      bytes += next.value.byteLength;
    }
  } catch {
    // A body that broke off mid-read is evidence too: keep what arrived.
  } finally {
    // Not awaited: a stalled source may never confirm the cancel.
    reader.cancel().catch(() => undefined);
  }
  const all = new Uint8Array(Math.min(bytes, maxBytes));
  let at = 0;
  // The first byte past the bound, when the body went on: a key it splits is left out (`withoutSplitRun`).
  let next = Number.NaN;
  for (const chunk of chunks) {
    const take = chunk.subarray(0, all.length - at);
    all.set(take, at);
    at += take.length;
    if (at >= all.length) {
      if (take.length < chunk.length) next = chunk[take.length]!;
      else {
        const following = chunks[chunks.indexOf(chunk) + 1];
        if (following !== undefined && following.length > 0) next = following[0]!;
      }
      break;
    }
  }
  // Decoded as a stream: a multi-byte character cut at the bound is left out rather than kept as U+FFFD.
  return withoutSplitRun(new TextDecoder().decode(all, { stream: true }), next);
}

/** The promise's value, or undefined once `ms` have passed (the timer never holds the process open). */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  if (ms <= 0) return Promise.resolve(undefined);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref();
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
