import { notTheModelCall } from './prose.js';
import type { Rule } from '../rule.js';

/**
 * Round 22: the model-serving and gateway layer in the words of niche SDKs and hosts, and the tools beside it that a
 * retrieval or observability stack runs (vector stores, tracing exporters, tokenizer downloads). Each rule reads the
 * shape of a failure, not one vendor's sentence; each has fixtures (ids r22-…, r22neg-…) in `catalogue/fixtures/generic.jsonl`.
 */

/** A model call in the same text (an endpoint of a provider API) makes a side task's words the model call's again. */
const modelEndpoint =
  /\/v1\/(?:messages|chat\/completions|completions|responses)\b|:(?:stream)?generatecontent\b|\/backend-api\/codex\/responses/;

export const servingLayerRules: readonly Rule[] = [
  {
    id: 'local.vector_store_client.v1',
    description:
      "A vector store's client or server failed (a Pinecone or Milvus client class, chromadb, Elasticsearch's circuit breaker, a vector that could not be stored, embedding dimensions that do not match a collection or column): retrieval beside the agent, no model call",
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: [
        'pineconeclient',
        'pineconeerror',
        'pineconeexception',
        'pineconeapiexception',
        'pineconeunmappedhttperror',
        'milvusexception',
        'chromadb',
        'circuit_breaking_exception',
        'vector',
        'vectors',
        'dimension',
        'dimensions',
        'dimensionality',
      ],
      text: /\bpinecone(?:client|error|exception|apiexception|unmappedhttperror)\b|\bmilvusexception\b|\bchromadb\b|\bcircuit_breaking_exception\b|\b(?:update|insert|upsert|add)(?:ing)? vectors?\b[^\n]{0,40}\bfail|\b(?:embedding|vector) dimensions? (?:\d{1,6} )?(?:does not match|mismatch)|\bdifferent vector dimensions\b|\bdimensionality of \(\d{1,6}\) does not match\b|\bvector cannot have more than \d{1,6} dimensions\b|\bexpected \d{1,6} dimensions, not \d{1,6}\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.tracing_export.v1',
    description:
      "A tracing or observability exporter could not deliver (a span batch, spans, traces or an LLM run log not exported or ingested): the agent's own telemetry, not its model call",
    tier: 'signature',
    // Below local.tool_subject.v1 (33), which names an OTel exporter's subject more exactly; above every provider rule.
    priority: 32,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['export', 'exporting', 'ingest'],
      text: /\bfailed to export (?:the )?(?:span batch|spans?|traces?|batch|metrics|logs)\b|\bexport(?:ing)? (?:the |a )?span batch\b|\btrace export failed\b|\bfailed to batch ingest runs\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.tokenizer_download.v1',
    description:
      "A tokenizer's encoding file could not be downloaded (tiktoken's encodings host, an encoder fetched before counting tokens): a download beside the prompt, not the provider answering it",
    tier: 'signature',
    priority: 60,
    code: 'side_channel',
    confidence: 'high',
    when: {
      keywords: ['openaipublic', 'tiktoken', 'encoder'],
      text: /\bopenaipublic\.blob\.core\.windows\.net\b|\/encodings\/[\w-]{1,40}\.tiktoken\b|\berror importing tiktoken\b|\bfailed to get [\w.-]{1,40} token encoder\b/,
      unless: modelEndpoint,
    },
  },
  {
    id: 'local.guardrail_intervened.v1',
    description:
      'A guardrail intervened and blocked the content (a violated guardrail policy, GUARDRAIL_INTERVENED): the request is refused for what it says, like a content filter, not because a guardrail is set up wrongly',
    tier: 'signature',
    priority: 60,
    code: 'bad_request',
    confidence: 'high',
    scope: 'request',
    when: {
      keywords: ['guardrail_intervened', 'guardrail', 'violated'],
      text: /\bguardrail_intervened\b|\bviolated (?:the )?guardrail polic(?:y|ies)\b|\bguardrail (?:intervened|blocked)\b|\bblocked by (?:the |a |an )?(?:amazon bedrock )?guardrails?\b/,
    },
  },
  {
    id: 'local.request_body_eof.v1',
    description:
      'A server answered an invalid request because the request body ended early ("unexpected EOF" under invalid_request_error): the request as sent, not a response stream that was cut',
    tier: 'signature',
    priority: 60,
    code: 'bad_request',
    confidence: 'medium',
    scope: 'request',
    when: {
      keywords: ['eof'],
      fields: { type: ['invalid_request_error'] },
      text: /\bunexpected eof\b/,
    },
  },
  {
    id: 'provider.overload_noun.v1',
    description:
      'A message that is only the noun: "service overload", "server overload" as the whole detail, message or line (the provider says it is overloaded)',
    tier: 'signature',
    code: 'provider_overloaded',
    confidence: 'medium',
    when: {
      keywords: ['overload', 'overloaded'],
      text: /(?:"(?:detail|message|error|msg)"\s{0,2}:\s{0,2}"|^\s{0,4})(?:the )?(?:service|server|system|engine) overload\b/m,
      unless: notTheModelCall,
    },
  },
  {
    id: 'provider.model_loading.v1',
    description:
      'A model server answers that it is still loading the model (a 503 whose message is "Loading model"): the model is not ready to serve yet',
    tier: 'signature',
    // Above the provider's generic "service unavailable" words a 503 line carries beside it.
    priority: 5,
    code: 'model_capacity',
    confidence: 'medium',
    when: {
      keywords: ['loading'],
      text: /"message"\s{0,2}:\s{0,2}"loading model"|\b503\b[^\n]{0,60}\bloading model\b/,
      unless: notTheModelCall,
    },
  },
  {
    id: 'provider.doubled_api_path.v1',
    description:
      'A request path with its API version twice (/v1/v1/messages): the base URL already ends in the version the client adds, so the endpoint is set up wrongly',
    tier: 'signature',
    // Below provider.not_configured.v1 (5), whose "invalid URL" names the same setting in its own words.
    priority: 4,
    code: 'provider_not_configured',
    confidence: 'high',
    when: {
      keywords: ['v1', 'v2', 'v3', 'v1beta'],
      text: /\/(?:v1\/v1|v2\/v2|v3\/v3|v1beta\/v1beta)\/(?:messages|chat\/completions|completions|responses|models|embeddings)\b/,
    },
  },
  {
    id: 'provider.key_spend_limit.v1',
    description:
      'An API key\'s own spending limit is used up ("Key limit exceeded (total limit)", "... Manage it using ..."): usage at an end for this key until its limit is raised or reset',
    tier: 'signature',
    // Above the long-window reading of "(daily limit)" (priority 30): the same code, named by what ran out.
    priority: 31,
    code: 'quota_limited',
    confidence: 'high',
    when: {
      keywords: ['key'],
      text: /\bkey limit exceeded\s{0,2}(?:\((?:total|daily|weekly|monthly) limit\)|\.\s{0,2}manage it\b)/,
    },
  },
];
