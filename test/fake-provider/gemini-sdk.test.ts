import { ApiError, GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { fakeProvider, thrown } from './harness.js';

/**
 * The fake provider's Gemini endpoints, called by the real Google Gen AI SDK (it retries only when given
 * `httpOptions.retryOptions`, so none is given),
 * and by fetch for the JSON-array stream the SDK never asks for.
 */
const client = (url: string) =>
  new GoogleGenAI({ apiKey: 'AIzaFakeTestKey0123456789abcdefghijklmno', httpOptions: { baseUrl: url } });
const params = { model: 'gemini-fake-1', contents: 'hi' };
const tool = { name: 'read_file', arguments: { path: 'a.txt' } };

describe('fake provider: Gemini through the real SDK', () => {
  it('answers with text, whole and streamed', async () => {
    const { url } = await fakeProvider({ steps: [{ answer: 'Hello from the fake.', times: 2 }] });
    const response = await client(url).models.generateContent(params);
    expect(response.text).toBe('Hello from the fake.');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    let text = '';
    for await (const chunk of await client(url).models.generateContentStream(params))
      text += chunk.text ?? '';
    expect(text).toBe('Hello from the fake.');
  });

  it('renders a tool call as functionCall, whole and streamed', async () => {
    const { url } = await fakeProvider({ steps: [{ answer: '', tool_call: tool, times: 2 }] });
    const response = await client(url).models.generateContent(params);
    expect(response.functionCalls).toEqual([{ name: 'read_file', args: { path: 'a.txt' } }]);
    const calls: unknown[] = [];
    for await (const chunk of await client(url).models.generateContentStream(params))
      calls.push(...(chunk.functionCalls ?? []));
    expect(calls).toEqual([{ name: 'read_file', args: { path: 'a.txt' } }]);
  });

  it('streams a JSON array without alt=sse', async () => {
    const { url } = await fakeProvider({ steps: [{ answer: 'one two three' }] });
    const response = await fetch(`${url}/v1beta/models/gemini-fake-1:streamGenerateContent`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    const chunks = JSON.parse(await response.text()) as {
      candidates: { content: { parts: { text: string }[] } }[];
    }[];
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((c) => c.candidates[0]!.content.parts.map((p) => p.text).join('')).join('')).toBe(
      'one two three',
    );
  });

  it('each status fault arrives as an ApiError of its status with the google.rpc.Status body', async () => {
    const faults = [
      ['overloaded', 529, 'UNAVAILABLE'],
      ['rate_limited', 429, 'RESOURCE_EXHAUSTED'],
      ['insufficient_quota', 429, 'RESOURCE_EXHAUSTED'],
      ['credit_balance', 429, 'RESOURCE_EXHAUSTED'],
      ['invalid_key', 401, 'UNAUTHENTICATED'],
      ['permission_denied', 403, 'PERMISSION_DENIED'],
      ['model_not_found', 404, 'NOT_FOUND'],
      ['server_error', 500, 'INTERNAL'],
      ['bad_gateway', 502, 'UNAVAILABLE'],
      ['unavailable', 503, 'UNAVAILABLE'],
    ] as const;
    const { url } = await fakeProvider({ steps: faults.map(([fault]) => ({ fault })) });
    for (const [fault, status, rpcStatus] of faults) {
      const error = await thrown(() => client(url).models.generateContent(params));
      expect(error, fault).toBeInstanceOf(ApiError);
      expect((error as ApiError).status, fault).toBe(status);
      // The SDK puts the body's JSON in its message.
      const body = JSON.parse((error as ApiError).message) as { error: Record<string, unknown> };
      expect(body.error, fault).toMatchObject({
        code: status,
        status: rpcStatus,
        details: expect.any(Array) as unknown[],
      });
    }
  });

  it('rate_limited says when in RetryInfo and retry-after; the quota fault carries a per-day QuotaFailure', async () => {
    const { url } = await fakeProvider({
      steps: [{ fault: 'rate_limited', retry_after: 5 }, { fault: 'insufficient_quota' }],
    });
    const limited = await fetch(`${url}/v1beta/models/gemini-fake-1:generateContent`, {
      method: 'POST',
      body: '{}',
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('5');
    const details = ((await limited.json()) as { error: { details: Record<string, unknown>[] } }).error
      .details;
    expect(details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '5s' });
    const quota = JSON.parse(
      ((await thrown(() => client(url).models.generateContent(params))) as ApiError).message,
    ) as {
      error: { details: { '@type': string; violations?: { quotaId: string }[] }[] };
    };
    const failure = quota.error.details.find((d) => d['@type'].endsWith('QuotaFailure'));
    expect(failure?.violations?.[0]?.quotaId).toMatch(/PerDay/);
  });

  it('cut_after_text and cut_after_tool_call end the stream with an error after what was sent', async () => {
    const { url } = await fakeProvider({
      steps: [{ fault: 'cut_after_text' }, { fault: 'cut_after_tool_call' }],
    });
    for (const fault of ['cut_after_text', 'cut_after_tool_call']) {
      let text = '';
      const calls: unknown[] = [];
      const finishes: unknown[] = [];
      const error = await thrown(async () => {
        for await (const chunk of await client(url).models.generateContentStream(params)) {
          // Read from the parts: `chunk.text` warns on a chunk that holds a function call.
          for (const part of chunk.candidates?.[0]?.content?.parts ?? []) text += part.text ?? '';
          calls.push(...(chunk.functionCalls ?? []));
          finishes.push(chunk.candidates?.[0]?.finishReason);
        }
      });
      expect(error, fault).toBeInstanceOf(Error);
      expect(fault === 'cut_after_text' ? text.length : calls.length, fault).toBeGreaterThan(0);
      expect(
        finishes.filter((f) => f !== undefined),
        fault,
      ).toEqual([]);
    }
  });

  it('hang is cancelled by aborting; model lists and token counts consume nothing', async () => {
    const { url, log } = await fakeProvider({ steps: [{ fault: 'hang' }], then: { answer: 'next' } });
    const pager = await client(url).models.list();
    expect(pager.page.map((m) => m.name)).toContain('models/gemini-fake-1');
    expect(await client(url).models.countTokens(params)).toMatchObject({
      totalTokens: expect.any(Number) as number,
    });
    const abort = new AbortController();
    const pending = thrown(() =>
      client(url).models.generateContent({ ...params, config: { abortSignal: abort.signal } }),
    );
    await expect.poll(() => log.length).toBe(3);
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    expect((await client(url).models.generateContent(params)).text).toBe('next');
    expect(log.map((l) => [l.served, l.step])).toEqual([
      ['models', null],
      ['count_tokens', null],
      ['hang', 'steps/0'],
      ['answer', 'then'],
    ]);
  });
});
