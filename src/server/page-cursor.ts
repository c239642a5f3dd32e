import { invalid } from './http-errors.js';

/**
 * The `next_cursor` of a newest-first list: which list it belongs to and the position of the page's last item
 * (its sort time in epoch ms and its id), as base64url JSON. It is opaque to clients and checked on the way back:
 * a cursor of another list, or one that does not decode, is a field error at `/cursor` (422).
 */
export interface PagePosition {
  readonly atMs: number;
  readonly id: string;
}

export function encodeCursor(list: string, position: PagePosition): string {
  return Buffer.from(JSON.stringify([list, position.atMs, position.id]), 'utf8').toString('base64url');
}

/** The position a cursor names, or 422 at `/cursor` when it is not a cursor of `list`. */
export function decodeCursor(list: string, cursor: string): PagePosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    parsed[0] !== list ||
    !Number.isSafeInteger(parsed[1]) ||
    typeof parsed[2] !== 'string'
  ) {
    throw invalid([
      { path: '/cursor', message: `not a cursor of this list (${list}): start from the first page` },
    ]);
  }
  return { atMs: parsed[1] as number, id: parsed[2] };
}

/**
 * 422 at `/cursor` for a cursor whose item no longer stands where the cursor says (deleted, or changed and so moved
 * in the order): continuing from it could skip or repeat items, so the client reloads the first page.
 */
export function staleCursor(): Error {
  return invalid([
    {
      path: '/cursor',
      message: 'the cursor is stale (its item was deleted or changed): start from the first page',
    },
  ]);
}
