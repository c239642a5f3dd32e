import { absoluteTime, countdownWords } from '../../format.js';
import { useServerNow } from '../../live/hooks.js';

/**
 * When the next attempt is due: the absolute time with its zone, and a countdown on the server's clock (a browser
 * clock minutes off changes nothing). At zero it says "Due now" and stays there: the service fires the attempt,
 * the page never does. The countdown is `role="timer"`, which screen readers do not read out on every tick.
 */
export function RouteDeadline(props: { readonly deadlineAt: string; readonly label?: string }) {
  const now = useServerNow();
  const deadlineMs = Date.parse(props.deadlineAt);
  if (!Number.isFinite(deadlineMs)) return null;
  return (
    <span className="route-deadline">
      <span>
        {props.label ?? 'Next attempt'}: <time dateTime={props.deadlineAt}>{absoluteTime(deadlineMs)}</time>
      </span>{' '}
      <span role="timer" className="route-countdown">
        {countdownWords(deadlineMs, now)}
      </span>
    </span>
  );
}
