import { absoluteTime, countdownWords } from '../../format.js';
import { useServerNow } from '../../live/hooks.js';
import { Link, pathOf } from '../../router.js';
import { Disclosure } from '../../ui/disclosure.js';
import type { RetryCardModel } from './notice-model.js';

/** Where a Cancel request stands: idle, sent and waiting for the deletion event, or refused with words. */
/**
 * Whether this person may cancel: `yes`, `no` (their role), `pending` while the session (whose owner Cancel acts
 * for) is still loading, so an operator is never told for a moment that only an operator can cancel, and
 * `unavailable` when the session could not be loaded (the page's banner says why).
 */
export type CancelAccess = 'yes' | 'no' | 'pending' | 'unavailable';

export type CancelState =
  | { readonly state: 'idle' }
  | { readonly state: 'requested' }
  | { readonly state: 'failed'; readonly message: string };

/**
 * The inline retry card (NOT-03, NOT-44): one component for the desktop and the phone (only CSS differs). It
 * says why, which provider, which attempt, when (absolute, and a countdown on the server's clock that stops at
 * "Due now"), and what Cancel does. The countdown is a `timer`, which screen readers do not read on each tick.
 */
export function RetryCard(props: {
  readonly card: RetryCardModel;
  readonly canCancel: CancelAccess;
  readonly cancel: CancelState;
  readonly onCancel: () => void;
}) {
  const now = useServerNow();
  const { card } = props;
  const effectId = `retry-cancel-effect-${card.messageId}`;
  return (
    <section
      className="retry-card"
      aria-labelledby={`retry-title-${card.messageId}`}
      data-testid="retry-card"
    >
      <h2 id={`retry-title-${card.messageId}`} className="retry-card-title">
        Retrying automatically
      </h2>
      <p className="retry-card-reason">
        {card.reason} ({card.provider})
      </p>
      <dl className="facts">
        <dt>Attempt</dt>
        <dd data-testid="retry-attempt">
          {card.attempt !== null && card.maxAttempts !== null
            ? `Attempt ${card.attempt} of ${card.maxAttempts}`
            : 'Attempt number not known'}
        </dd>
        <dt>Next attempt</dt>
        <dd>
          {card.deadlineMs === null ? (
            'Time not known'
          ) : (
            <>
              <time dateTime={new Date(card.deadlineMs).toISOString()}>{absoluteTime(card.deadlineMs)}</time>
              {' · '}
              <span role="timer" aria-label="Time until the next attempt" data-testid="retry-countdown">
                {countdownWords(card.deadlineMs, now)}
              </span>
            </>
          )}
        </dd>
      </dl>
      {props.canCancel === 'pending' ? (
        <p className="muted">Loading who may cancel…</p>
      ) : props.canCancel === 'unavailable' ? (
        <p className="muted">Cancel needs the session, which could not be loaded.</p>
      ) : props.canCancel === 'yes' ? (
        <div className="retry-card-cancel">
          <button
            type="button"
            className="danger"
            onClick={props.onCancel}
            disabled={props.cancel.state === 'requested'}
            aria-describedby={effectId}
          >
            {props.cancel.state === 'requested' ? 'Cancel requested…' : 'Cancel'}
          </button>
          <p id={effectId} className="field-hint">
            Stops the automatic retry; you then choose Resume or Start fresh.
          </p>
        </div>
      ) : (
        <p className="muted">The service retries by itself. An operator can cancel it.</p>
      )}
      {props.cancel.state === 'failed' && (
        <p className="field-error" role="alert">
          {props.cancel.message}
        </p>
      )}
      <Disclosure summary="Details" className="retry-card-details">
        <dl className="facts">
          <dt>Code</dt>
          <dd>
            <code>{card.reasonCode ?? 'none'}</code>
          </dd>
          <dt>Route</dt>
          <dd>
            {card.routeId === null ? (
              'not known'
            ) : (
              <Link href={pathOf('routes', card.routeId)}>{card.routeId}</Link>
            )}
          </dd>
        </dl>
      </Disclosure>
    </section>
  );
}
