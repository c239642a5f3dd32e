import { api, ApiError } from '../../api.js';
import { useLiveEvents, useResource } from '../../live/hooks.js';
import { Link, pathOf } from '../../router.js';
import { mayOperate, useMe } from '../../session.js';
import { PlanActions } from './plan-actions.js';
import { PlanHistory } from './plan-history.js';
import { planEventTypes, planStateWords } from './plan-words.js';
import type { PlanErrorsDoc } from './plan-types.js';

/**
 * `/plans/ID`: what `recourse errors PLAN_ID` shows (seed 004): the plan, its latest error, the retry decision,
 * the recovery suggestions with their commands and the history; for operators, the actions its state allows.
 * Live: a `plan.error.recorded` or `plan.changed` event for this plan reloads it (a change made elsewhere: the CLI,
 * another person, the orchestrator completing a phase).
 */
export function PlanView(props: { readonly id: string }) {
  const me = useMe();
  const doc = useResource<PlanErrorsDoc>(
    `plan:${props.id}`,
    async () => (await api<PlanErrorsDoc>('GET', `${pathOf('v1', 'plans', props.id)}/errors`)).body,
  );
  useLiveEvents((event) => {
    const plan = event.data.plan as { id?: unknown } | undefined;
    if (planEventTypes.has(event.type) && plan?.id === props.id) doc.reload();
  });
  const data = doc.data;
  const latest = data?.errors.at(-1) ?? null;
  return (
    <section className="plan-page">
      <p>
        <Link href="/plans">← All plans</Link>
      </p>
      <h1>Plan {props.id}</h1>
      {doc.error !== null && (
        <p className="banner error" role="alert">
          {doc.error instanceof ApiError && doc.error.status === 404
            ? 'There is no such plan.'
            : `The plan could not be loaded: ${doc.error.message}`}
        </p>
      )}
      {data === null && doc.error === null && <p>Loading the plan…</p>}
      {data !== null && (
        <>
          <dl className="facts">
            <dt>Now</dt>
            <dd data-testid="plan-now">{planStateWords(data.plan.state, data.plan.phase)}</dd>
            <dt>Phase</dt>
            <dd>{data.plan.phase}</dd>
            <dt>State</dt>
            <dd>{data.plan.state}</dd>
          </dl>
          {latest === null ? (
            <p className="banner ok">No errors recorded for plan {data.plan.id}.</p>
          ) : (
            <section aria-labelledby="plan-latest-title" className="card">
              <h2 id="plan-latest-title">Latest error</h2>
              <p className="plan-error-line">
                Error: {latest.exception_type === null ? '' : `${latest.exception_type}: `}
                {latest.message}
              </p>
              <dl className="facts">
                <dt>Error category</dt>
                <dd>{latest.category}</dd>
                <dt>Error phase</dt>
                <dd>{latest.phase}</dd>
                <dt>Retry count</dt>
                <dd>
                  {latest.retry_count}/{latest.max_retries}
                </dd>
                <dt>Retriable</dt>
                <dd>{latest.verdict === 'retry' ? 'yes' : 'no'}</dd>
              </dl>
              <p
                className={data.decision.should_retry ? 'banner ok' : 'banner warn'}
                data-testid="plan-decision"
              >
                {data.decision.should_retry
                  ? '✓ Automatic retry available.'
                  : `✗ Automatic retry not available (${data.decision.reason ?? 'no error recorded'}).`}
                {data.decision.message !== null && ` ${data.decision.message}`}
              </p>
              <h3>Recovery suggestions</h3>
              <ul className="plan-hints" data-testid="plan-hints">
                {data.decision.hints.map((hint) => (
                  <li key={hint.action}>
                    <p>→ {hint.message}</p>
                    {hint.cli_command === null ? (
                      <p className="muted">No command: look at the logs.</p>
                    ) : (
                      <pre>
                        <code>$ {hint.cli_command}</code>
                      </pre>
                    )}
                  </li>
                ))}
              </ul>
            </section>
          )}
          {mayOperate(me) && <PlanActions plan={data.plan} onChanged={doc.reload} />}
          <PlanHistory planId={data.plan.id} errors={data.errors} />
        </>
      )}
    </section>
  );
}
