import { retriableCategories, type PlanErrorCategory } from './categories.js';
import { planRules } from './plan-rules.js';
import type { CatalogueCode } from '../catalogue/codes.js';
import { classify } from '../classify/classify.js';
import { catalogueRules } from '../catalogue/registry.js';

const rulesById = new Map(catalogueRules.map((rule) => [rule.id, rule]));

/**
 * How provider codes map to plan categories (REQUIREMENTS PLN-01 decision): transient codes are `transient`,
 * model/quota/subscription and token-limit errors are `provider`, credentials are `authentication`, provider
 * misconfiguration is `configuration`; a repository merge conflict is `merge_conflict`.
 */
const categoryOfCode: Partial<Record<CatalogueCode, PlanErrorCategory>> = {
  network_unavailable: 'transient',
  provider_unavailable: 'transient',
  provider_overloaded: 'transient',
  model_capacity: 'transient',
  rate_limited: 'transient',
  agent_transport_lost: 'transient',
  quota_limited: 'provider',
  subscription_required: 'provider',
  model_unavailable: 'provider',
  context_length_exceeded: 'provider',
  request_too_large: 'provider',
  auth_required: 'authentication',
  missing_credentials: 'authentication',
  provider_not_configured: 'configuration',
  repository_error: 'merge_conflict',
};

/**
 * Where a report gives no exception type, the one its message opens with, or its last line does (a Python
 * traceback ends `KeyError: 'x'`; JavaScript's `String(error)` is `TypeError: ...`): a dotted name ending in
 * `Error`, `Exception` or `Denied`, then a colon. Null when neither line starts so.
 */
function typeNamedIn(message: string): string | null {
  const head = message.slice(0, 8192);
  const tail = message.slice(-8192);
  const lastLine = tail.slice(tail.trimEnd().lastIndexOf('\n') + 1);
  for (const line of [head, lastLine]) {
    const match = /^\s*((?:[A-Za-z_]\w{0,80}\.){0,8}[A-Za-z_]\w{0,80}(?:Error|Exception|Denied))\s*:/.exec(
      line,
    );
    if (match !== null) return match[1]!;
  }
  return null;
}

/**
 * The category of a plan error: the provider catalogue is asked first, then the plan rules (merge conflicts,
 * validation, configuration, resources, authorization, provider token limits, transient and internal errors),
 * with the exception type the message names when none is given; anything else is `unknown`, which is not
 * retriable. Pure and deterministic.
 */
export function classifyPlanError(message: string, exceptionType: string | null = null): PlanErrorCategory {
  const type = exceptionType ?? typeNamedIn(message);
  const name = type?.split('.').pop() ?? '';
  const classification = classify(
    { kind: 'sdk_exception', name: name === '' ? 'Error' : name, message },
    { now: 0 },
  );
  const fromCatalogue = classification.code === null ? undefined : categoryOfCode[classification.code];
  if (
    fromCatalogue !== undefined &&
    (classification.class !== 'unclassified' || classification.reason === 'not_provider')
  ) {
    return fromCatalogue;
  }
  // A low-confidence catalogue match (a generic SDK name such as a permission-denied error) withholds its code from
  // provider routing; here it may only make a plan escalate, never earn it an automatic retry.
  if (classification.reason === 'low_confidence' && classification.classifier_rule !== null) {
    const code = rulesById.get(classification.classifier_rule)?.code;
    const cautious = code === undefined ? undefined : categoryOfCode[code];
    if (cautious !== undefined && !retriableCategories[cautious]) return cautious;
  }
  const lowerName = name.toLowerCase();
  const lowerMessage = message.slice(0, 8192).toLowerCase();
  for (const rule of planRules) {
    if (
      rule.exceptions.includes(lowerName) ||
      (rule.message !== undefined && rule.message.test(lowerMessage))
    )
      return rule.category;
  }
  return 'unknown';
}
