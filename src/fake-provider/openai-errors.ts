import type { ErrorReply, RequestContext } from './dialect.js';
import type { StatusFault } from './script.js';

/**
 * OpenAI's error answer, shared by Chat Completions and Responses: `{"error":{message,type,param,code}}` with an
 * `x-request-id` header; a rate limit adds `retry-after` and the `x-ratelimit-*` headers.
 */
export function openaiError(
  fault: StatusFault,
  request: RequestContext,
  retryAfterSeconds: number,
): ErrorReply {
  const [status, type, code, message] = openaiErrors(fault, request.model, retryAfterSeconds);
  const headers: Record<string, string> = {
    'x-request-id': `req_fake${String(request.serial).padStart(6, '0')}`,
  };
  if (fault === 'rate_limited') Object.assign(headers, rateLimitHeaders(retryAfterSeconds));
  return { status, headers, body: { error: { message, type, param: null, code } } };
}

/** The status, error type, error code and message OpenAI answers each fault with. */
function openaiErrors(
  fault: StatusFault,
  model: string,
  retryAfterSeconds: number,
): [number, string, string | number | null, string] {
  switch (fault) {
    case 'overloaded':
      return [529, 'server_error', null, 'The engine is currently overloaded, please try again later.'];
    case 'rate_limited':
      return [
        429,
        'requests',
        'rate_limit_exceeded',
        `Rate limit reached for ${model} in organization org-fake on requests per min (RPM): Limit 3, Used 3, ` +
          `Requested 1. Please try again in ${retryAfterSeconds}s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
      ];
    // OpenAI has one error for an account out of quota or credits.
    case 'insufficient_quota':
    case 'credit_balance':
      return [
        429,
        'insufficient_quota',
        'insufficient_quota',
        'You exceeded your current quota, please check your plan and billing details. For more information on ' +
          'this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
      ];
    case 'invalid_key':
      return [
        401,
        'invalid_request_error',
        'invalid_api_key',
        'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
      ];
    // OpenAI's 403 refuses the model to the project; a key or token without a scope is a 401 ("Missing scopes").
    case 'permission_denied':
      return [403, 'invalid_request_error', null, 'You are not allowed to sample from this model'];
    case 'model_not_found':
      return [
        404,
        'invalid_request_error',
        'model_not_found',
        `The model \`${model}\` does not exist or you do not have access to it.`,
      ];
    case 'server_error':
      return [
        500,
        'server_error',
        null,
        'The server had an error while processing your request. Sorry about that!',
      ];
    // What OpenAI's edge answers when the upstream is gone: the status as the code.
    case 'bad_gateway':
      return [502, 'cf_bad_gateway', 502, 'Bad gateway.'];
    case 'unavailable':
      return [503, 'server_error', null, 'Service Unavailable. Please try again later.'];
  }
}

/** `retry-after` and the `x-ratelimit-*` headers: the request budget is spent until the reset. */
function rateLimitHeaders(retryAfterSeconds: number): Record<string, string> {
  return {
    'retry-after': String(retryAfterSeconds),
    'x-ratelimit-limit-requests': '3',
    'x-ratelimit-remaining-requests': '0',
    'x-ratelimit-reset-requests': `${retryAfterSeconds}s`,
    'x-ratelimit-limit-tokens': '40000',
    'x-ratelimit-remaining-tokens': '40000',
    'x-ratelimit-reset-tokens': '0s',
  };
}
