import { notAProviderRefusal } from './hard-shapes.js';
import type { Rule } from '../rule.js';

/**
 * Round 32: the errors model SDKs and their clients raise before or around a call, as their own test suites write
 * them. A client constructor asking for a setting by argument or environment variable, and a federated sign-in whose
 * token exchange was refused. Each rule reads the shape of the sentence and names the model service through the
 * variable or the status, not one SDK's wording; each has fixtures (ids r32-…, r32pos-…, r32neg-…) in
 * `catalogue/fixtures/generic.jsonl`.
 */

/**
 * An environment variable's name that belongs to a model service (`OPENAI_API_VERSION`, `AZURE_OPENAI_ENDPOINT`,
 * `ANTHROPIC_GOOGLE_CLOUD_PROJECT`): a tool's own variable (`DATABASE_URL`) names no model setting.
 */
const modelServiceVariable = String.raw`[\x60'"]?[a-z0-9_]{0,30}(?:openai|anthropic|azure|gemini|google|vertex|bedrock|aws|mistral|cohere|groq|ollama|deepseek|dashscope|llm|model)[a-z0-9_]{0,40}[\x60'"]?`;

/** A model client asking for a setting by argument or environment variable (see the two rules below). */
const askedByArgumentOrVariable = (variable: string): RegExp =>
  new RegExp(
    String.raw`\b(?:must (?:provide|pass|set|specify)|(?:please )?(?:provide|specify)|no [a-z_ ]{1,30} (?:was|were) (?:given|provided|specified)\.?\s{0,2}(?:set|provide|pass))\b[^\n]{0,160}?\bor (?:by setting )?(?:the |an? )?${variable} env(?:ironment)?[ _-]?var(?:iable)?s?\b`,
  );

/** A variable of a model service that holds a key or token (`OPENAI_API_KEY`, `AZURE_OPENAI_AD_TOKEN`). */
const modelServiceKeyVariable = String.raw`[\x60'"]?[a-z0-9_]{0,30}(?:openai|anthropic|azure|gemini|google|vertex|bedrock|aws|mistral|cohere|groq|ollama|deepseek|dashscope|llm|model)[a-z0-9_]{0,30}_(?:api_?key|key|(?:ad_|access_|auth_)?token)[\x60'"]?`;

export const sdkSetupRules: readonly Rule[] = [
  {
    id: 'provider.setup_argument_required.v1',
    description:
      'A model client that cannot start without a setting, asked for by argument or environment variable ("Must provide either the `api_version` argument or the `OPENAI_API_VERSION` environment variable", "No project was given. Set `project` or the `ANTHROPIC_GOOGLE_CLOUD_PROJECT` environment variable"): the endpoint\'s setup; a key or token asked for is a missing credential',
    tier: 'pattern',
    code: 'provider_not_configured',
    confidence: 'medium',
    when: {
      keywords: ['provide', 'given', 'specify', 'environment', 'env'],
      text: askedByArgumentOrVariable(modelServiceVariable),
      // A key, token, secret or password asked for is the missing credential's reading, not the setup's.
      unless: new RegExp(
        String.raw`${notAProviderRefusal.source}|_(?:api_?key|key|token|secret|password)\b|\bapi[ _-]?key\b|\btokens?\b|\bcredentials?\b|\bsecret\b|\bpassword\b`,
      ),
    },
  },
  {
    id: 'provider.setup_key_required.v1',
    description:
      'A model client that cannot start without its key or token, asked for by argument or environment variable ("Must provide either the `api_key` argument or the `OPENAI_API_KEY` environment variable"): no credential is configured',
    tier: 'pattern',
    code: 'missing_credentials',
    confidence: 'medium',
    when: {
      keywords: ['provide', 'given', 'specify', 'environment', 'env'],
      text: askedByArgumentOrVariable(modelServiceKeyVariable),
      unless: notAProviderRefusal,
    },
  },
  {
    id: 'provider.token_exchange_refused.v1',
    description:
      'A federated credential (a service account, a workload identity) whose token exchange was refused ("Service account token exchange failed" with a 401; a 403 may be a region or edge block): the credential is present and refused, a sign-in is needed',
    tier: 'pattern',
    code: 'auth_required',
    confidence: 'medium',
    when: {
      keywords: ['exchange'],
      // Refused, not unanswered: only with a 401 beside it. An exchange that got no answer is the network's, and a 403
      // from a token endpoint may be a region or edge block as much as a refusal (b-codex-token-exchange-403-forbidden).
      status: [401],
      text: /\btoken exchange (?:failed|was refused|was rejected|refused|rejected|denied)\b/,
      unless: notAProviderRefusal,
    },
  },
];
