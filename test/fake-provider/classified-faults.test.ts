import { describe, expect, it } from 'vitest';
import { evidenceOfResponse } from '../../src/app/index.js';
import { classify } from '../../src/core/index.js';
import { fakeProvider } from './harness.js';

/**
 * The fake's fault answers go through the project's own evidence builder and classifier, so that the fake stays
 * realistic: a fault that stopped classifying as the provider's real answer does would make every test built on
 * it meaningless.
 */
const endpoints = {
  'anthropic-messages': '/v1/messages',
  'openai-chat': '/v1/chat/completions',
  'openai-responses': '/v1/responses',
  gemini: '/v1beta/models/gemini-fake-1:generateContent',
} as const;

type Api = keyof typeof endpoints;
const everyApi = Object.keys(endpoints) as Api[];

/**
 * The expected code per fault and API (the same for all APIs unless a row says otherwise). Gemini's overload
 * names the model ("The model is overloaded"), which the catalogue reads as that model's capacity.
 */
const expected: ReadonlyArray<readonly [string, string, Partial<Record<Api, string>>?]> = [
  ['overloaded', 'provider_overloaded', { gemini: 'model_capacity' }],
  ['rate_limited', 'rate_limited'],
  ['insufficient_quota', 'quota_limited'],
  ['credit_balance', 'quota_limited'],
  ['invalid_key', 'auth_required'],
  // A bare permission error is ambiguous (a plan, a region, a proxy): the catalogue never acts on it. OpenAI's 403
  // refuses the model itself ("You are not allowed to sample from this model"), which is that model's unavailability.
  [
    'permission_denied',
    'unclassified',
    { 'openai-chat': 'model_unavailable', 'openai-responses': 'model_unavailable' },
  ],
  ['model_not_found', 'model_unavailable'],
  ['server_error', 'provider_unavailable'],
  ['bad_gateway', 'provider_unavailable'],
  ['unavailable', 'provider_unavailable'],
];

describe('fake provider faults, classified', () => {
  it('[CLS-01][EVD-01] each status fault of each API classifies as the real provider failure it imitates', async () => {
    const now = Date.parse('2026-06-01T12:00:00Z');
    const seen: string[] = [];
    const want: string[] = [];
    for (const api of everyApi) {
      for (const [fault, code, per] of expected) {
        const { url: one } = await fakeProvider({ steps: [{ fault }] });
        const response = await fetch(`${one}${endpoints[api]}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'fake-model-1', messages: [], stream: false }),
        });
        const envelope = await evidenceOfResponse(response, {
          provider: api,
          observed_at: '2026-06-01T12:00:00Z',
        });
        const classification = classify(envelope, { now });
        seen.push(`${api} ${fault} ${classification.code ?? 'unclassified'}`);
        want.push(`${api} ${fault} ${per?.[api] ?? code}`);
      }
    }
    expect(seen).toEqual(want);
  });

  it('[CLS-01] a rate limit carries its retry time to the classification', async () => {
    for (const api of everyApi) {
      const { url } = await fakeProvider({ steps: [{ fault: 'rate_limited', retry_after: 30 }] });
      const response = await fetch(`${url}${endpoints[api]}`, { method: 'POST', body: '{}' });
      const envelope = await evidenceOfResponse(response, {
        provider: api,
        observed_at: '2026-06-01T12:00:00Z',
      });
      expect(classify(envelope, { now: Date.parse('2026-06-01T12:00:00Z') }), api).toMatchObject({
        code: 'rate_limited',
        retry_after: '2026-06-01T12:00:30Z',
      });
    }
  });
});
