import type { IncomingHttpHeaders } from 'node:http';
import { anthropicMessages } from './anthropic-messages.js';
import type { ApiName, Dialect } from './dialect.js';
import { gemini } from './gemini.js';
import { openaiChat } from './openai-chat.js';
import { openaiResponses } from './openai-responses.js';

/** What a request asks for: a generation (consumes a step) or something answered without one. */
export type Route =
  | {
      readonly kind: 'generate';
      readonly dialect: Dialect;
      /** The model named in the path (Gemini), or null when the body names it. */
      readonly pathModel: string | null;
      /** Gemini streams by action; `alt=sse` chooses SSE over a JSON array. The others read `stream` from the body. */
      readonly geminiStream: 'sse' | 'array' | null;
    }
  | { readonly kind: 'count'; readonly api: ApiName }
  | { readonly kind: 'models'; readonly api: ApiName; readonly id: string | null }
  | { readonly kind: 'probe' };

/**
 * The route of a request, or null (404). The version prefix is optional: the Anthropic and Gemini SDKs add
 * `/v1` and `/v1beta` to a base URL themselves, while OpenAI's SDK expects the base URL to end in `/v1`, so a
 * base URL given without it reaches `/chat/completions`.
 */
export function routeOf(
  method: string,
  pathname: string,
  query: URLSearchParams,
  headers: IncomingHttpHeaders,
): Route | null {
  const match = /^(\/v1(?:beta|alpha)?)?(\/.*)?$/.exec(pathname.replace(/\/+$/, ''));
  if (match === null) return null;
  const version = match[1] ?? '';
  const rest = match[2] ?? '';
  if (method === 'GET' || method === 'HEAD') {
    if (rest === '') return { kind: 'probe' };
    const model = /^\/models(?:\/([^/:]+))?$/.exec(rest);
    if (model === null) return null;
    const id = model[1] === undefined ? null : decodeURIComponent(model[1]);
    return { kind: 'models', api: listApi(version, headers), id };
  }
  if (method !== 'POST') return null;
  if (rest === '/messages') return generate(anthropicMessages);
  if (rest === '/messages/count_tokens') return { kind: 'count', api: 'anthropic-messages' };
  if (rest === '/chat/completions') return generate(openaiChat);
  if (rest === '/responses') return generate(openaiResponses);
  const action = /^\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/.exec(rest);
  if (action === null) return null;
  if (action[2] === 'countTokens') return { kind: 'count', api: 'gemini' };
  return {
    kind: 'generate',
    dialect: gemini,
    pathModel: decodeURIComponent(action[1]!),
    geminiStream: action[2] === 'generateContent' ? null : query.get('alt') === 'sse' ? 'sse' : 'array',
  };
}

const generate = (dialect: Dialect): Route => ({
  kind: 'generate',
  dialect,
  pathModel: null,
  geminiStream: null,
});

/** Whose model list a GET asks for: Gemini's under `/v1beta`, Anthropic's when its version header is sent. */
function listApi(version: string, headers: IncomingHttpHeaders): ApiName {
  if (version === '/v1beta' || version === '/v1alpha' || headers['x-goog-api-key'] !== undefined)
    return 'gemini';
  return headers['anthropic-version'] !== undefined ? 'anthropic-messages' : 'openai-chat';
}

const modelIds: Record<ApiName, readonly string[]> = {
  'anthropic-messages': ['claude-fake-1', 'claude-fake-1-mini'],
  'openai-chat': ['gpt-fake-1', 'gpt-fake-1-mini'],
  'openai-responses': ['gpt-fake-1', 'gpt-fake-1-mini'],
  gemini: ['gemini-fake-1', 'gemini-fake-1-flash'],
};

/** A model list, or one model (any id asked for exists), in the API's shape. */
export function modelsBody(api: ApiName, id: string | null): unknown {
  const ids = id === null ? modelIds[api] : [id];
  if (api === 'gemini') {
    const models = ids.map((name) => ({
      name: name.startsWith('models/') ? name : `models/${name}`,
      version: '001',
      displayName: name,
      description: 'A model of recourse fake-provider',
      inputTokenLimit: 1_048_576,
      outputTokenLimit: 65_536,
      supportedGenerationMethods: ['generateContent', 'countTokens'],
    }));
    return id === null ? { models } : models[0];
  }
  if (api === 'anthropic-messages') {
    const data = ids.map((m) => ({
      type: 'model',
      id: m,
      display_name: m,
      created_at: '2025-01-01T00:00:00Z',
    }));
    return id === null ? { data, has_more: false, first_id: ids[0], last_id: ids.at(-1) } : data[0];
  }
  const data = ids.map((m) => ({
    id: m,
    object: 'model',
    created: 1_735_689_600,
    owned_by: 'recourse-fake-provider',
  }));
  return id === null ? { object: 'list', data } : data[0];
}

/** A token count in the API's shape. */
export function countBody(api: ApiName, tokens: number): unknown {
  return api === 'gemini' ? { totalTokens: tokens } : { input_tokens: tokens };
}
