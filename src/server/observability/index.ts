export { createMetrics, type Metrics } from './create-metrics.js';
export type { RouteAction, RouteActionResult } from './metric-labels.js';
export { createTracing } from './create-tracing.js';
