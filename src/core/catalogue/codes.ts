/**
 * The semantic codes of the catalogue and the policy class each one belongs to.
 *
 * The class is the stable policy input; the code is the authoritative diagnostic detail. Every provider code
 * belongs to exactly one class (a registry test enforces it). Non-provider codes name errors that Recourse
 * recognizes but never recovers from: they always classify as `unclassified` with reason `not_provider`.
 */

/** The two configurable policy classes. `unclassified` is a classification state, never a class of a policy. */
export const policyClasses = ['transient', 'hard'] as const;
export type PolicyClass = (typeof policyClasses)[number];

export const transientCodes = [
  'network_unavailable',
  'provider_unavailable',
  'provider_overloaded',
  'model_capacity',
  'rate_limited',
  'agent_transport_lost',
] as const;

export const hardCodes = [
  'quota_limited',
  'subscription_required',
  'auth_required',
  'missing_credentials',
  'provider_not_configured',
  'model_unavailable',
] as const;

export type TransientCode = (typeof transientCodes)[number];
export type HardCode = (typeof hardCodes)[number];
export type ProviderCode = TransientCode | HardCode;

/** Recognized errors that are not provider failures: they keep their owner and never drive recovery. */
export const nonProviderCodes = [
  'context_length_exceeded',
  'request_too_large',
  'bad_request',
  'cancelled',
  'local_permission',
  'local_runtime',
  'task_error',
  'repository_error',
  'resume_state',
  'side_channel',
] as const;
export type NonProviderCode = (typeof nonProviderCodes)[number];

export type CatalogueCode = ProviderCode | NonProviderCode;

export const scopes = ['provider', 'account', 'model', 'profile', 'request'] as const;
export type Scope = (typeof scopes)[number];

interface ProviderCodeInfo {
  readonly class: PolicyClass;
  /** The scope a failure of this code usually has; a rule may narrow it. */
  readonly scope: Scope | null;
  /** Human words for notices and summaries (never raw provider text). */
  readonly summary: string;
}

/**
 * Exactly one class per provider code. Declared as one table so a missing or doubled assignment is a type
 * error here and a failing registry test, never a silent runtime default.
 */
export const providerCodeInfo = {
  network_unavailable: { class: 'transient', scope: null, summary: 'Network unavailable' },
  provider_unavailable: { class: 'transient', scope: 'provider', summary: 'Provider unavailable' },
  provider_overloaded: { class: 'transient', scope: 'provider', summary: 'Provider overloaded' },
  model_capacity: { class: 'transient', scope: 'model', summary: 'Model at capacity' },
  rate_limited: { class: 'transient', scope: 'account', summary: 'Rate limited' },
  agent_transport_lost: { class: 'transient', scope: 'request', summary: 'Agent transport lost' },
  quota_limited: { class: 'hard', scope: 'account', summary: 'Usage quota exhausted' },
  subscription_required: { class: 'hard', scope: 'account', summary: 'Subscription required' },
  auth_required: { class: 'hard', scope: 'profile', summary: 'Authentication required' },
  missing_credentials: { class: 'hard', scope: 'profile', summary: 'Credentials missing' },
  provider_not_configured: { class: 'hard', scope: 'profile', summary: 'Provider not configured' },
  model_unavailable: { class: 'hard', scope: 'model', summary: 'Model unavailable' },
} as const satisfies Record<ProviderCode, ProviderCodeInfo>;

/**
 * A stated wait of this many seconds or more turns a `rate_limited` match into `quota_limited`: the window,
 * not the wording, decides (corpus label guide; REQUIREMENTS CLS-10 decision "confirmed short").
 */
export const longWindowSeconds = 3600;

const providerCodeSet: ReadonlySet<string> = new Set<string>([...transientCodes, ...hardCodes]);
const nonProviderCodeSet: ReadonlySet<string> = new Set<string>(nonProviderCodes);

export function isProviderCode(code: string): code is ProviderCode {
  return providerCodeSet.has(code);
}

export function isNonProviderCode(code: string): code is NonProviderCode {
  return nonProviderCodeSet.has(code);
}

/** The class of a code, or null when the code has no class assignment (runtime `unclassified`). */
export function classOfCode(code: string): PolicyClass | null {
  return isProviderCode(code) ? providerCodeInfo[code].class : null;
}
