import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { fakeProvider, thrown } from './harness.js';

/** The fake provider's Anthropic Messages endpoints, called by the real Anthropic SDK (its retries off). */
const client = (url: string) => new Anthropic({ apiKey: 'sk-ant-fake-test', baseURL: url, maxRetries: 0 });
const params = {
  model: 'claude-fake-1',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'hi' }],
};

describe('fake provider: Anthropic Messages through the real SDK', () => {
  it('answers with text, whole and streamed', async () => {
    const { url } = await fakeProvider({ steps: [{ answer: 'Hello from the fake.', times: 2 }] });
    const message = await client(url).messages.create(params);
    expect(message).toMatchObject({ role: 'assistant', model: 'claude-fake-1', stop_reason: 'end_turn' });
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from the fake.' }]);
    const stream = client(url).messages.stream(params);
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello from the fake.' }]);
    expect(await stream.finalText()).toBe('Hello from the fake.');
  });

  it('renders a tool call as tool_use, whole and streamed', async () => {
    const step = {
      answer: 'Reading it.',
      tool_call: { name: 'read_file', arguments: { path: 'a.txt', lines: 3 } },
    };
    const { url } = await fakeProvider({ steps: [{ ...step, times: 2 }] });
    const expected = [
      { type: 'text', text: 'Reading it.' },
      {
        type: 'tool_use',
        id: expect.stringMatching(/^toolu_/) as string,
        name: 'read_file',
        input: { path: 'a.txt', lines: 3 },
      },
    ];
    const message = await client(url).messages.create(params);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual(expected);
    const final = await client(url).messages.stream(params).finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toEqual(expected);
  });

  it('each status fault arrives as the SDK error of its status, with the native error body', async () => {
    const faults = [
      ['overloaded', 529, 'overloaded_error'],
      ['rate_limited', 429, 'rate_limit_error'],
      ['insufficient_quota', 400, 'invalid_request_error'],
      ['credit_balance', 400, 'invalid_request_error'],
      ['invalid_key', 401, 'authentication_error'],
      ['permission_denied', 403, 'permission_error'],
      ['model_not_found', 404, 'not_found_error'],
      ['server_error', 500, 'api_error'],
      ['bad_gateway', 502, 'api_error'],
      ['unavailable', 503, 'api_error'],
    ] as const;
    const { url } = await fakeProvider({ steps: faults.map(([fault]) => ({ fault })) });
    for (const [fault, status, type] of faults) {
      const error = await thrown(() => client(url).messages.create(params));
      expect(error, fault).toBeInstanceOf(Anthropic.APIError);
      const api = error as InstanceType<typeof Anthropic.APIError>;
      expect(api.status, fault).toBe(status);
      expect(api.error, fault).toMatchObject({
        type: 'error',
        error: { type, message: expect.any(String) as string },
      });
      expect(api.requestID, fault).toMatch(/^req_/);
    }
  });

  it('rate_limited carries retry-after and the anthropic-ratelimit headers; the quota fault says credit balance', async () => {
    const { url } = await fakeProvider({
      steps: [{ fault: 'rate_limited', retry_after: 42 }, { fault: 'credit_balance' }],
    });
    const limited = (await thrown(() => client(url).messages.create(params))) as InstanceType<
      typeof Anthropic.APIError
    >;
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    expect(limited.headers?.get('retry-after')).toBe('42');
    expect(limited.headers?.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    const reset = limited.headers?.get('anthropic-ratelimit-requests-reset') ?? '';
    expect(Date.parse(reset)).toBeGreaterThan(Date.now() + 30_000);
    const credit = (await thrown(() => client(url).messages.create(params))) as InstanceType<
      typeof Anthropic.APIError
    >;
    expect(credit).toBeInstanceOf(Anthropic.BadRequestError);
    expect(credit.message).toMatch(/credit balance is too low/);
  });

  it('cut_after_text and cut_after_tool_call end the stream with an error after what was sent', async () => {
    const { url } = await fakeProvider({
      steps: [{ fault: 'cut_after_text' }, { fault: 'cut_after_tool_call' }],
    });
    for (const [fault, seen] of [
      ['cut_after_text', 'text_delta'],
      ['cut_after_tool_call', 'input_json_delta'],
    ] as const) {
      const kinds: string[] = [];
      const error = await thrown(async () => {
        const stream = await client(url).messages.create({ ...params, stream: true });
        for await (const event of stream)
          kinds.push(event.type === 'content_block_delta' ? event.delta.type : event.type);
      });
      expect(error, fault).toBeInstanceOf(Error);
      expect(kinds, fault).toContain(seen);
      expect(kinds, fault).not.toContain('message_stop');
      expect(kinds, fault).not.toContain('message_delta');
    }
  });

  it('a cut on a non-streamed request fails the call while the body is read', async () => {
    const { url } = await fakeProvider({ steps: [{ fault: 'cut_after_text' }] });
    // undici's "terminated": the body ended before its announced length.
    expect(await thrown(() => client(url).messages.create(params))).toMatchObject({ message: 'terminated' });
  });

  it('hang holds the request until the client aborts it; the next request is served', async () => {
    const { url, log } = await fakeProvider({ steps: [{ fault: 'hang' }, { answer: 'after the hang' }] });
    const abort = new AbortController();
    const pending = thrown(() => client(url).messages.create(params, { signal: abort.signal }));
    await expect.poll(() => log.length).toBe(1);
    abort.abort();
    expect(await pending).toBeInstanceOf(Anthropic.APIUserAbortError);
    const next = await client(url).messages.create(params);
    expect(next.content).toEqual([{ type: 'text', text: 'after the hang' }]);
  });

  it('model lists and token counts consume no step', async () => {
    const { url, log } = await fakeProvider({ steps: [{ answer: 'first' }], then: { answer: 'later' } });
    const models = await client(url).models.list();
    expect(models.data.map((m) => m.id)).toContain('claude-fake-1');
    expect(await client(url).messages.countTokens(params)).toMatchObject({
      input_tokens: expect.any(Number) as number,
    });
    expect((await client(url).messages.create(params)).content).toEqual([{ type: 'text', text: 'first' }]);
    expect((await client(url).messages.create(params)).content).toEqual([{ type: 'text', text: 'later' }]);
    expect(log.map((l) => [l.api, l.served, l.step])).toEqual([
      ['anthropic-messages', 'models', null],
      ['anthropic-messages', 'count_tokens', null],
      ['anthropic-messages', 'answer', 'steps/0'],
      ['anthropic-messages', 'answer', 'then'],
    ]);
  });
});
