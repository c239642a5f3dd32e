import { HttpError } from './http-errors.js';

/**
 * An opaque list cursor: the previous page's last key, as base64url JSON. A cursor that does not decode to the
 * expected shape is a field error at `/cursor` (422), never a 500.
 */
export function encodeCursor(key: readonly [number, string]): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): readonly [number, string] | undefined {
  if (cursor === undefined) return undefined;
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === 2 && Number.isSafeInteger(key[0]) && typeof key[1] === 'string')
      return [key[0] as number, key[1]];
  } catch {
    // falls through to the field error
  }
  throw new HttpError(422, 'invalid_input', '/cursor: not a cursor this list gave', {
    errors: [{ path: '/cursor', message: 'not a cursor this list gave' }],
  });
}
