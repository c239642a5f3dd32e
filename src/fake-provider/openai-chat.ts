import {
  argumentDeltas,
  epochSeconds,
  outputTokens,
  textDeltas,
  type Dialect,
  type Frame,
} from './dialect.js';
import { openaiError } from './openai-errors.js';

/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`): the `chat.completion` object, its `chat.completion.chunk`
 * stream ending with `data: [DONE]`, tool calls as `tool_calls` of type function with JSON text arguments.
 */
export const openaiChat: Dialect = {
  api: 'openai-chat',

  body(content, request) {
    const toolCalls =
      content.toolCall === null
        ? undefined
        : [
            {
              id: callId(request.serial),
              type: 'function',
              function: {
                name: content.toolCall.name,
                arguments: JSON.stringify(content.toolCall.arguments),
              },
            },
          ];
    const completion = outputTokens(content);
    return {
      id: completionId(request.serial),
      object: 'chat.completion',
      created: epochSeconds(request.nowMs),
      model: request.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: content.text === '' && toolCalls !== undefined ? null : content.text,
            refusal: null,
            ...(toolCalls === undefined ? {} : { tool_calls: toolCalls }),
          },
          logprobs: null,
          finish_reason: toolCalls === undefined ? 'stop' : 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: request.inputTokens,
        completion_tokens: completion,
        total_tokens: request.inputTokens + completion,
      },
    };
  },

  stream(content, request) {
    const chunk = (choice: Record<string, unknown> | null, extra: Record<string, unknown> = {}): Frame => ({
      data: {
        id: completionId(request.serial),
        object: 'chat.completion.chunk',
        created: epochSeconds(request.nowMs),
        model: request.model,
        choices: choice === null ? [] : [{ index: 0, logprobs: null, finish_reason: null, ...choice }],
        ...extra,
      },
    });
    const head = [chunk({ delta: { role: 'assistant', content: '', refusal: null } })];
    const text = textDeltas(content.text).map((delta) => chunk({ delta: { content: delta } }));
    const call = content.toolCall;
    const tool =
      call === null
        ? []
        : argumentDeltas(JSON.stringify(call.arguments)).map((partial, i) =>
            chunk({
              delta: {
                tool_calls: [
                  i === 0
                    ? {
                        index: 0,
                        id: callId(request.serial),
                        type: 'function',
                        function: { name: call.name, arguments: partial },
                      }
                    : { index: 0, function: { arguments: partial } },
                ],
              },
            }),
          );
    const completion = outputTokens(content);
    const tail: Frame[] = [
      chunk({ delta: {}, finish_reason: call === null ? 'stop' : 'tool_calls' }),
      // Sent whether or not the client asked for `stream_options.include_usage`: clients ignore a chunk without
      // choices, and those that asked need it.
      chunk(null, {
        usage: {
          prompt_tokens: request.inputTokens,
          completion_tokens: completion,
          total_tokens: request.inputTokens + completion,
        },
      }),
      { data: '[DONE]', raw: true },
    ];
    return { head, text, tool, tail };
  },

  error: openaiError,
};

const completionId = (serial: number) => `chatcmpl-fake${String(serial).padStart(6, '0')}`;
const callId = (serial: number) => `call_fake${String(serial).padStart(6, '0')}`;
