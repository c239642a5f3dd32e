import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceOfResponse } from '../../src/app/index.js';
import { classify, evidenceOfError, parseEnvelope } from '../../src/core/index.js';

/**
 * The evidence builders against the real SDKs (Anthropic, OpenAI, Google) and `fetch`, each talking to a local
 * HTTP server that answers the way the provider does when it fails: what the SDK throws goes through
 * `evidenceOfError` and the classifier, as an embedding orchestrator's would.
 */
type Answer = { status: number; headers: Record<string, string>; body: string };
let answer: Answer = { status: 500, headers: {}, body: '' };
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const now = Date.parse('2026-06-01T12:00:00Z');
async function thrown(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}
const classified = (error: unknown, provider: string) => {
  const envelope = evidenceOfError(error, { provider, observed_at: '2026-06-01T12:00:00Z' });
  expect(parseEnvelope(envelope).ok).toBe(true);
  return { envelope, classification: classify(envelope, { now }) };
};

describe('evidence from what an SDK or fetch throws', () => {
  it('[EVD-01][CLS-01] the Anthropic SDK: a 529 overloaded error keeps its class name, status, body and retry-after', async () => {
    answer = {
      status: 529,
      headers: { 'retry-after': '20' },
      body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    };
    const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: base, maxRetries: 0 });
    const error = await thrown(() =>
      client.messages.create({
        model: 'claude-x',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    const { envelope, classification } = classified(error, 'anthropic');
    expect(envelope).toMatchObject({ kind: 'sdk_exception', status: 529, headers: { 'retry-after': '20' } });
    expect(envelope.name).toMatch(/Error$/);
    expect(classification).toMatchObject({ code: 'provider_overloaded', class: 'transient' });
  });

  it('[EVD-01][CLS-01] the OpenAI SDK: a 429 rate limit keeps its structured code and its Retry-After', async () => {
    answer = {
      status: 429,
      headers: { 'retry-after': '7' },
      body: '{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}',
    };
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: base, maxRetries: 0 });
    const error = await thrown(() =>
      client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] }),
    );
    const { envelope, classification } = classified(error, 'openai');
    expect(envelope).toMatchObject({ status: 429, headers: { 'retry-after': '7' } });
    expect(envelope.message).toContain('rate_limit_exceeded');
    expect(classification).toMatchObject({ code: 'rate_limited', retry_after: '2026-06-01T12:00:07Z' });
  });

  it('[EVD-01][CLS-01] the Google Gen AI SDK: a 429 RESOURCE_EXHAUSTED quota error', async () => {
    answer = {
      status: 429,
      headers: {},
      body: JSON.stringify({
        error: {
          code: 429,
          message: 'You exceeded your current quota, please check your plan and billing details.',
          status: 'RESOURCE_EXHAUSTED',
        },
      }),
    };
    const client = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: base } });
    const error = await thrown(() => client.models.generateContent({ model: 'gemini-x', contents: 'hi' }));
    const { envelope, classification } = classified(error, 'gemini');
    expect(envelope).toMatchObject({ status: 429 });
    expect(classification).toMatchObject({ code: 'quota_limited', class: 'hard' });
  });

  it('[EVD-01] fetch to a closed port: "fetch failed" with its system error cause is a network failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await thrown(() => fetch(`http://127.0.0.1:${port}/v1/messages`));
    const { envelope, classification } = classified(error, 'anthropic');
    expect(envelope).toMatchObject({ name: 'TypeError' });
    expect(envelope.message).toMatch(/fetch failed.*ECONNREFUSED/);
    expect(classification).toMatchObject({ code: 'network_unavailable', class: 'transient' });
  });

  it('anything else thrown (a string, a plain object, a cycle) still makes a valid envelope', () => {
    const cyclic: Record<string, unknown> = { message: 'loop' };
    cyclic.cause = cyclic;
    for (const value of ['boom', 42, null, undefined, { weird: true }, cyclic, Symbol('s')]) {
      const envelope = evidenceOfError(value);
      expect(parseEnvelope(envelope).ok, String(typeof value)).toBe(true);
    }
  });
});

describe('evidence from an HTTP response', () => {
  it('[EVD-01][EVD-02] reads status, headers and at most the envelope bound of the body', async () => {
    answer = {
      status: 503,
      headers: { 'retry-after': '30' },
      body: `{"type":"error","error":{"type":"api_error","message":"Service Unavailable"}}${' '.repeat(200_000)}`,
    };
    const response = await fetch(`${base}/v1/messages`, { method: 'POST', body: '{}' });
    const envelope = await evidenceOfResponse(response, {
      provider: 'anthropic',
      observed_at: '2026-06-01T12:00:00Z',
    });
    expect(envelope).toMatchObject({ kind: 'http', status: 503, headers: { 'retry-after': '30' } });
    expect(typeof envelope.body === 'string' && envelope.body.length).toBe(64 * 1024);
    expect(classify(envelope, { now })).toMatchObject({
      code: 'provider_unavailable',
      retry_after: '2026-06-01T12:00:30Z',
    });
  });

  it('a body the caller already read is simply absent', async () => {
    answer = { status: 500, headers: {}, body: 'oops' };
    const response = await fetch(base);
    await response.text();
    expect(await evidenceOfResponse(response)).toMatchObject({ status: 500, body: '' });
  });
});
