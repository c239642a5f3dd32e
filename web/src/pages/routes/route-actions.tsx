import { useEffect, useRef, useState } from 'react';
import { api, ApiError } from '../../api.js';
import { useAnnounce } from '../../ui/announcer.js';
import { ConfirmDialog } from '../../ui/confirm.js';
import { refocusIfLost } from '../../ui/refocus.js';
import { actionEffect, actionLabel, allowedActions } from './allowed-actions.js';
import { changeWords, headline } from './route-words.js';
import type { RouteAction, RouteDoc } from './route-types.js';

interface Pending {
  readonly action: RouteAction;
  /** The route as the person saw it when they acted. */
  readonly sent: RouteDoc;
}

type Outcome =
  | { readonly kind: 'conflict'; readonly text: string }
  | { readonly kind: 'error'; readonly text: string }
  | { readonly kind: 'unchanged'; readonly text: string }
  | null;

/**
 * Retry now, Skip now, Cancel wait and Stop, as the route's state allows. Each is fenced by the generation and the
 * state the person saw; a refusal (409) says what changed and shows the route as it is now. Only Stop, and Retry
 * now before a trusted reset, ask first. A request shows "requested" until the reply or the route's next event
 * confirms it.
 */
export function RouteActions(props: {
  readonly route: RouteDoc;
  readonly successor: string | null;
  readonly onRoute: (route: RouteDoc) => void;
}) {
  const { route, successor, onRoute } = props;
  const announce = useAnnounce();
  const [pending, setPending] = useState<Pending | null>(null);
  // What the question was asked about: Confirm sends the route as the person saw it when the dialog opened, so a
  // change meanwhile is refused (409) and shown rather than acted on unseen.
  const [asking, setAsking] = useState<{ readonly action: RouteAction; readonly seen: RouteDoc } | null>(
    null,
  );
  const [outcome, setOutcome] = useState<Outcome>(null);
  const title = useRef<HTMLHeadingElement>(null);

  // The route's own event may confirm the change before the reply does.
  useEffect(() => {
    if (pending !== null && route.revision > pending.sent.revision) setPending(null);
  }, [route.revision, pending]);

  const actions = allowedActions(route, successor);
  const send = async (action: RouteAction, sent: RouteDoc = route) => {
    setAsking(null);
    setOutcome(null);
    setPending({ action, sent });
    announce(`${actionLabel(action, sent, successor)} requested`);
    try {
      const { body } = await api<{ result: string; route: RouteDoc }>(
        'POST',
        `/v1/routes/${encodeURIComponent(sent.id)}/actions`,
        { action, expected_generation: sent.generation, expected_state: sent.state },
      );
      onRoute(body.route);
      if (body.result === 'unchanged')
        setOutcome({
          kind: 'unchanged',
          text: 'Nothing needed to change: the route was already as you asked.',
        });
      announce(`${actionLabel(action, sent, successor)} done. ${headline(body.route)}`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 409 && isRoute(error.body.route)) {
        const now = error.body.route;
        // Refused for what the route is, no one having acted (Skip now with no candidate to go to: the others are
        // disabled since the page read them, or behind an open circuit): the service's reason, not a race.
        const text =
          error.code === 'not_allowed' && now.revision === sent.revision
            ? `${actionLabel(action, sent, successor)} was not applied: ${error.message}`
            : changeWords(sent, now);
        setOutcome({ kind: 'conflict', text });
        onRoute(now);
        announce(text);
      } else {
        const text =
          error instanceof ApiError
            ? `${actionLabel(action, sent, successor)} was not applied: ${error.message}`
            : `${actionLabel(action, sent, successor)} was not applied.`;
        setOutcome({ kind: 'error', text });
        announce(text);
      }
    } finally {
      setPending(null);
      // The button pressed was disabled while pending and may be gone now (another state offers other actions):
      // a keyboard user keeps their place at this section rather than at the top of the page.
      refocusIfLost(() => title.current);
    }
  };
  const ask = (action: RouteAction) => {
    if (action === 'stop' || (action === 'retry_now' && route.state === 'waiting_for_reset'))
      setAsking({ action, seen: route });
    else void send(action);
  };

  return (
    <section aria-labelledby="route-actions-title" className="route-actions">
      <h2 id="route-actions-title" ref={title} tabIndex={-1}>
        What you can do
      </h2>
      {outcome !== null && (
        <div className={outcome.kind === 'unchanged' ? 'banner info' : 'banner error'} role="alert">
          {outcome.text}
        </div>
      )}
      {actions.length === 0 ? (
        <p className="muted">
          Nothing to do: no action applies while the route is {headline(route).toLowerCase()}.
        </p>
      ) : (
        <>
          <div className="actions route-action-buttons">
            {actions.map((action) => {
              const label = actionLabel(action, route, successor);
              const isPending = pending?.action === action;
              return (
                <button
                  key={action}
                  type="button"
                  className={action === 'stop' ? 'danger' : undefined}
                  disabled={pending !== null}
                  onClick={() => ask(action)}
                >
                  {isPending ? `${label}: requested…` : label}
                </button>
              );
            })}
          </div>
          {pending !== null && (
            <p className="banner info" data-testid="action-pending">
              {actionLabel(pending.action, pending.sent, successor)} requested: waiting for the service to
              confirm.
            </p>
          )}
          <ul className="route-action-effects muted">
            {actions.map((action) => (
              <li key={action}>{actionEffect(action, route, successor)}</li>
            ))}
          </ul>
        </>
      )}
      <ConfirmDialog
        open={asking !== null}
        title={asking?.action === 'stop' ? 'Stop this route?' : 'Retry now, before the reset?'}
        confirmLabel={asking?.action === 'stop' ? 'Stop the route' : 'Retry now anyway'}
        onConfirm={() => {
          if (asking !== null) void send(asking.action, asking.seen);
        }}
        onCancel={() => setAsking(null)}
      >
        <p>
          {asking?.action === 'stop'
            ? 'Recovery ends here: nothing is retried or switched until you act again. An attempt already sent is left to finish.'
            : 'The provider said when the usage limit resets. Retrying before then will most likely fail the same way and use up this wait.'}
        </p>
      </ConfirmDialog>
    </section>
  );
}

function isRoute(value: unknown): value is RouteDoc {
  return typeof value === 'object' && value !== null && typeof (value as RouteDoc).id === 'string';
}
