import type { EnvelopeCommon, HeaderValue, SdkExceptionEnvelope } from './envelope.js';

/** What the caller knows of where an error came from (ids only; see `EnvelopeCommon`). */
export type EvidenceHints = Pick<
  EnvelopeCommon,
  'provider' | 'agent' | 'model' | 'observed_at' | 'invocation_id' | 'prompt_generation' | 'phase'
>;

/** The longest message kept before the envelope's own bound (64 KiB) applies; a chain of causes is cut here. */
const messageLimit = 16 * 1024;

/**
 * An evidence envelope from a thrown error, read by shape, never by provider name (CLS-05): the error's class name,
 * its message and its causes, an HTTP `status` and `headers` when it has them, and a structured error body (`error`,
 * `errorDetails`) when one is attached. This covers the errors of the Anthropic, OpenAI and Google SDKs (an
 * `APIError` or `ApiError` with a status; their connection errors), `fetch` (`TypeError: fetch failed` with a
 * system error as its cause), Node's system errors (`ECONNRESET`), timeouts and aborts, and anything else thrown
 * (a string, a plain object). Pure: it only reads the value.
 */
export function evidenceOfError(error: unknown, hints: EvidenceHints = {}): SdkExceptionEnvelope {
  const known = definedHints(hints);
  try {
    const status = statusOf(error);
    const headers = headersOf(error);
    return {
      kind: 'sdk_exception',
      ...known,
      name: nameOf(error),
      message: messageOf(error).slice(0, messageLimit),
      ...(status === null ? {} : { status }),
      ...(headers === null ? {} : { headers }),
    };
  } catch {
    // A getter or a Proxy trap that throws: the value cannot be read, and that is all there is to say. It never
    // reads as a provider failure, so nothing is retried on it.
    return {
      kind: 'sdk_exception',
      ...known,
      name: 'UnreadableError',
      message: 'a thrown value that could not be read',
    };
  }
}

function nameOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'Error';
  const name = (error as { name?: unknown }).name;
  const ctor = (error as { constructor?: { name?: unknown } }).constructor?.name;
  // SDK subclasses often keep `name` as "Error": the class name says more (RateLimitError, OverloadedError).
  if (
    typeof ctor === 'string' &&
    ctor !== '' &&
    ctor !== 'Object' &&
    (name === 'Error' || name === undefined)
  )
    return ctor;
  return typeof name === 'string' && name !== '' ? name : 'Error';
}

/** The message, the structured body it does not already quote, then each cause's code and message. */
function messageOf(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null && !seen.has(current); depth++) {
    seen.add(current);
    if (typeof current !== 'object') {
      // A thrown string, number or symbol: its own text is the message.
      parts.push(typeof current === 'string' ? current : safeJson(current) || typeof current);
      break;
    }
    const e = current as Record<string, unknown>;
    const code = typeof e.code === 'string' || typeof e.code === 'number' ? String(e.code) : '';
    const message = typeof e.message === 'string' ? e.message : depth === 0 ? safeJson(e) : '';
    const text = [code !== '' && !message.includes(code) ? code : '', message]
      .filter((s) => s !== '')
      .join(' ');
    if (text !== '') parts.push(text);
    for (const key of ['error', 'errorDetails', 'body']) {
      const body = e[key];
      if (body === undefined || body === null || typeof body === 'function') continue;
      const json = typeof body === 'string' ? body : safeJson(body);
      if (json !== '' && !parts.some((p) => p.includes(json))) parts.push(json);
    }
    current = e.cause;
  }
  return parts.join(': ') || 'Error';
}

function statusOf(error: unknown): number | null {
  if (typeof error !== 'object' || error === null) return null;
  for (const key of ['status', 'statusCode']) {
    const value = (error as Record<string, unknown>)[key];
    if (typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599) return value;
  }
  const response = (error as { response?: { status?: unknown } }).response;
  const nested = response?.status;
  return typeof nested === 'number' && Number.isInteger(nested) && nested >= 100 && nested <= 599
    ? nested
    : null;
}

/** Headers from a `Headers` object, a plain record, or an error's `response.headers`; at most 64 entries. */
function headersOf(error: unknown): Record<string, HeaderValue> | null {
  if (typeof error !== 'object' || error === null) return null;
  const candidate =
    (error as { headers?: unknown }).headers ??
    (error as { response?: { headers?: unknown } }).response?.headers;
  return headerRecord(candidate);
}

/** A header map of any common shape (Headers, Map, a record of strings) as the envelope's record. */
export function headerRecord(value: unknown): Record<string, HeaderValue> | null {
  if (typeof value !== 'object' || value === null) return null;
  const out: Record<string, HeaderValue> = {};
  let count = 0;
  const put = (name: unknown, v: unknown) => {
    if (count >= 64 || typeof name !== 'string') return;
    if (typeof v === 'string' || typeof v === 'number') out[name.toLowerCase()] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[name.toLowerCase()] = v;
    else return;
    count += 1;
  };
  try {
    const iterable = value as { forEach?: unknown };
    if (Array.isArray(value)) {
      // [name, value] pairs, as `new Headers(init)` and `fetch` accept them.
      for (const pair of value as unknown[])
        if (Array.isArray(pair) && pair.length === 2) put(pair[0], pair[1]);
    } else if (typeof iterable.forEach === 'function') {
      // Headers and Map call back (value, key).
      (value as { forEach(cb: (v: unknown, k: unknown) => void): void }).forEach((v, k) => put(k, v));
    } else {
      for (const [k, v] of Object.entries(value)) put(k, v);
    }
  } catch {
    // A header object whose iteration throws: keep the headers read so far.
  }
  return count === 0 ? null : out;
}

function definedHints(hints: EvidenceHints | null | undefined): EvidenceHints {
  if (typeof hints !== 'object' || hints === null) return {};
  return Object.fromEntries(Object.entries(hints).filter(([, v]) => v !== undefined));
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}
