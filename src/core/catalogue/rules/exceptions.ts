import {
  connectRpcError,
  litellmCatchAll,
  malformedResponse,
  notTheModelCall,
  notTheProviderAccount,
} from './prose.js';
import type { Rule, RuleTier } from '../rule.js';
import type { CatalogueCode } from '../codes.js';

/**
 * SDK exception class names (the envelope's `name`, or `module.ClassName:` in a traceback or repr), from the
 * OpenAI, Anthropic, Google, AWS, LiteLLM, httpx and requests clients. Broad classes are generic; a class that
 * pins one cause (`ContextWindowExceededError`, `ThrottlingException`'s siblings) is specific.
 */
interface ExceptionSpec {
  readonly id: string;
  readonly names: readonly string[];
  readonly code: CatalogueCode;
  readonly generic?: boolean;
  readonly confidence?: 'high' | 'medium' | 'low';
  /** Weaker than the structured default: a catch-all class name says less than any message beside it. */
  readonly tier?: RuleTier;
  /** Text that overrules the class name (a response that arrived and did not parse is no connection failure). */
  readonly unless?: RegExp;
}

const specs: readonly ExceptionSpec[] = [
  {
    id: 'sdk.rate_limit_error.v1',
    names: [
      'ratelimiterror',
      'toomanyrequests',
      'toomanyrequestserror',
      'throttlingexception',
      'ratelimitexceeded',
      'ratelimitexceedederror',
    ],
    code: 'rate_limited',
    generic: true,
    unless: notTheModelCall,
  },
  {
    id: 'sdk.connection_error.v1',
    names: [
      'apiconnectionerror',
      'connecterror',
      'connectionerror',
      'connecttimeout',
      'connecttimeouterror',
      'newconnectionerror',
      'maxretryerror',
      'clientconnectorerror',
      'serverdisconnectederror',
    ],
    code: 'network_unavailable',
    generic: true,
    unless: new RegExp(
      `${malformedResponse.source}|${connectRpcError.source}|${notTheModelCall.source}|${litellmCatchAll.source}`,
    ),
  },
  {
    id: 'sdk.timeout_error.v1',
    names: ['apitimeouterror', 'readtimeout', 'readtimeouterror', 'timeoutexception', 'deadlineexceeded'],
    code: 'network_unavailable',
    generic: true,
    unless: notTheModelCall,
  },
  {
    id: 'sdk.authentication_error.v1',
    names: [
      'authenticationerror',
      'unauthenticated',
      'unauthorizederror',
      'unrecognizedclientexception',
      'expiredtokenexception',
      'invalidsignatureexception',
    ],
    code: 'auth_required',
    generic: true,
    confidence: 'high',
    // A named service's own sign-in (an exporter, a registry pull, a sandbox): no provider account refused.
    unless: notTheProviderAccount,
  },
  { id: 'sdk.invalid_api_key_error.v1', names: ['invalidapikeyerror'], code: 'auth_required' },
  {
    id: 'sdk.permission_denied_error.v1',
    names: ['permissiondeniederror', 'permissiondenied', 'accessdeniedexception'],
    code: 'auth_required',
    generic: true,
    confidence: 'low',
  },
  {
    id: 'sdk.not_found_error.v1',
    names: ['notfounderror', 'resourcenotfoundexception'],
    code: 'model_unavailable',
    generic: true,
    confidence: 'low',
  },
  {
    id: 'sdk.internal_server_error.v1',
    names: [
      'internalservererror',
      'internalserverexception',
      // LiteLLM's class for an upstream 502.
      'badgatewayerror',
      'servererror',
      'modelerrorexception',
      'modeltimeoutexception',
    ],
    code: 'provider_unavailable',
    generic: true,
    unless: notTheModelCall,
  },
  {
    // A catch-all base class (LiteLLM, OpenAI): with nothing else said it is not a reason to act.
    id: 'sdk.api_error.v1',
    names: ['apierror'],
    code: 'provider_unavailable',
    generic: true,
    confidence: 'low',
    tier: 'pattern',
  },
  {
    id: 'sdk.service_unavailable_error.v1',
    names: ['serviceunavailableerror', 'serviceunavailableexception', 'serviceunavailable'],
    code: 'provider_unavailable',
    generic: true,
    confidence: 'high',
    unless: notTheModelCall,
  },
  {
    id: 'sdk.overloaded_error.v1',
    names: ['overloadederror'],
    code: 'provider_overloaded',
    // Text generation servers raise OverloadedError for one model at capacity: the message names it.
    unless: /\bmodel (?:is )?(?:currently )?overloaded\b/,
  },
  { id: 'sdk.model_not_ready.v1', names: ['modelnotreadyexception'], code: 'model_capacity' },
  {
    id: 'sdk.stream_error.v1',
    names: [
      'modelstreamerrorexception',
      'remoteprotocolerror',
      'chunkedencodingerror',
      'incompleteread',
      'protocolerror',
    ],
    code: 'agent_transport_lost',
    generic: true,
    unless: notTheModelCall,
  },
  {
    id: 'sdk.bad_request_error.v1',
    names: [
      'badrequesterror',
      'unprocessableentityerror',
      'validationexception',
      'invalidargument',
      'invalidrequesterror',
    ],
    code: 'bad_request',
    generic: true,
  },
  {
    id: 'sdk.context_window_error.v1',
    names: ['contextwindowexceedederror'],
    code: 'context_length_exceeded',
  },
  { id: 'sdk.request_too_large_error.v1', names: ['requesttoolargeerror'], code: 'request_too_large' },
  {
    id: 'sdk.budget_exceeded_error.v1',
    // A gateway's `ExceededBudget: User=... over budget` is the key's spend budget; a task's own budget ("Task
    // exceeded maximum budget of $10.00", an agent's per-run cap) is the run's setting, not an account's quota.
    names: ['budgetexceedederror', 'servicequotaexceededexception', 'exceededbudget'],
    code: 'quota_limited',
    unless:
      /\b(?:task|run|session|conversation|agent|step) (?:has )?exceeded (?:its |the )?(?:maximum |max )?budget\b/,
  },
  {
    id: 'sdk.user_abort_error.v1',
    names: ['apiuseraborterror', 'aborterror', 'cancellederror'],
    code: 'cancelled',
  },
];

export const exceptionRules: readonly Rule[] = specs.map((spec): Rule => ({
  id: spec.id,
  description: `SDK exception ${spec.names.join(', ')}`,
  tier: spec.tier ?? 'structured',
  ...(spec.generic ? { generic: true } : {}),
  code: spec.code,
  confidence: spec.confidence ?? (spec.generic ? 'medium' : 'high'),
  when: { keywords: spec.names, ...(spec.unless ? { unless: spec.unless } : {}) },
}));
