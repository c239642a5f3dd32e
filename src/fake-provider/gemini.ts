import {
  outputTokens,
  textDeltas,
  type AnswerContent,
  type Dialect,
  type Frame,
  type RequestContext,
} from './dialect.js';
import type { StatusFault } from './script.js';

/**
 * Gemini (`POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent`): a response with
 * `candidates[].content.parts` (text and `functionCall`), streamed as a series of such responses, the last with
 * `finishReason` and `usageMetadata`; errors as `{"error":{code,message,status,details}}` (google.rpc.Status).
 */
export const gemini: Dialect = {
  api: 'gemini',

  body(content, request) {
    return generation(
      [
        ...(content.text === '' ? [] : [{ text: content.text }]),
        ...(content.toolCall === null ? [] : [functionCallPart(content)]),
      ],
      request,
      content,
    );
  },

  stream(content, request) {
    const text: Frame[] = textDeltas(content.text).map((delta) => ({
      data: generation([{ text: delta }], request, null),
    }));
    const tool: Frame[] =
      content.toolCall === null ? [] : [{ data: generation([functionCallPart(content)], request, null) }];
    // The last chunk ends the turn; with no parts of its own, an empty text part as the API sends.
    const tail: Frame[] = [{ data: generation([{ text: '' }], request, content) }];
    return { head: [], text, tool, tail };
  },

  error(fault, request, retryAfterSeconds) {
    const [code, status, message, details] = geminiErrors(fault, request.model, retryAfterSeconds);
    // Gemini says when to retry in RetryInfo; the contract's `retry-after` header is added all the same.
    const headers: Record<string, string> =
      fault === 'rate_limited' ? { 'retry-after': String(retryAfterSeconds) } : {};
    return { status: code, headers, body: { error: { code, message, status, details } } };
  },
};

function functionCallPart(content: AnswerContent) {
  return { functionCall: { name: content.toolCall!.name, args: content.toolCall!.arguments } };
}

/** One generation response; `finished` (the whole answer) adds the finish reason and the usage. */
function generation(parts: readonly unknown[], request: RequestContext, finished: AnswerContent | null) {
  const candidate = {
    content: { parts, role: 'model' },
    index: 0,
    ...(finished === null ? {} : { finishReason: 'STOP' }),
  };
  const completion = finished === null ? 0 : outputTokens(finished);
  return {
    candidates: [candidate],
    ...(finished === null
      ? {}
      : {
          usageMetadata: {
            promptTokenCount: request.inputTokens,
            candidatesTokenCount: completion,
            totalTokenCount: request.inputTokens + completion,
          },
        }),
    modelVersion: request.model,
    responseId: `fake${String(request.serial).padStart(6, '0')}`,
  };
}

const errorInfo = (reason: string) => ({
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
  reason,
  domain: 'googleapis.com',
  metadata: { service: 'generativelanguage.googleapis.com' },
});

/** A QuotaFailure naming the spent quota, per minute (a rate limit) or per day (the quota itself). */
function quotaFailure(model: string, window: 'PerMinute' | 'PerDay') {
  return {
    '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
    violations: [
      {
        quotaMetric: `generativelanguage.googleapis.com/generate_content_free_tier_requests`,
        quotaId: `GenerateRequests${window}PerProjectPerModel-FreeTier`,
        quotaDimensions: { location: 'global', model },
        quotaValue: window === 'PerMinute' ? '10' : '250',
      },
    ],
  };
}

const retryInfo = (seconds: number) => ({
  '@type': 'type.googleapis.com/google.rpc.RetryInfo',
  retryDelay: `${seconds}s`,
});

/** The HTTP code, status, message and details Gemini answers each fault with. */
function geminiErrors(
  fault: StatusFault,
  model: string,
  retryAfterSeconds: number,
): [number, string, string, unknown[]] {
  switch (fault) {
    case 'overloaded':
      return [529, 'UNAVAILABLE', 'The model is overloaded. Please try again later.', []];
    case 'rate_limited':
      return [
        429,
        'RESOURCE_EXHAUSTED',
        `You exceeded your current quota for requests per minute. Please retry in ${retryAfterSeconds}s.`,
        [quotaFailure(model, 'PerMinute'), retryInfo(retryAfterSeconds)],
      ];
    case 'insufficient_quota':
    case 'credit_balance':
      return [
        429,
        'RESOURCE_EXHAUSTED',
        'You exceeded your current quota, please check your plan and billing details.',
        [quotaFailure(model, 'PerDay')],
      ];
    case 'invalid_key':
      return [
        401,
        'UNAUTHENTICATED',
        'API key not valid. Please pass a valid API key.',
        [errorInfo('API_KEY_INVALID')],
      ];
    case 'permission_denied':
      return [403, 'PERMISSION_DENIED', 'The caller does not have permission', []];
    case 'model_not_found':
      return [
        404,
        'NOT_FOUND',
        `models/${model} is not found for API version v1beta, or is not supported for generateContent. ` +
          'Call ListModels to see the list of available models and their supported methods.',
        [],
      ];
    case 'server_error':
      return [
        500,
        'INTERNAL',
        'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
        [],
      ];
    case 'bad_gateway':
      return [502, 'UNAVAILABLE', 'Bad Gateway', []];
    case 'unavailable':
      return [503, 'UNAVAILABLE', 'The service is currently unavailable.', []];
  }
}
