import {
  classificationClasses,
  isNonProviderCode,
  isProviderCode,
  manualActions,
  routeDecisions,
  type Classification,
} from '../../core/index.js';

/**
 * Label values of the metrics. Every value comes from a closed set (a route decision, a registry code, a manual
 * action) or is cut down to a short identifier: a label value is a new time series for as long as the process
 * lives, so a route id, session id or a provider's text in one would grow the scrape without bound and publish
 * what the caller sent. Anything that does not fit becomes `other`.
 */
const other = 'other';

/** What the server reports for a route action (`recourse_route_actions_total{result}`). */
export const routeActionResults = [
  'applied',
  'unchanged',
  'refused',
  'not_found',
  'invalid',
  'conflict',
  'error',
] as const;
export type RouteActionResult = (typeof routeActionResults)[number];

/** The route actions the server exposes: the engine's manual actions. */
export type RouteAction = (typeof manualActions)[number];

/** `refused` is a decision too (the engine refused the event); the rest are the route decisions. */
const decisionOutcomes: ReadonlySet<string> = new Set<string>([...routeDecisions, 'refused']);

export function decisionLabel(decision: string): string {
  return decisionOutcomes.has(decision) ? decision : other;
}

export function actionLabel(action: string): string {
  return (manualActions as readonly string[]).includes(action) ? action : other;
}

export function actionResultLabel(result: string): string {
  return (routeActionResults as readonly string[]).includes(result) ? result : other;
}

/** A catalogue code, `none` when the classifier recognized nothing. */
export function codeLabel(classification: Classification): string {
  const code = classification.code;
  if (code === null) return 'none';
  return isProviderCode(code) || isNonProviderCode(code) ? code : other;
}

export function classLabel(classification: Classification): string {
  return (classificationClasses as readonly string[]).includes(classification.class)
    ? classification.class
    : other;
}

/**
 * A label of caller-supplied values, bounded twice: each value must fit `fits` (a short identifier, never an id
 * or a key), and only the first `limit` distinct values are kept; later ones are `other`, so no caller can grow
 * the series without bound.
 */
export class BoundedLabels {
  private readonly seen = new Set<string>();

  constructor(
    private readonly fits: (value: string) => boolean,
    private readonly limit: number,
  ) {}

  of(value: string): string {
    if (!this.fits(value)) return other;
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.limit) return other;
    this.seen.add(value);
    return value;
  }
}

/** A word of an identifier: lower-case letters first, at most 32 characters, at most 3 digits (ids are digits). */
function isWord(value: string): boolean {
  return /^[a-z][a-z0-9._-]{0,31}$/.test(value) && (value.match(/[0-9]/g)?.length ?? 0) <= 3;
}

/** Provider ids (the classification's, already a safe identifier): 32 distinct at most; `unknown` when none. */
export function providerLabels(): (provider: string | null) => string {
  const labels = new BoundedLabels(isWord, 32);
  return (provider) => (provider === null ? 'unknown' : labels.of(provider.toLowerCase()));
}

/**
 * Route templates as the HTTP framework names them (`/v1/routes/:id`): literal segments are words, parameters are
 * `:name`, `*` is a wildcard; `unmatched` is the server's name for a request no route matched, `ui` its name for
 * the web UI's pages and assets. A concrete URL
 * (`/v1/routes/6f1c...`) fails the word test; one that passes it anyway counts against the limit of 64 templates.
 */
export function httpRouteLabels(): (route: string) => string {
  const labels = new BoundedLabels(isRouteTemplate, 64);
  return (route) => labels.of(route);
}

function isRouteTemplate(route: string): boolean {
  // `ui`: every page and asset of the web UI (their paths are the browser's, so they never become labels).
  if (route === '/' || route === 'unmatched' || route === 'ui') return true;
  const segments = route.split('/');
  return (
    segments.length <= 13 &&
    segments[0] === '' &&
    segments.slice(1).every((s) => s === '*' || /^:[A-Za-z_][A-Za-z0-9_]{0,31}$/.test(s) || isWord(s))
  );
}

const httpMethods: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
]);

export function httpMethodLabel(method: string): string {
  const upper = method.toUpperCase();
  return httpMethods.has(upper) ? upper : other;
}

export function httpStatusLabel(status: number): string {
  return Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : other;
}

/** A version string (`0.1.0`, `2026.12.01-1`): at most 64 characters of version characters, else `unknown`. */
export function versionLabel(version: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/.test(version) ? version : 'unknown';
}
