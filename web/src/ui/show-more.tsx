import type { MorePages } from '../live/use-more-pages.js';

/**
 * Below a paged list: why the last page could not be read (in the service's words), and "Show more `noun`" while
 * there is a next page and the list shows rows. The button is disabled while a page travels.
 */
export function ShowMore(props: {
  readonly more: MorePages<unknown>;
  readonly listed: boolean;
  readonly noun: string;
}) {
  const { more, listed, noun } = props;
  return (
    <>
      {more.problem !== null && (
        <p className="banner error" role="alert">
          {more.problem}
        </p>
      )}
      {more.cursor !== null && listed && (
        <div className="actions">
          <button type="button" disabled={more.busy} onClick={() => void more.loadMore()}>
            {more.busy ? `Loading more ${noun}…` : `Show more ${noun}`}
          </button>
        </div>
      )}
    </>
  );
}
