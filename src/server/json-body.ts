import { HttpError } from './http-errors.js';

/**
 * Request bodies as JSON. A key that could reach an object's prototype (`__proto__`, or `constructor` holding
 * `prototype`) is refused, as Fastify's own parser does, but said as what it is: the body is valid JSON, and a
 * client told it is not would look for the wrong mistake.
 */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new HttpError(400, 'malformed_json', 'the body is empty but says it is JSON');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'malformed_json', 'the body is not valid JSON');
  }
  // Scanning costs a walk of the whole value: only when the text could hold such a key at all.
  if (/"(?:__proto__|constructor)"/.test(text) && reachesPrototype(value)) {
    throw new HttpError(
      400,
      'malformed_json',
      'the body holds a "__proto__" key, or a "constructor" key with "prototype" in it: rename it',
    );
  }
  return value;
}

/** Whether any object in `value` has an own `__proto__` key, or a `constructor` object with a `prototype` key. */
function reachesPrototype(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null) continue;
    // One at a time: spread into `push`, a 500,000-element array would overflow the call's arguments.
    if (Array.isArray(next)) {
      for (const item of next as unknown[]) pending.push(item);
      continue;
    }
    if (Object.hasOwn(next, '__proto__')) return true;
    const ctor = (next as Record<string, unknown>).constructor;
    if (Object.hasOwn(next, 'constructor') && typeof ctor === 'object' && ctor !== null) {
      if (Object.hasOwn(ctor, 'prototype')) return true;
    }
    for (const child of Object.values(next)) pending.push(child);
  }
  return false;
}
