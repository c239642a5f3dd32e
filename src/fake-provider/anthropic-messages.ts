import {
  argumentDeltas,
  outputTokens,
  textDeltas,
  type Dialect,
  type Frame,
  type RequestContext,
} from './dialect.js';
import type { StatusFault } from './script.js';

/**
 * Anthropic Messages (`POST /v1/messages`): the message object, its SSE events (message_start,
 * content_block_start/delta/stop, message_delta, message_stop) and the `{"type":"error","error":{type,message}}`
 * error body with its `request-id` header.
 */
export const anthropicMessages: Dialect = {
  api: 'anthropic-messages',

  body(content, request) {
    return {
      ...messageShell(request),
      content: [
        ...(content.text === '' ? [] : [{ type: 'text', text: content.text }]),
        ...(content.toolCall === null
          ? []
          : [
              {
                type: 'tool_use',
                id: toolId(request),
                name: content.toolCall.name,
                input: content.toolCall.arguments,
              },
            ]),
      ],
      stop_reason: content.toolCall === null ? 'end_turn' : 'tool_use',
      usage: { input_tokens: request.inputTokens, output_tokens: outputTokens(content) },
    };
  },

  stream(content, request) {
    const event = (type: string, data: Record<string, unknown>): Frame => ({
      event: type,
      data: { type, ...data },
    });
    const head = [
      event('message_start', {
        message: {
          ...messageShell(request),
          content: [],
          usage: { input_tokens: request.inputTokens, output_tokens: 1 },
        },
      }),
      event('ping', {}),
    ];
    const text: Frame[] =
      content.text === ''
        ? []
        : [
            event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
            ...textDeltas(content.text).map((delta) =>
              event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: delta } }),
            ),
            event('content_block_stop', { index: 0 }),
          ];
    const index = content.text === '' ? 0 : 1;
    const tool: Frame[] =
      content.toolCall === null
        ? []
        : [
            event('content_block_start', {
              index,
              content_block: {
                type: 'tool_use',
                id: toolId(request),
                name: content.toolCall.name,
                input: {},
              },
            }),
            ...argumentDeltas(JSON.stringify(content.toolCall.arguments)).map((partial) =>
              event('content_block_delta', {
                index,
                delta: { type: 'input_json_delta', partial_json: partial },
              }),
            ),
            event('content_block_stop', { index }),
          ];
    const tail = [
      event('message_delta', {
        delta: { stop_reason: content.toolCall === null ? 'end_turn' : 'tool_use', stop_sequence: null },
        usage: { output_tokens: outputTokens(content) },
      }),
      event('message_stop', {}),
    ];
    return { head, text, tool, tail };
  },

  error(fault, request, retryAfterSeconds) {
    const [status, type, message] = anthropicErrors(fault, request.model);
    const requestId = `req_fake${String(request.serial).padStart(6, '0')}`;
    const headers: Record<string, string> = { 'request-id': requestId };
    if (fault === 'rate_limited') Object.assign(headers, rateLimitHeaders(request.nowMs, retryAfterSeconds));
    return { status, headers, body: { type: 'error', error: { type, message }, request_id: requestId } };
  },
};

function messageShell(request: RequestContext) {
  return {
    id: `msg_fake${String(request.serial).padStart(6, '0')}`,
    type: 'message',
    role: 'assistant',
    model: request.model,
    stop_reason: null,
    stop_sequence: null,
  };
}

const toolId = (request: RequestContext) => `toolu_fake${String(request.serial).padStart(6, '0')}`;

/** The status, error type and message Anthropic answers each fault with. */
function anthropicErrors(fault: StatusFault, model: string): [number, string, string] {
  switch (fault) {
    case 'overloaded':
      return [529, 'overloaded_error', 'Overloaded'];
    case 'rate_limited':
      return [
        429,
        'rate_limit_error',
        'This request would exceed the rate limit for your organization of 50 requests per minute. ' +
          'For details, refer to: https://docs.claude.com/en/api/rate-limits.',
      ];
    // Anthropic has no quota error of its own: an account out of credits gets this 400.
    case 'insufficient_quota':
    case 'credit_balance':
      return [
        400,
        'invalid_request_error',
        'Your credit balance is too low to access the Anthropic API. ' +
          'Please go to Plans & Billing to upgrade or purchase credits.',
      ];
    case 'invalid_key':
      return [401, 'authentication_error', 'invalid x-api-key'];
    case 'permission_denied':
      return [
        403,
        'permission_error',
        'Your API key does not have permission to use the specified resource.',
      ];
    case 'model_not_found':
      return [404, 'not_found_error', `model: ${model}`];
    case 'server_error':
      return [500, 'api_error', 'Internal server error'];
    case 'bad_gateway':
      return [502, 'api_error', 'Bad gateway'];
    case 'unavailable':
      return [503, 'api_error', 'Service unavailable'];
  }
}

/** The `retry-after` and `anthropic-ratelimit-*` headers of a 429: the request limit is spent until the reset. */
function rateLimitHeaders(nowMs: number, retryAfterSeconds: number): Record<string, string> {
  const reset = new Date(Math.floor(nowMs / 1000) * 1000 + retryAfterSeconds * 1000)
    .toISOString()
    .replace('.000', '');
  return {
    'retry-after': String(retryAfterSeconds),
    'anthropic-ratelimit-requests-limit': '50',
    'anthropic-ratelimit-requests-remaining': '0',
    'anthropic-ratelimit-requests-reset': reset,
    'anthropic-ratelimit-tokens-limit': '40000',
    'anthropic-ratelimit-tokens-remaining': '40000',
    'anthropic-ratelimit-tokens-reset': reset,
    'anthropic-ratelimit-input-tokens-limit': '30000',
    'anthropic-ratelimit-input-tokens-remaining': '30000',
    'anthropic-ratelimit-input-tokens-reset': reset,
    'anthropic-ratelimit-output-tokens-limit': '10000',
    'anthropic-ratelimit-output-tokens-remaining': '10000',
    'anthropic-ratelimit-output-tokens-reset': reset,
  };
}
