import { notACredential, notTheModelCall } from './prose.js';
import type { Rule } from '../rule.js';

/**
 * Round 26: the structured bodies and words of providers the catalogue met less often (hosted-model gateways,
 * cloud model services, Chinese and smaller inference providers) as agents and chat apps quote them, and the
 * services beside a model call that fail in the same words (a CI runner's compute limit, a licence-plate API's
 * throttle, a sign-in flow's key check, a host's suspension page). Each rule reads the shape of a failure rather
 * than one app's sentence; each has fixtures (ids r26-…, r26neg-…) in `catalogue/fixtures/generic.jsonl`.
 */

/** A model call in the same text (an endpoint of a provider API) makes a side service's words the model call's again. */
const modelEndpoint =
  /\/v1\/(?:messages|chat\/completions|completions|responses)\b|:(?:stream)?generatecontent\b|\/backend-api\/codex\/responses/;

export const providerDialectRules: readonly Rule[] = [
  {
    id: 'local.ci_compute_limit.v1',
    description:
      'A CI or cloud runner could not start for its own compute budget ("Failed to start an instance: … Monthly compute limit exceeded"): the build machine, not a model provider\'s quota',
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'medium',
    when: {
      keywords: ['instance', 'compute'],
      text: /\bfailed to start an? (?:instance|runner|virtual machine|vm)\b|\b(?:monthly |daily )?compute (?:minutes |credits )?limit (?:exceeded|reached)\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.plate_recognition_service.v1',
    description:
      'A licence-plate recognition API answered (throttled, refused, failed) while a plate number was read: an image service beside the agent, not its model provider',
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'medium',
    when: {
      keywords: ['plate'],
      text: /\b(?:failed to (?:get|read|recogni[sz]e) (?:the )?(?:licen[cs]e )?plate(?: numbers?)?|(?:licen[cs]e )?plate (?:recogni[sz]er|recognition) (?:api|service|request|error|failed))\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.sign_in_key_check_5xx.v1',
    description:
      'A sign-in flow\'s check of a pasted key failed on the server ("Login failed: … API key validation failed (500): Error listing deployed models"): the login step\'s own call answered 5xx, the key was not refused',
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'medium',
    when: {
      keywords: ['validation'],
      text: /\b(?:login|sign[- ]?in|setup) failed\b[^\n]{0,80}\b(?:api ?key|key|credentials?) validation failed \(5\d\d\)/,
    },
  },
  {
    id: 'local.host_suspended_page.v1',
    description:
      'A hosting platform\'s page says the deployment itself is suspended ("<title>Service Suspended</title> … This service has been suspended"): the user\'s own relay or app is off, not a provider refusing credentials or busy',
    tier: 'signature',
    priority: 60,
    code: 'local_runtime',
    confidence: 'medium',
    when: {
      keywords: ['suspended'],
      text: /<title>\s{0,4}service suspended\s{0,4}<\/title>|\bthis service has been suspended\b/,
    },
  },
  {
    id: 'provider.hosted_function_degraded.v1',
    description:
      "A hosted model function is degraded on the provider's side (\"Function id '…': DEGRADED function cannot be invoked\"), even when relayed as a 400: the service behind that model is down for now",
    tier: 'signature',
    priority: 6,
    code: 'provider_unavailable',
    confidence: 'high',
    when: {
      keywords: ['degraded'],
      text: /\bdegraded function cannot be invoked\b/,
    },
  },
  {
    id: 'provider.foundation_model_unresolved.v1',
    description:
      'A cloud model service cannot resolve the foundation model from the identifier it was given: the model is not available under that id there',
    tier: 'signature',
    priority: 6,
    code: 'model_unavailable',
    confidence: 'high',
    when: {
      keywords: ['foundation'],
      text: /\bcould not resolve the foundation model\b/,
    },
  },
  {
    id: 'provider.token_exception_words.v1',
    description:
      'A provider SDK refused its access token in an exception or certification message ("InvalidTokenError: … access token", "IAM Certification failed"): credentials present but not accepted',
    tier: 'signature',
    priority: 6,
    code: 'auth_required',
    confidence: 'medium',
    when: {
      keywords: ['invalidtokenerror', 'certification'],
      text: /\binvalidtokenerror\b[^\n]{0,80}(?:access token|访问令牌|api ?key)|\biam certification failed\b/,
      unless: notACredential,
    },
  },
  {
    id: 'provider.api_key_not_carried.v1',
    description:
      'The provider says the request carried no key ("Please carry the API secret key in the \'Authorization\' field", "You did not pass an authentication token"): credentials absent, not refused',
    tier: 'signature',
    priority: 6,
    code: 'missing_credentials',
    confidence: 'high',
    when: {
      keywords: ['carry', 'pass'],
      text: /\bplease carry the api (?:secret )?key\b|\byou did not pass an? (?:authentication token|api ?key)\b/,
    },
  },
  {
    id: 'provider.concurrent_requests_limit.v1',
    description:
      'A provider or relay refused a request over its concurrency limit ("Too many concurrent requests. Limit: 1 concurrent requests"): a short-window throttle that clears as requests finish',
    tier: 'signature',
    // A broad phrase: a provider's own structured reason or status rule, when one matches, decides instead.
    generic: true,
    code: 'rate_limited',
    confidence: 'medium',
    when: {
      keywords: ['concurrent'],
      text: /\btoo many concurrent requests\b/,
      unless: notTheModelCall,
    },
  },
  {
    id: 'provider.key_auth_disabled.v1',
    description:
      'The model resource has key-based authentication switched off ("AuthenticationTypeDisabled", "Key based authentication is disabled for this resource"): the resource and the client disagree on how to sign in, a profile to set up again',
    tier: 'signature',
    priority: 6,
    code: 'provider_not_configured',
    confidence: 'high',
    when: {
      keywords: ['authenticationtypedisabled', 'disabled'],
      text: /\bauthenticationtypedisabled\b|\bkey based authentication is disabled for this resource\b/,
      // A search service's indexer or skillset calling the model resource for embeddings is not the agent's call.
      unless: /\b(?:skillset|indexer|enrichment)\b|\bembedding ?skill\b/,
    },
  },
  {
    id: 'provider.api_version_unsupported.v1',
    description:
      'The API version the client sends is missing or not served ("Model … is enabled only for api versions … and later", "API version not supported", "An API version is required for the Azure API type"): the provider profile is configured wrongly',
    tier: 'signature',
    priority: 6,
    code: 'provider_not_configured',
    confidence: 'high',
    when: {
      keywords: ['version', 'versions'],
      text: /\bis enabled only for api versions?\b|\bapi version not supported\b|\bunsupported api[- ]version\b|\ban api version is required for the [a-z]{1,20} api type\b/,
    },
  },
  {
    id: 'provider.credential_chain_empty.v1',
    description:
      'A cloud credential chain found no credential in any of its sources ("DefaultAzureCredential failed to retrieve a token from the included credentials"): credentials absent for the model client',
    tier: 'signature',
    // Above local.runtime.v1: the chain lists the tools it looked for ("Azure CLI not found on path").
    priority: 45,
    code: 'missing_credentials',
    confidence: 'medium',
    when: {
      keywords: ['defaultazurecredential', 'chainedtokencredential'],
      text: /\b(?:defaultazurecredential|chainedtokencredential) failed to retrieve a token\b/,
      // The same chain signing in to a key vault or a storage account is not the model call.
      unless: /vault\.azure\.net|\bkey ?vault\b|\bblob\b|\bstorage account\b/,
    },
  },
  {
    id: 'provider.key_incorrect_cjk.v1',
    description:
      'A Chinese-language app or relay says its API key is incorrect or invalid ("API Key 不正确或为空", "API Key 无效"): credentials present but not accepted',
    tier: 'signature',
    priority: 6,
    code: 'auth_required',
    confidence: 'medium',
    when: {
      keywords: ['不正', '无效'],
      text: /\bapi ?key\s{0,2}(?:不正确|无效)/,
    },
  },
  {
    id: 'provider.responses_path_not_served.v1',
    description:
      'A 404 for the Responses API path on a provider host that serves only chat completions ("unexpected status 404 Not Found … url: https://api.deepseek.com/responses"): the client\'s wire API is set up wrongly for that provider',
    tier: 'signature',
    priority: 6,
    code: 'provider_not_configured',
    confidence: 'medium',
    when: {
      keywords: ['responses'],
      text: /\bunexpected status 404\b[^\n]{0,60}\burl: https?:\/\/(?!chatgpt\.com\/|api\.openai\.com\/|[a-z0-9-]{1,63}\.openai\.azure\.com\/)[^\s,]{1,120}\/responses\b/,
    },
  },
];
