import { Link, pathOf } from '../../router.js';
import { mayOperate, useMe } from '../../session.js';
import { useAnnounce } from '../../ui/announcer.js';
import { successorOf } from './allowed-actions.js';
import { AttemptHistory } from './attempt-history.js';
import { RouteActions } from './route-actions.js';
import { RouteDeadline } from './route-deadline.js';
import { RouteDetails } from './route-details.js';
import type { RouteData } from './use-route.js';
import { useRoute } from './use-route.js';
import {
  causeWords,
  classWords,
  headline,
  nextOutcomeWords,
  retryOrdinalWords,
  whyWords,
} from './route-words.js';

/**
 * One route: what is happening in one headline, the cause in words, provider and model, "Retry 2 of 3", what
 * happens if the next attempt fails, when it is due (absolute and counting down on the server's clock), the
 * actions the state allows (operators and admins only), the attempt history, and the raw diagnostics in Details.
 */
export function RoutePage(props: { readonly id: string }) {
  const announce = useAnnounce();
  const loaded = useRoute(props.id, (event) => announce(`Route ${event.route.id}: ${headline(event.route)}`));
  return (
    <section aria-labelledby="route-title" className="route-view">
      <p>
        <Link href="/routes">All routes</Link>
      </p>
      <h1 id="route-title">
        Route <span className="route-id">{props.id}</span>
      </h1>
      {loaded.error !== null && (
        <div className="banner error" role="alert">
          {loaded.error.message.includes('not found') || (loaded.error as { status?: number }).status === 404
            ? 'There is no route with this id.'
            : `The route could not be loaded: ${loaded.error.message}`}
        </div>
      )}
      {loaded.data === null && loaded.error === null && <p>Loading the route…</p>}
      {loaded.data !== null && <RouteBody data={loaded.data} onRoute={loaded.showRoute} />}
    </section>
  );
}

function RouteBody(props: {
  readonly data: RouteData;
  readonly onRoute: (route: RouteData['route']) => void;
}) {
  const me = useMe();
  const { route, attempts, candidates } = props.data;
  const why = whyWords(route);
  const cause = causeWords(route);
  const successor = successorOf(route, candidates);
  const current = candidates?.find((c) => c.profile_id === route.candidate);
  const provider = route.provider ?? route.last_failure?.provider_id ?? current?.provider ?? null;
  const model = route.model ?? route.last_failure?.model_id ?? current?.model ?? null;
  const ordinal = retryOrdinalWords(route);
  const next = nextOutcomeWords(route);
  return (
    <>
      <div className={`banner route-state state-${route.state}`}>
        <p className="route-headline">
          <strong>{headline(route)}</strong>
        </p>
        {why !== null && <p>{why}</p>}
        {route.deadline_at !== null && (
          <p>
            <RouteDeadline deadlineAt={route.deadline_at} />
          </p>
        )}
      </div>
      <dl className="facts">
        <dt>Cause</dt>
        <dd>{cause ?? 'No failure reported'}</dd>
        {route.class !== null && (
          <>
            <dt>Kind of error</dt>
            <dd>{classWords(route.class)}</dd>
          </>
        )}
        <dt>Provider and model</dt>
        <dd>
          {provider === null && model === null
            ? 'Not reported by the agent or the profile'
            : `${provider ?? 'provider not reported'} · ${model ?? 'model not reported'}`}
        </dd>
        <dt>Candidate</dt>
        <dd>{route.candidate}</dd>
        <dt>Profile</dt>
        <dd>
          <Link href={pathOf('profiles', route.profile_id)}>{route.profile_id}</Link>
        </dd>
        {ordinal !== null && (
          <>
            <dt>Retries</dt>
            <dd>{ordinal}</dd>
          </>
        )}
        {next !== null && (
          <>
            <dt>Next outcome</dt>
            <dd>{next}</dd>
          </>
        )}
      </dl>
      {mayOperate(me) ? (
        <RouteActions route={route} successor={successor} onRoute={props.onRoute} />
      ) : (
        <p className="muted">
          You are signed in as {/^[aeiou]/.test(me.role) ? 'an' : 'a'} {me.role}: you can follow this route
          but not act on it.
        </p>
      )}
      <AttemptHistory attempts={attempts} />
      <RouteDetails route={route} attempts={attempts} />
    </>
  );
}
