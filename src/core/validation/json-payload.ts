import type { FieldIssue } from './field-issue.js';
import { utf8ByteLength } from '../text/utf8.js';

/** A JSON value, as a caller's payload is stored and handed back. */
export type JsonValue =
  null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** The largest payload stored with a route: its JSON text, in UTF-8 bytes. */
export const payloadMaxBytes = 64 * 1024;

/** The deepest nesting of arrays and objects a payload may have (deeper input would exhaust the stack). */
export const payloadMaxDepth = 64;

/**
 * Checks a caller's payload (opaque: never interpreted, only stored and handed back with every dispatch): plain JSON
 * (no functions, `undefined`, BigInt, non-finite numbers, cycles or array holes), at most 64 levels deep and 64 KiB
 * as JSON text. Returns the JSON text to store, or the problem at `path`. A value that cannot even be read (a getter
 * or a Proxy that throws) is a problem too, never a throw.
 */
export function payloadText(
  value: unknown,
  path: string,
): { readonly ok: true; readonly text: string } | { readonly ok: false; readonly issue: FieldIssue } {
  let problem: { readonly at: string; readonly message: string } | null;
  let text: string;
  try {
    problem = plainJsonProblem(value, new Set(), 0);
    text = problem === null ? JSON.stringify(value) : '';
  } catch {
    return { ok: false, issue: { path, message: 'payload could not be read (a getter or a proxy threw)' } };
  }
  if (problem !== null)
    return { ok: false, issue: { path: `${path}${problem.at}`, message: problem.message } };
  const bytes = utf8ByteLength(text);
  if (bytes > payloadMaxBytes) {
    return {
      ok: false,
      issue: { path, message: `payload must be at most ${payloadMaxBytes} bytes as JSON (got ${bytes})` },
    };
  }
  return { ok: true, text };
}

function plainJsonProblem(
  value: unknown,
  seen: Set<object>,
  depth: number,
): { readonly at: string; readonly message: string } | null {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  if (typeof value === 'number') {
    return Number.isFinite(value)
      ? null
      : { at: '', message: `payload numbers must be finite (got ${value})` };
  }
  if (typeof value !== 'object') {
    return { at: '', message: `payload must be plain JSON (got a ${typeof value})` };
  }
  if (seen.has(value)) return { at: '', message: 'payload must not refer to itself' };
  if (depth >= payloadMaxDepth) {
    return { at: '', message: `payload must nest at most ${payloadMaxDepth} levels of arrays and objects` };
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
    return { at: '', message: 'payload objects must be plain objects (no class instances, dates or maps)' };
  }
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return { at: `/${i}`, message: 'payload arrays must not have holes' };
    }
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value);
  for (const [key, child] of entries) {
    const inner = plainJsonProblem(child, seen, depth + 1);
    if (inner !== null)
      return { at: `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}${inner.at}`, message: inner.message };
  }
  seen.delete(value);
  return null;
}
