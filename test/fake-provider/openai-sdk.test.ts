import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { fakeProvider, thrown } from './harness.js';

/** The fake provider's Chat Completions and Responses endpoints, called by the real OpenAI SDK (its retries off). */
const client = (url: string, prefix = '/v1') =>
  new OpenAI({ apiKey: 'sk-proj-fake-test', baseURL: `${url}${prefix}`, maxRetries: 0 });
const chat = { model: 'gpt-fake-1', messages: [{ role: 'user' as const, content: 'hi' }] };
const responses = { model: 'gpt-fake-1', input: 'hi' };
const tool = { name: 'read_file', arguments: { path: 'a.txt' } };

const faults = [
  ['overloaded', 529, 'server_error', null],
  ['rate_limited', 429, 'requests', 'rate_limit_exceeded'],
  ['insufficient_quota', 429, 'insufficient_quota', 'insufficient_quota'],
  ['credit_balance', 429, 'insufficient_quota', 'insufficient_quota'],
  ['invalid_key', 401, 'invalid_request_error', 'invalid_api_key'],
  ['permission_denied', 403, 'invalid_request_error', null],
  ['model_not_found', 404, 'invalid_request_error', 'model_not_found'],
  ['server_error', 500, 'server_error', null],
  ['bad_gateway', 502, 'cf_bad_gateway', 502],
  ['unavailable', 503, 'server_error', null],
] as const;

describe('fake provider: OpenAI Chat Completions through the real SDK', () => {
  it('answers with text, whole and streamed (ending with [DONE]), with or without /v1 in the base URL', async () => {
    const { url } = await fakeProvider({ steps: [{ answer: 'Hello from the fake.', times: 3 }] });
    const completion = await client(url).chat.completions.create(chat);
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Hello from the fake.' },
    });
    const stream = client(url).chat.completions.stream({ ...chat, stream: true });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('Hello from the fake.');
    const bare = await client(url, '').chat.completions.create(chat);
    expect(bare.choices[0]?.message.content).toBe('Hello from the fake.');
  });

  it('renders a tool call as tool_calls, whole and streamed', async () => {
    const { url } = await fakeProvider({ steps: [{ answer: '', tool_call: tool, times: 2 }] });
    const expected = {
      id: expect.stringMatching(/^call_/) as string,
      type: 'function',
      function: { name: 'read_file', arguments: '{"path":"a.txt"}' },
    };
    const completion = await client(url).chat.completions.create(chat);
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { tool_calls: [expected] },
    });
    const final = await client(url)
      .chat.completions.stream({ ...chat, stream: true })
      .finalChatCompletion();
    expect(final.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { tool_calls: [expected] },
    });
  });

  it('each status fault arrives as the SDK error of its status, with {message, type, param, code}', async () => {
    const { url } = await fakeProvider({ steps: faults.map(([fault]) => ({ fault })) });
    for (const [fault, status, type, code] of faults) {
      const error = (await thrown(() => client(url).chat.completions.create(chat))) as InstanceType<
        typeof OpenAI.APIError
      >;
      expect(error, fault).toBeInstanceOf(OpenAI.APIError);
      expect(error.status, fault).toBe(status);
      expect(error.error, fault).toEqual({ message: expect.any(String) as string, type, param: null, code });
      expect(error.requestID, fault).toMatch(/^req_/);
    }
  });

  it('rate_limited carries retry-after and the x-ratelimit headers', async () => {
    const { url } = await fakeProvider({ steps: [{ fault: 'rate_limited' }] });
    const error = (await thrown(() => client(url).chat.completions.create(chat))) as InstanceType<
      typeof OpenAI.APIError
    >;
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.headers?.get('retry-after')).toBe('17');
    expect(error.headers?.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(error.headers?.get('x-ratelimit-reset-requests')).toBe('17s');
  });

  it('cut_after_text and cut_after_tool_call end the stream with an error after what was sent', async () => {
    const { url } = await fakeProvider({
      steps: [{ fault: 'cut_after_text' }, { fault: 'cut_after_tool_call' }],
    });
    for (const [fault, seen] of [
      ['cut_after_text', 'content'],
      ['cut_after_tool_call', 'tool_calls'],
    ] as const) {
      const deltas: string[] = [];
      const finishes: unknown[] = [];
      const error = await thrown(async () => {
        const stream = await client(url).chat.completions.create({ ...chat, stream: true });
        for await (const chunk of stream) {
          const choice = chunk.choices[0];
          if (choice === undefined) continue;
          deltas.push(
            ...Object.keys(choice.delta).filter((k) => choice.delta[k as keyof typeof choice.delta]),
          );
          finishes.push(choice.finish_reason);
        }
      });
      expect(error, fault).toBeInstanceOf(Error);
      expect(deltas, fault).toContain(seen);
      expect(
        finishes.filter((f) => f !== null),
        fault,
      ).toEqual([]);
    }
  });
});

describe('fake provider: OpenAI Responses through the real SDK', () => {
  it('answers with text and a function call, whole and streamed', async () => {
    const { url } = await fakeProvider({ steps: [{ answer: 'Reading it.', tool_call: tool, times: 2 }] });
    const response = await client(url).responses.create(responses);
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Reading it.');
    expect(response.output.at(-1)).toMatchObject({
      type: 'function_call',
      name: 'read_file',
      arguments: '{"path":"a.txt"}',
    });
    const types: string[] = [];
    const stream = await client(url).responses.create({ ...responses, stream: true });
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.output_text.delta');
    expect(types).toContain('response.function_call_arguments.done');
    const final = await client(url).responses.stream(responses).finalResponse();
    expect(final.output_text).toBe('Done.');
  });

  it('each status fault arrives as the SDK error of its status', async () => {
    const { url } = await fakeProvider({ steps: faults.map(([fault]) => ({ fault })) });
    for (const [fault, status, type, code] of faults) {
      const error = (await thrown(() =>
        client(url).responses.create({ ...responses, stream: true }),
      )) as InstanceType<typeof OpenAI.APIError>;
      expect(error.status, fault).toBe(status);
      expect(error.error, fault).toMatchObject({ type, code });
    }
  });

  it('a cut stream never reaches response.completed', async () => {
    const { url } = await fakeProvider({
      steps: [{ fault: 'cut_after_tool_call' }, { fault: 'cut_after_text' }],
    });
    for (const seen of ['response.function_call_arguments.done', 'response.output_text.delta']) {
      const types: string[] = [];
      const error = await thrown(async () => {
        for await (const event of await client(url).responses.create({ ...responses, stream: true }))
          types.push(event.type);
      });
      expect(error).toBeInstanceOf(Error);
      expect(types).toContain(seen);
      expect(types).not.toContain('response.completed');
    }
  });

  it('hang is cancelled by aborting; model lists consume nothing', async () => {
    const { url, log } = await fakeProvider({ steps: [{ fault: 'hang' }], then: { answer: 'next' } });
    const models = await client(url).models.list();
    expect(models.data.map((m) => m.id)).toContain('gpt-fake-1');
    const abort = new AbortController();
    const pending = thrown(() => client(url).responses.create(responses, { signal: abort.signal }));
    await expect.poll(() => log.length).toBe(2);
    abort.abort();
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    expect((await client(url).responses.create(responses)).output_text).toBe('next');
    expect(log.map((l) => [l.api, l.served, l.step, l.status])).toEqual([
      ['openai-chat', 'models', null, 200],
      ['openai-responses', 'hang', 'steps/0', null],
      ['openai-responses', 'answer', 'then', 200],
    ]);
  });
});
