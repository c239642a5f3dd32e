import { endpoint, type Endpoint } from '../endpoint.js';
import { HttpError } from '../http-errors.js';
import type { Metrics } from '../observability/index.js';

/** `/metrics`: Prometheus text (`docs/operations-metrics.md`); a scraper sends a token like any reader. */
export function metricsEndpoint(metrics: Metrics): Endpoint {
  return endpoint({
    method: 'GET',
    url: '/metrics',
    access: 'read',
    tag: 'meta',
    summary: 'Prometheus metrics (no route, session or free text in any label)',
    responses: { 200: 'text/plain; version=0.0.4', 503: 'the store does not answer' },
    async handler() {
      let text: string;
      try {
        text = await metrics.render();
      } catch {
        // The route and circuit gauges are read from the store at scrape time.
        throw new HttpError(503, 'not_ready', 'the store does not answer: no metrics this time');
      }
      return { status: 200, body: text, headers: { 'content-type': metrics.contentType } };
    },
  });
}
