import { notACredential, notTheModelCall } from './prose.js';
import type { Rule } from '../rule.js';

/**
 * Round 23: credential, plan, quota and configuration failures in the words of the apps built on provider SDKs (chat
 * UIs, bots, workflow tools, notebooks, IDE plugins), and the services beside a model call that use the same words (a
 * speech service's character quota, the GitHub API's refused token, a run's own credit cap, a workflow's unwired
 * node). Each rule reads the shape of a failure, not one app's sentence; each has fixtures (ids r23-…, r23neg-…) in
 * `catalogue/fixtures/generic.jsonl`.
 */

/** A model call in the same text (an endpoint of a provider API) makes a side service's words the model call's again. */
const modelEndpoint =
  /\/v1\/(?:messages|chat\/completions|completions|responses)\b|:(?:stream)?generatecontent\b|\/backend-api\/codex\/responses/;

export const appWordsRules: readonly Rule[] = [
  {
    id: 'local.speech_service.v1',
    description:
      'A text-to-speech service beside the model call failed (a TTS stream, speech that could not be generated or played, a quota counted in characters of speech): the voice output, not the model answering',
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['tts', 'speech', 'characters'],
      text: /\berror streaming tts\b|\btts (?:error|failed|request failed)\b|\bfailed to (?:generate(?:\/play)?|play|synthesi[sz]e) speech\b|\b(?:text[- ]to[- ]speech|speech synthesis) (?:error|failed)\b|\byou have \d{1,9} characters? remaining, while \d{1,9} characters? (?:are|is) required\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.github_api_credentials.v1',
    description:
      'The GitHub REST API refused a token ("Bad credentials" with its documentation URL, or fetched from GitHub): a repository host beside the agent, not its model provider',
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['credentials'],
      text: /"bad credentials"\s{0,2},\s{0,2}"documentation_url"\s{0,2}:\s{0,2}"https:\/\/(?:docs|developer)\.github\.com|\b(?:from|to) github\b[^\n]{0,80}\n?[^\n]{0,40}"message"\s{0,2}:\s{0,2}"bad credentials"|\bbadcredentialsexception\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.run_credit_cap.v1',
    description:
      'A run stopped at the credit cap its caller set for it ("agent reached max credits", a --max-credits budget): the task\'s own budget, not an account whose quota ran out',
    tier: 'signature',
    priority: 60,
    code: 'task_error',
    confidence: 'medium',
    when: {
      keywords: ['credits'],
      text: /\b(?:agent|run|task|job|crawl) (?:has )?reached (?:its |the )?max(?:imum)?[ -]credits\b|--max-credits\b/,
    },
  },
  {
    id: 'local.workflow_node_wiring.v1',
    description:
      'A workflow tool\'s node is not wired up ("a Fallback Model sub-node must be connected and enabled"): the workflow as built, not the provider behind the model node',
    tier: 'signature',
    priority: 60,
    code: 'local_runtime',
    confidence: 'high',
    when: {
      keywords: ['node'],
      text: /\bsub-node must be connected\b|\b(?:model|memory|tool|embedding) sub-node (?:is )?(?:required|missing|not connected)\b/,
    },
  },
  {
    id: 'provider.api_key_not_supplied.v1',
    description:
      'An SDK or app says no API key was supplied to the model client ("Missing key inputs argument", "An API Key must be set", "API key is not provided for the model", "Please provide … API key", "No valid API key found", a key that "must be passed as query or header"): credentials absent',
    tier: 'signature',
    priority: 6,
    code: 'missing_credentials',
    confidence: 'medium',
    when: {
      keywords: ['key', 'apikey'],
      text: /\bmissing key inputs argument\b|\ban? api ?key must be (?:set|passed|provided)\b|\bapi ?key is not provided\b|\bplease provide (?:your |an? |the )?(?:[a-z][\w-]{0,20} )?api ?key and try again\b|\bno valid api ?key found\b/,
      unless: new RegExp(`${notTheModelCall.source}|${notACredential.source}`),
    },
  },
  {
    id: 'provider.credentials_refused_words.v1',
    description:
      'An app relays that the model credentials it holds were refused ("Incorrect model credentials provided", "Please double-check your API key", "Please enter a valid … API key"): credentials present but not accepted',
    tier: 'signature',
    priority: 6,
    code: 'auth_required',
    confidence: 'medium',
    when: {
      keywords: ['credentials', 'key'],
      text: /\bincorrect model credentials provided\b|\bplease double-check your api ?key\b|\bplease enter a valid (?:[a-z][\w-]{0,20} )?api ?key\b/,
      unless: new RegExp(`${notTheModelCall.source}|${notACredential.source}`),
    },
  },
  {
    id: 'provider.client_init_conflict.v1',
    description:
      'A model SDK\'s client was set up with settings that exclude each other ("Project/location and API key are mutually exclusive in the client initializer"): the provider profile is configured wrongly',
    tier: 'signature',
    priority: 6,
    code: 'provider_not_configured',
    confidence: 'high',
    when: {
      keywords: ['exclusive'],
      text: /\b(?:project(?:\/location)?|location|api ?key|credentials)\b[^\n]{0,40}\bare mutually exclusive in the client initiali[sz]er\b/,
    },
  },
  {
    id: 'provider.included_credits_depleted.v1',
    description:
      'The credits a plan includes are used up ("You have depleted your monthly included credits. Purchase pre-paid credits to continue"): usage at an end until the period renews or credits are bought',
    tier: 'signature',
    priority: 6,
    code: 'quota_limited',
    confidence: 'high',
    when: {
      keywords: ['depleted'],
      text: /\byou have depleted your (?:monthly |daily |weekly )?(?:included )?credits\b/,
    },
  },
  {
    id: 'provider.client_setup_incomplete.v1',
    description:
      'A model client or app is set up without what it routes to or with a malformed endpoint ("No valid deployments to route to", "Must provide an \'engine\' or \'deployment_id\' parameter", "At least one AI model must be set", a credentials check answered 404, a connection pool whose host is the URL scheme): the provider profile is configured wrongly',
    tier: 'signature',
    priority: 6,
    code: 'provider_not_configured',
    confidence: 'medium',
    when: {
      keywords: ['deployments', 'deployment_id', 'model', 'validation', 'host'],
      text: /\bno valid deployments to route to\b|\bmust provide an? '?engine'? or '?deployment_id'? parameter\b|\bat least one (?:ai |llm )?model must be (?:set|configured)\b|\bcredentials? validation failed with status code 404\b|\(host='https?', port=\d{1,5}\)/,
    },
  },
  {
    id: 'provider.api_key_input_none.v1',
    description:
      "An app's model component received no value for its API key input (a validation error: None for input api_key): credentials absent",
    tier: 'signature',
    priority: 6,
    code: 'missing_credentials',
    confidence: 'medium',
    when: {
      keywords: ['nonetype', 'none'],
      text: /\binvalid value type `?<class 'nonetype'>`? for input `?[\w-]{0,30}api_key`?/,
    },
  },
];
