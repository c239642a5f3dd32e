import { endpoint, type Endpoint } from '../endpoint.js';
import type { Metrics } from '../observability/index.js';

/** `/metrics`: Prometheus text (`docs/operations-metrics.md`); a scraper sends a token like any reader. */
export function metricsEndpoint(metrics: Metrics): Endpoint {
  return endpoint({
    method: 'GET',
    url: '/metrics',
    access: 'read',
    tag: 'meta',
    summary: 'Prometheus metrics (no route, session or free text in any label)',
    responses: { 200: 'text/plain; version=0.0.4' },
    async handler() {
      return { status: 200, body: await metrics.render(), headers: { 'content-type': metrics.contentType } };
    },
  });
}
