import { serverAuthInstructions } from './tool-accounts.js';
import type { Rule } from '../rule.js';
import type { CatalogueCode } from '../codes.js';
import { unreadHtmlResponse } from './prose.js';

/**
 * Structured error fields in provider bodies: Anthropic `error.type`, OpenAI `error.code`, Google `status` and
 * `reason`, Cursor `error`, Codex `codexErrorInfo`, ACP `data.errorKind`. Catch-all values (`api_error`,
 * `rate_limit_exceeded`, `RESOURCE_EXHAUSTED`) are generic: a specific message outranks them.
 */
interface FieldRuleSpec {
  readonly id: string;
  readonly description: string;
  readonly field:
    'type' | 'code' | 'status' | 'reason' | 'error' | 'errorkind' | 'codexerrorinfo' | 'error_type';
  readonly values: readonly string[];
  readonly code: CatalogueCode;
  readonly generic?: boolean;
  readonly confidence?: 'high' | 'medium' | 'low';
  /** Text that vetoes the rule although the field matches. */
  readonly unless?: RegExp;
  /** Precedence among generic structured rules (HTTP statuses are -10). */
  readonly priority?: number;
}

const specs: readonly FieldRuleSpec[] = [
  // A model server's error_type (`{"error_type": "overloaded", "error": "..."}`, round 36): its queue is full, whatever
  // status it came under (a 400 in the test suites that raise it).
  {
    id: 'provider.error_type_overloaded.v1',
    description: 'A model server error_type overloaded (its request queue is full)',
    field: 'error_type',
    values: ['overloaded'],
    code: 'provider_overloaded',
  },
  // Anthropic error.type
  {
    id: 'anthropic.overloaded_error.v1',
    description: 'Anthropic overloaded_error (HTTP 529)',
    field: 'type',
    values: ['overloaded_error'],
    code: 'provider_overloaded',
  },
  {
    id: 'anthropic.rate_limit_error.v1',
    description: 'Anthropic rate_limit_error',
    field: 'type',
    values: ['rate_limit_error'],
    code: 'rate_limited',
    generic: true,
  },
  {
    id: 'anthropic.authentication_error.v1',
    description: 'Anthropic authentication_error',
    field: 'type',
    values: ['authentication_error'],
    code: 'auth_required',
    generic: true,
    confidence: 'high',
  },
  {
    id: 'anthropic.permission_error.v1',
    description: 'Anthropic permission_error alone is ambiguous',
    field: 'type',
    values: ['permission_error'],
    code: 'auth_required',
    generic: true,
    confidence: 'low',
  },
  {
    id: 'anthropic.not_found_error.v1',
    description: 'Anthropic not_found_error alone is ambiguous (model or endpoint)',
    field: 'type',
    values: ['not_found_error'],
    code: 'model_unavailable',
    generic: true,
    confidence: 'low',
  },
  {
    id: 'anthropic.api_error.v1',
    description: 'Anthropic api_error (internal server error)',
    field: 'type',
    values: ['api_error'],
    code: 'provider_unavailable',
    generic: true,
    // "An API error" is the least a body can say: gateways put it around any status, so a status outranks it. Around
    // an HTML page the client could not parse it says nothing of who failed.
    priority: -20,
    unless: unreadHtmlResponse,
  },
  {
    id: 'anthropic.timeout_error.v1',
    description: 'Anthropic timeout_error',
    field: 'type',
    values: ['timeout_error'],
    code: 'provider_unavailable',
  },
  {
    id: 'anthropic.invalid_request_error.v1',
    description: 'invalid_request_error with no more specific message',
    field: 'type',
    values: ['invalid_request_error'],
    code: 'bad_request',
    generic: true,
  },
  {
    id: 'anthropic.request_too_large.v1',
    description: 'Anthropic request_too_large (HTTP 413)',
    field: 'type',
    values: ['request_too_large'],
    code: 'request_too_large',
  },
  {
    id: 'anthropic.billing_error.v1',
    description: 'Anthropic billing_error',
    field: 'type',
    values: ['billing_error'],
    code: 'quota_limited',
  },
  // OpenAI error.code / error.type
  {
    id: 'openai.insufficient_quota.v1',
    description: 'OpenAI insufficient_quota',
    field: 'code',
    values: ['insufficient_quota'],
    code: 'quota_limited',
  },
  {
    id: 'openai.billing_limit.v1',
    description: 'OpenAI billing hard limit or inactive billing',
    field: 'code',
    values: ['billing_hard_limit_reached', 'billing_not_active'],
    code: 'quota_limited',
    // Relays of the one-api family answer "the group's upstream load is saturated" under this code: the message wins.
    unless: /负载已饱和/,
  },
  {
    id: 'moonshot.rate_limit_reached.v1',
    description: 'Moonshot rate_limit_reached_error type',
    field: 'type',
    values: ['rate_limit_reached_error'],
    code: 'rate_limited',
  },
  {
    id: 'openai.rate_limit_exceeded.v1',
    description: 'OpenAI-style rate_limit_exceeded code',
    field: 'code',
    values: ['rate_limit_exceeded'],
    code: 'rate_limited',
    generic: true,
  },
  {
    id: 'openai.invalid_api_key.v1',
    description: 'OpenAI-style invalid_api_key code',
    field: 'code',
    values: ['invalid_api_key'],
    code: 'auth_required',
    // A gateway that answers a key's spent allowance under this code ("API key reached its usage limit"): the
    // message names the limit, and the limit wins. A key that is a client's unset value ("Incorrect API key provided:
    // undefined") was never configured: provider.missing_credentials.v1 reads it.
    unless:
      /\b(?:reached|exceeded|hit) (?:its|the|your) (?:[\w-]{1,16} )?(?:usage limit|quota)\b|\bapi[ _-]?key provided:? ['"`]?(?:undefined|null|none)\b/,
  },
  {
    id: 'openai.account_deactivated.v1',
    description: 'OpenAI account_deactivated',
    field: 'code',
    values: ['account_deactivated'],
    code: 'auth_required',
  },
  {
    id: 'openai.model_not_found.v1',
    description: 'OpenAI-style model_not_found code',
    field: 'code',
    values: ['model_not_found'],
    code: 'model_unavailable',
  },
  {
    id: 'openai.context_length_exceeded.v1',
    description: 'context_length_exceeded code',
    field: 'code',
    values: ['context_length_exceeded'],
    code: 'context_length_exceeded',
  },
  {
    id: 'openai.unsupported_region.v1',
    description: 'OpenAI unsupported_country_region_territory',
    field: 'code',
    values: ['unsupported_country_region_territory'],
    code: 'provider_not_configured',
  },
  {
    id: 'openai.server_error.v1',
    description: 'OpenAI server_error type',
    field: 'type',
    values: ['server_error'],
    code: 'provider_unavailable',
    generic: true,
  },
  // Azure error.code
  {
    id: 'azure.deployment_not_found.v1',
    description: 'Azure OpenAI DeploymentNotFound',
    field: 'code',
    values: ['deploymentnotfound'],
    code: 'provider_not_configured',
  },
  // Google status and reason
  {
    id: 'google.resource_exhausted.v1',
    description: 'Google RESOURCE_EXHAUSTED (HTTP 429)',
    field: 'status',
    values: ['resource_exhausted'],
    code: 'rate_limited',
    generic: true,
  },
  {
    id: 'google.unavailable.v1',
    description: 'Google UNAVAILABLE or INTERNAL (HTTP 503, 500)',
    field: 'status',
    values: ['unavailable', 'internal', 'deadline_exceeded'],
    code: 'provider_unavailable',
    generic: true,
  },
  {
    id: 'google.unauthenticated.v1',
    description: 'Google UNAUTHENTICATED',
    field: 'status',
    values: ['unauthenticated'],
    code: 'auth_required',
    generic: true,
  },
  {
    id: 'google.permission_denied.v1',
    description: 'Google PERMISSION_DENIED alone is ambiguous',
    field: 'status',
    values: ['permission_denied'],
    code: 'auth_required',
    generic: true,
    confidence: 'low',
  },
  {
    id: 'google.not_found.v1',
    description: 'Google NOT_FOUND alone is ambiguous',
    field: 'status',
    values: ['not_found'],
    code: 'model_unavailable',
    generic: true,
    confidence: 'low',
  },
  {
    id: 'google.invalid_argument.v1',
    description: 'Google INVALID_ARGUMENT with no more specific message',
    field: 'status',
    values: ['invalid_argument'],
    code: 'bad_request',
    generic: true,
  },
  {
    id: 'google.api_key_invalid.v1',
    description: 'Google reason API_KEY_INVALID',
    field: 'reason',
    values: ['api_key_invalid', 'access_token_scope_insufficient', 'access_token_expired'],
    code: 'auth_required',
  },
  {
    id: 'google.model_capacity_exhausted.v1',
    description: 'Google reason MODEL_CAPACITY_EXHAUSTED',
    field: 'reason',
    values: ['model_capacity_exhausted'],
    code: 'model_capacity',
  },
  {
    id: 'google.rate_limit_exceeded.v1',
    description: 'Google reason RATE_LIMIT_EXCEEDED',
    field: 'reason',
    values: ['rate_limit_exceeded', 'ratelimitexceeded'],
    code: 'rate_limited',
    generic: true,
  },
  {
    id: 'google.project_misconfigured.v1',
    description:
      'Google project or API misconfiguration (SERVICE_DISABLED, CONSUMER_INVALID, USER_PROJECT_DENIED)',
    field: 'reason',
    values: [
      'service_disabled',
      'consumer_invalid',
      'user_project_denied',
      'api_key_service_blocked',
      'billing_disabled',
      'iam_permission_denied',
    ],
    code: 'provider_not_configured',
  },
  // Cursor, Codex, ACP adapters
  {
    id: 'cursor.not_authenticated.v1',
    description: 'Cursor error not_authenticated',
    field: 'error',
    values: ['not_authenticated', 'unauthenticated', 'unauthorized'],
    code: 'auth_required',
    // A server spelling out its own scheme ("Provide it via the Authorization header: Bearer <token>", round 31), and
    // a body that is only `{"error": "Unauthorized"}` (round 39): it names no service, and any server answers so.
    unless: new RegExp(
      String.raw`${serverAuthInstructions.source}|^\W{0,8}error\W{1,8}(?:unauthorized|unauthenticated)\W{0,8}$`,
    ),
  },
  {
    id: 'codex.usage_limit_exceeded.v1',
    description: 'Codex codexErrorInfo usageLimitExceeded',
    field: 'codexerrorinfo',
    values: ['usagelimitexceeded'],
    code: 'quota_limited',
    unless: /to use codex with your chatgpt plan/,
  },
  {
    id: 'codex.context_window_exceeded.v1',
    description: 'Codex codexErrorInfo contextWindowExceeded',
    field: 'codexerrorinfo',
    values: ['contextwindowexceeded'],
    code: 'context_length_exceeded',
  },
  {
    id: 'codex.unauthorized.v1',
    description: 'Codex codexErrorInfo unauthorized',
    field: 'codexerrorinfo',
    values: ['unauthorized'],
    code: 'auth_required',
  },
  {
    id: 'codex.internal_server_error.v1',
    description: 'Codex codexErrorInfo internalServerError',
    field: 'codexerrorinfo',
    values: ['internalservererror'],
    code: 'provider_unavailable',
    generic: true,
  },
  {
    id: 'codex.rate_limit_exceeded.v1',
    description: 'Codex codexErrorInfo rateLimitExceeded',
    field: 'codexerrorinfo',
    values: ['ratelimitexceeded'],
    code: 'rate_limited',
    generic: true,
  },
  {
    id: 'codex.server_overloaded.v1',
    description:
      'Codex codexErrorInfo serverOverloaded (Codex renders it as "Selected model is at capacity")',
    field: 'codexerrorinfo',
    values: ['serveroverloaded'],
    code: 'model_capacity',
  },
  {
    id: 'codex.connection_failed.v1',
    description: 'Codex codexErrorInfo httpConnectionFailed or responseStreamConnectionFailed',
    field: 'codexerrorinfo',
    values: ['httpconnectionfailed', 'responsestreamconnectionfailed'],
    code: 'network_unavailable',
  },
  {
    id: 'codex.stream_disconnected.v1',
    description: 'Codex codexErrorInfo responseStreamDisconnected',
    field: 'codexerrorinfo',
    values: ['responsestreamdisconnected'],
    code: 'agent_transport_lost',
  },
  {
    id: 'codex.bad_request.v1',
    description: 'Codex codexErrorInfo badRequest',
    field: 'codexerrorinfo',
    values: ['badrequest'],
    code: 'bad_request',
  },
  {
    id: 'codex.sandbox_error.v1',
    description: 'Codex codexErrorInfo sandboxError',
    field: 'codexerrorinfo',
    values: ['sandboxerror'],
    code: 'local_permission',
  },
  {
    id: 'acp.error_kind_server.v1',
    description: 'ACP data.errorKind server_error',
    field: 'errorkind',
    values: ['server_error', 'api_error', 'internal_server_error'],
    code: 'provider_unavailable',
    generic: true,
  },
  {
    id: 'acp.error_kind_overloaded.v1',
    description: 'ACP data.errorKind overloaded',
    field: 'errorkind',
    values: ['overloaded', 'overloaded_error'],
    code: 'provider_overloaded',
    generic: true,
  },
  {
    id: 'acp.error_kind_rate_limit.v1',
    description: 'ACP data.errorKind rate_limit',
    field: 'errorkind',
    values: ['rate_limit', 'rate_limited', 'rate_limit_error'],
    code: 'rate_limited',
    generic: true,
  },
  {
    id: 'acp.error_kind_auth.v1',
    description: 'ACP data.errorKind authentication',
    field: 'errorkind',
    values: ['authentication', 'authentication_error', 'auth', 'unauthorized'],
    code: 'auth_required',
    generic: true,
  },
];

export const errorFieldRules: readonly Rule[] = specs.map((spec): Rule => ({
  id: spec.id,
  description: spec.description,
  tier: 'structured',
  ...(spec.generic ? { generic: true } : {}),
  ...(spec.priority === undefined ? {} : { priority: spec.priority }),
  code: spec.code,
  confidence: spec.confidence ?? (spec.generic ? 'medium' : 'high'),
  when: { fields: { [spec.field]: spec.values }, ...(spec.unless ? { unless: spec.unless } : {}) },
}));
