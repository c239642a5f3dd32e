import type { Rule } from '../rule.js';

/**
 * Round 25: the words peer projects feed their own error-mapping tests (a gateway's router and budgets, an agent's
 * plan limits, an MCP client's HTTP transport, a sandbox beside the model call, Bedrock behind an OpenAI-style
 * client). Each rule reads the shape of a failure, not one vendor's sentence; each has fixtures (ids r25-…,
 * r25pos-…, r25neg-…) in `catalogue/fixtures/generic.jsonl`.
 */

/** A model call in the same text (an endpoint of a provider API) makes a tool's words the model call's again. */
const modelEndpoint =
  /\/v1\/(?:messages|chat\/completions|completions|responses)\b|\/chat\/completions\b|:(?:stream)?generatecontent\b/;

/** A provider's own exception wrapped by a gateway (`OpenAIException - ...`) names the failure itself. */
const wrappedProviderException = /\b[a-z][\w]{1,40}exception - /;

export const peerSuiteRules: readonly Rule[] = [
  {
    id: 'local.gateway_fallback_lookup.v1',
    description:
      "A gateway's router found no fallback group for a model (`No fallback model group found for M`): its own routing table, which says nothing of why the first call failed",
    tier: 'signature',
    // Above every status rule, whose 500 the gateway wraps this in.
    priority: 32,
    code: 'local_runtime',
    confidence: 'medium',
    when: {
      keywords: ['fallback'],
      text: /\bno fallback model group found\b/,
      // The provider's exception the fallback followed is the failure to read.
      unless: wrappedProviderException,
    },
  },
  {
    id: 'local.mcp_http_transport.v1',
    description:
      "An MCP client's HTTP transport failed or its MCP session expired (`MCP HTTP Transport Error: ...`): the tool server, not the model call",
    tier: 'signature',
    // Above provider.invalid_credentials.v1 (0), which reads "session expired" as a credential's.
    priority: 32,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['mcp'],
      text: /\bmcp http transport error\b|\bthe mcp session (?:has )?expired\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.sandbox_credentials.v1',
    description:
      "A code sandbox beside the agent refused or lacks its own credentials (`Sandbox authentication failed`, a sandbox API key missing): the sandbox's account, not the model provider's",
    tier: 'signature',
    priority: 32,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['sandbox', 'sandboxauthenticationerror'],
      text: /\bsandbox (?:authentication|auth|credentials?|api key|token)\b[^\n]{0,20}\b(?:failed|invalid|missing|expired|refused|not set|required)\b|\b[\w]{0,30}sandboxauthenticationerror\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'provider.usage_cap_reached.v1',
    description:
      'A cap on inference, usage or spend reached (`Inference cap reached`, `INFERENCE_CAP_ERROR`): the account stops until the cap moves, like a quota at its end',
    tier: 'signature',
    code: 'quota_limited',
    confidence: 'medium',
    when: {
      keywords: ['cap', 'inference_cap_error'],
      text: /\b(?:inference|usage|spend|spending) cap (?:has been |was )?(?:reached|hit|exceeded)\b|\binference_cap_error\b/,
    },
  },
  {
    id: 'provider.subscription_models_no_access.v1',
    description:
      "No access to a plan's subscription models (`No access to X subscription models yet. Subscribe to X`): the account needs the plan",
    tier: 'signature',
    code: 'subscription_required',
    confidence: 'medium',
    when: {
      keywords: ['subscription'],
      text: /\bno access to (?:[\w.-]{1,30} ){0,3}subscription (?:models?|plans?|tiers?)\b/,
    },
  },
  {
    id: 'provider.model_denied_by_configuration.v1',
    description:
      "A gateway refuses a model because of its own configuration (`Not allowed to access model due to tags configuration`): the setting decides, not the model's existence",
    tier: 'signature',
    // Above provider.model_unavailable.v1 (3), which reads "not allowed to access model" as the model's.
    priority: 6,
    code: 'provider_not_configured',
    confidence: 'medium',
    when: {
      keywords: ['configuration'],
      text: /\bnot allowed to access (?:this |the )?model due to [\w -]{1,40}configuration\b/,
    },
  },
  {
    id: 'provider.no_deployments_for_model.v1',
    description:
      "A gateway's router has no deployment free for the model (`no deployments available for this model`), whatever status it came under: every deployment is busy or cooling down",
    tier: 'signature',
    code: 'model_capacity',
    confidence: 'medium',
    when: {
      keywords: ['deployments'],
      text: /\bno deployments available for (?:this|the|that|the requested) model\b/,
    },
  },
  {
    id: 'provider.endpoint_without_chat_completions.v1',
    description:
      'The endpoint called does not serve chat completions (`AWS does not support chat completions here`): a client pointed at the wrong API surface',
    tier: 'signature',
    code: 'provider_not_configured',
    confidence: 'medium',
    when: {
      keywords: ['completions'],
      text: /\b(?:does not|doesn't|do not) support (?:the )?chat[ /_]completions(?: api| endpoint)?(?: here| on this endpoint| at this endpoint)?\b/,
    },
  },
];
