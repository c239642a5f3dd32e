/**
 * The service's HTTP API as the page calls it: same origin, the session cookie (HttpOnly, set by the sign-in
 * exchange), JSON both ways. A refusal becomes an `ApiError` with the service's code, message and, for a 422,
 * the field paths (JSON pointers) so a form can put each message beside its field.
 */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: readonly FieldIssue[],
    /** The whole error body: a 409 carries the current state (`current`, `route`). */
    readonly body: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

/** Called when the service answers 401: the page shows the sign-in form. */
let onUnauthorized: () => void = () => undefined;
export function whenUnauthorized(listener: () => void): void {
  onUnauthorized = listener;
}

export interface ApiReply<T> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

export async function api<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiReply<T>> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, 'unreachable', 'The Recourse service cannot be reached. Is it running?', [], {});
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null; // a proxy's HTML error page: the status still says what happened
  }
  if (response.ok) return { status: response.status, body: parsed as T, headers: response.headers };
  if (response.status === 401) onUnauthorized();
  const record = (parsed ?? {}) as Record<string, unknown>;
  const error = (record.error ?? {}) as { code?: string; message?: string };
  throw new ApiError(
    response.status,
    error.code ?? `http_${response.status}`,
    error.message ?? `The service answered ${response.status}.`,
    Array.isArray(record.errors) ? (record.errors as FieldIssue[]) : [],
    record,
  );
}

/** A query string from defined values only. */
export function query(values: Record<string, string | number | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== null && value !== undefined && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
