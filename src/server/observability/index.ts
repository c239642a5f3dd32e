export { createMetrics, type Metrics, type MetricsOptions } from './create-metrics.js';
export type { RouteAction, RouteActionResult } from './metric-labels.js';
export { createTracing, type Tracing, type TracingOptions } from './create-tracing.js';
