import { Counter, exponentialBuckets, Gauge, Histogram, Registry } from 'prom-client';
import { deadlineOf, type Store } from '../../core/index.js';
import type { Engine, EngineEvent } from '../../engine/index.js';
import {
  actionLabel,
  actionResultLabel,
  classLabel,
  codeLabel,
  decisionLabel,
  httpMethodLabel,
  httpRouteLabels,
  httpStatusLabel,
  providerLabels,
  versionLabel,
  type RouteAction,
  type RouteActionResult,
} from './metric-labels.js';

export interface MetricsOptions {
  /** The open Recourse (or anything with its engine and store): events are counted, the store read at scrape. */
  readonly recourse: {
    readonly engine: Pick<Engine, 'subscribe'>;
    readonly store: Pick<Store, 'countRoutes' | 'countCircuits'>;
  };
  readonly buildInfo: { readonly version: string; readonly catalogueVersion: string };
}

/** The Prometheus metrics of one Recourse service (`docs/operations-metrics.md` lists them). */
export interface Metrics {
  /** This service's own registry: never the global one, so two servers in one process do not clash. */
  readonly registry: Registry;
  /** The `Content-Type` of `render()`'s text. */
  readonly contentType: string;
  /** One HTTP request: `route` is the route template (`/v1/routes/:id`), never the concrete URL. */
  observeHttp(route: string, method: string, status: number, seconds: number): void;
  /** One route action the server handled and how it ended. */
  observeAction(action: RouteAction, result: RouteActionResult): void;
  /** The exposition text; reads the route and circuit counts from the store (rejects if the store cannot). */
  render(): Promise<string>;
  /** Stops counting the engine's events; the registry keeps its last values. Idempotent. */
  close(): void;
}

// Bucket bounds come from prom-client's helper: a literal table that doubles would read as a copied retry
// schedule (test/lint/no-copied-tables), and these are not one.
/** Waits, from a 1 s backoff to a quota reset hours away: 1 s, 4 s, 16 s ... 65,536 s (about 18 h). */
const retryDelayBuckets = exponentialBuckets(1, 4, 9);
/** Timer lateness: 1 ms when healthy, seconds for a stalled loop or a stepped clock: 1 ms ... 262 s. */
const latenessBuckets = exponentialBuckets(0.001, 4, 10);

/** Creates the metrics in a registry of their own and starts counting the engine's events. */
export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  // Per instance: each server bounds its own label sets.
  const providerLabel = providerLabels();
  const httpRouteLabel = httpRouteLabels();
  const registers = [registry];
  const { store } = options.recourse;

  const failures = new Counter({
    name: 'recourse_provider_failures_total',
    help: 'Classified failures that moved a route, by provider, semantic code and class.',
    labelNames: ['provider', 'code', 'class'] as const,
    registers,
  });
  const decisions = new Counter({
    name: 'recourse_decisions_total',
    help: 'Route decisions committed, by outcome (the route decision, or refused).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const retryDelay = new Histogram({
    name: 'recourse_retry_delay_seconds',
    help: 'Delay from a decision to the deadline it armed for a wait.',
    buckets: retryDelayBuckets,
    registers,
  });
  const switches = new Counter({
    name: 'recourse_candidate_switches_total',
    help: 'Switches to a successor candidate (transitions into switching).',
    registers,
  });
  new Gauge({
    name: 'recourse_routes',
    help: 'Stored routes by state, read from the store at scrape time.',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const counts = await store.countRoutes();
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    },
  });
  const actions = new Counter({
    name: 'recourse_route_actions_total',
    help: 'Route actions handled by the server, by action and result.',
    labelNames: ['action', 'result'] as const,
    registers,
  });
  const lateness = new Histogram({
    name: 'recourse_timer_lateness_seconds',
    help: 'How late a deadline firing ran after the deadline it fired for.',
    buckets: latenessBuckets,
    registers,
  });
  new Gauge({
    name: 'recourse_circuits',
    help: 'Stored shared-resource circuits by state, read from the store at scrape time.',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const counts = await store.countCircuits();
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    },
  });
  const http = new Histogram({
    name: 'recourse_http_request_duration_seconds',
    help: 'HTTP request durations, by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
  });
  new Gauge({
    name: 'recourse_build_info',
    help: 'Always 1; the labels name the build and the catalogue version.',
    labelNames: ['version', 'catalogue_version'] as const,
    registers,
  }).set(
    {
      version: versionLabel(options.buildInfo.version),
      catalogue_version: versionLabel(options.buildInfo.catalogueVersion),
    },
    1,
  );

  const onEvent = (event: EngineEvent): void => {
    switch (event.type) {
      case 'transition': {
        decisions.inc({ outcome: decisionLabel(event.decision) });
        const c = event.classification;
        if (c !== null) {
          failures.inc({ provider: providerLabel(c.provider_id), code: codeLabel(c), class: classLabel(c) });
        }
        if (event.route.state === 'switching') switches.inc();
        const deadline = deadlineOf(event.route);
        if (deadline !== null) retryDelay.observe(Math.max(0, deadline - event.atMs) / 1000);
        if (event.dueAtMs !== null) lateness.observe(Math.max(0, event.atMs - event.dueAtMs) / 1000);
        return;
      }
      // Decisions that change only the attempt's bookkeeping are told as their own events.
      case 'dispatch_acknowledged':
        decisions.inc({ outcome: 'dispatch_acknowledged' });
        return;
      case 'prompt':
        decisions.inc({ outcome: 'prompt' });
        return;
      case 'refused':
        decisions.inc({ outcome: 'refused' });
        return;
      default:
        return;
    }
  };
  const unsubscribe = options.recourse.engine.subscribe(onEvent);

  return {
    registry,
    contentType: registry.contentType,
    observeHttp(route, method, status, seconds) {
      if (!Number.isFinite(seconds) || seconds < 0) return;
      http.observe(
        { route: httpRouteLabel(route), method: httpMethodLabel(method), status: httpStatusLabel(status) },
        seconds,
      );
    },
    observeAction(action, result) {
      actions.inc({ action: actionLabel(action), result: actionResultLabel(result) });
    },
    render: () => registry.metrics(),
    close: () => {
      unsubscribe();
    },
  };
}
