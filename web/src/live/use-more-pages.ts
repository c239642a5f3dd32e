import { useRef, useState } from 'react';

export interface MorePages<Row> {
  /** The rows after the first page, each once, in the order the service listed them. */
  readonly rows: readonly Row[];
  /** The next page's cursor (null on the last page). */
  readonly cursor: string | null;
  /** True while a page is being read: the "Show more" control is disabled meanwhile. */
  readonly busy: boolean;
  /** Why the last page could not be read, in the service's words (null when it could). */
  readonly problem: string | null;
  readonly loadMore: () => Promise<void>;
}

/**
 * The pages after a newest-first list's first page (which the caller loads and keeps live), read on demand from
 * `firstCursor`. One page at a time: a second press while one travels would ask for the same cursor and list
 * its rows twice. A row already held (by `keyOf`) is not added again.
 */
export function useMorePages<Row>(
  firstCursor: string | null,
  keyOf: (row: Row) => string,
  readPage: (cursor: string) => Promise<{ readonly rows: readonly Row[]; readonly next: string | null }>,
  failure: string,
): MorePages<Row> {
  const [rows, setRows] = useState<readonly Row[]>([]);
  const [next, setNext] = useState<string | null | undefined>(undefined);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const reading = useRef(false);
  const cursor = next === undefined ? firstCursor : next;
  const loadMore = async () => {
    if (cursor === null || reading.current) return;
    reading.current = true;
    setBusy(true);
    setProblem(null);
    try {
      const page = await readPage(cursor);
      setRows((held) => {
        const keys = new Set(held.map(keyOf));
        return [...held, ...page.rows.filter((row) => !keys.has(keyOf(row)))];
      });
      setNext(page.next);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : failure);
    } finally {
      reading.current = false;
      setBusy(false);
    }
  };
  return { rows, cursor, busy, problem, loadMore };
}

/**
 * The rows a paged list shows: its first page (reloaded live) and then the later pages' rows, less any the first
 * page holds again (by `keyOf`), so a row that moved up is not listed twice.
 */
export function withLaterPages<Row>(
  firstRows: readonly Row[],
  laterRows: readonly Row[],
  keyOf: (row: Row) => string,
): Row[] {
  const seen = new Set(firstRows.map(keyOf));
  return [...firstRows, ...laterRows.filter((row) => !seen.has(keyOf(row)))];
}
