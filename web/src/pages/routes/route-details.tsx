import { Disclosure } from '../../ui/disclosure.js';
import type { AttemptDoc, RouteDoc } from './route-types.js';

/**
 * The raw diagnostics, for someone filing a bug or tuning the catalogue: the stable code, class, classifier rule
 * and catalogue version, the route's state, reason and generation, and each attempt's. Closed by default; these
 * are identifiers from the classifier, never the provider's text (UI-12).
 */
export function RouteDetails(props: { readonly route: RouteDoc; readonly attempts: readonly AttemptDoc[] }) {
  const { route } = props;
  const failure = route.last_failure;
  return (
    <section aria-labelledby="route-details-title" className="route-details">
      <h2 id="route-details-title" className="visually-hidden">
        Details
      </h2>
      <Disclosure summary="Details: codes, rule and catalogue version">
        <dl className="facts">
          <dt>State</dt>
          <dd>
            <code>{route.state}</code>
            {route.reason !== null && (
              <>
                {' '}
                (<code>{route.reason}</code>)
              </>
            )}
          </dd>
          <dt>Generation</dt>
          <dd>{route.generation}</dd>
          <dt>Code</dt>
          <dd>
            <code>{route.code ?? 'none'}</code>
          </dd>
          <dt>Class</dt>
          <dd>
            <code>{route.class ?? 'none'}</code>
          </dd>
          <dt>Classifier rule</dt>
          <dd>
            <code>{failure?.classifier_rule ?? 'none'}</code>
          </dd>
          <dt>Catalogue version</dt>
          <dd>
            <code>{failure?.catalogue_version ?? 'none'}</code>
          </dd>
        </dl>
        {props.attempts.length > 0 && (
          <>
            <h3>Each attempt</h3>
            <ul className="route-raw-attempts">
              {props.attempts.map((a) => (
                <li key={a.seq}>
                  #{a.seq} <code>{a.decision}</code> · code <code>{a.code ?? 'none'}</code> · class{' '}
                  <code>{a.class ?? 'none'}</code> · rule <code>{a.classifier_rule ?? 'none'}</code> ·
                  catalogue <code>{a.catalogue_version ?? 'none'}</code>
                  {a.delay_source != null && (
                    <>
                      {' '}
                      · delay <code>{a.delay_source}</code>
                    </>
                  )}
                </li>
              ))}
            </ul>
          </>
        )}
      </Disclosure>
    </section>
  );
}
