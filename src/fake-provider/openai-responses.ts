import {
  argumentDeltas,
  epochSeconds,
  outputTokens,
  textDeltas,
  type AnswerContent,
  type Dialect,
  type Frame,
  type RequestContext,
} from './dialect.js';
import { openaiError } from './openai-errors.js';

/**
 * OpenAI Responses (`POST /v1/responses`): the `response` object with `message` and `function_call` output
 * items, and its typed SSE events from `response.created` to `response.completed`, each with a sequence number.
 */
export const openaiResponses: Dialect = {
  api: 'openai-responses',

  body: (content, request) => response(content, request, 'completed'),

  stream(content, request) {
    let sequence = 0;
    const event = (type: string, data: Record<string, unknown>): Frame => ({
      event: type,
      data: { type, sequence_number: sequence++, ...data },
    });
    const empty = { text: '', toolCall: null };
    const head = [
      event('response.created', { response: response(empty, request, 'in_progress') }),
      event('response.in_progress', { response: response(empty, request, 'in_progress') }),
    ];
    const message = messageItem(content.text, request);
    const text =
      content.text === ''
        ? []
        : [
            event('response.output_item.added', {
              output_index: 0,
              item: { ...message, status: 'in_progress', content: [] },
            }),
            event('response.content_part.added', {
              item_id: message.id,
              output_index: 0,
              content_index: 0,
              part: { type: 'output_text', text: '', annotations: [] },
            }),
            ...textDeltas(content.text).map((delta) =>
              event('response.output_text.delta', {
                item_id: message.id,
                output_index: 0,
                content_index: 0,
                delta,
                logprobs: [],
              }),
            ),
            event('response.output_text.done', {
              item_id: message.id,
              output_index: 0,
              content_index: 0,
              text: content.text,
              logprobs: [],
            }),
            event('response.content_part.done', {
              item_id: message.id,
              output_index: 0,
              content_index: 0,
              part: message.content[0],
            }),
            event('response.output_item.done', { output_index: 0, item: message }),
          ];
    const call = functionCallItem(content, request);
    const index = content.text === '' ? 0 : 1;
    const tool =
      call === null
        ? []
        : [
            event('response.output_item.added', {
              output_index: index,
              item: { ...call, arguments: '', status: 'in_progress' },
            }),
            ...argumentDeltas(call.arguments).map((delta) =>
              event('response.function_call_arguments.delta', {
                item_id: call.id,
                output_index: index,
                delta,
              }),
            ),
            event('response.function_call_arguments.done', {
              item_id: call.id,
              output_index: index,
              arguments: call.arguments,
            }),
            event('response.output_item.done', { output_index: index, item: call }),
          ];
    const tail = [event('response.completed', { response: response(content, request, 'completed') })];
    return { head, text, tool, tail };
  },

  error: openaiError,
};

const id = (prefix: string, serial: number) => `${prefix}_fake${String(serial).padStart(6, '0')}`;

function messageItem(text: string, request: RequestContext) {
  return {
    type: 'message',
    id: id('msg', request.serial),
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

function functionCallItem(content: AnswerContent, request: RequestContext) {
  if (content.toolCall === null) return null;
  return {
    type: 'function_call',
    id: id('fc', request.serial),
    call_id: id('call', request.serial),
    name: content.toolCall.name,
    arguments: JSON.stringify(content.toolCall.arguments),
    status: 'completed',
  };
}

function response(content: AnswerContent, request: RequestContext, status: 'in_progress' | 'completed') {
  const call = functionCallItem(content, request);
  const completion = outputTokens(content);
  return {
    id: id('resp', request.serial),
    object: 'response',
    created_at: epochSeconds(request.nowMs),
    status,
    error: null,
    incomplete_details: null,
    model: request.model,
    output: [
      ...(content.text === '' ? [] : [messageItem(content.text, request)]),
      ...(call === null ? [] : [call]),
    ],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage:
      status === 'completed'
        ? {
            input_tokens: request.inputTokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: completion,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: request.inputTokens + completion,
          }
        : null,
  };
}
