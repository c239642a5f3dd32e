import type { Rule } from '../rule.js';
import {
  hedgedCause,
  loopbackUnknownError,
  notTheModelCall,
  notTheProviderAccount,
  unreadHtmlResponse,
} from './prose.js';

/**
 * Bare HTTP status codes, from a structured field or anchored in text. Generic: any specific signature in
 * the message outranks them ("the message beats the status code"), and their negative priority puts them
 * below every other generic structured field (an error type or reason says more than a status).
 */
export const httpStatusRules: readonly Rule[] = [
  {
    id: 'http.status_400.v1',
    description: 'HTTP 400 with no more specific evidence: a bad request, not a provider failure',
    tier: 'structured',
    generic: true,
    priority: -10,
    code: 'bad_request',
    confidence: 'medium',
    when: { status: [400] },
  },
  {
    id: 'http.status_401.v1',
    description: 'HTTP 401: credentials rejected',
    tier: 'structured',
    generic: true,
    priority: -10,
    code: 'auth_required',
    confidence: 'medium',
    // A named service's own credentials or credits (notTheProviderAccount): no provider account answered.
    when: { status: [401], unless: notTheProviderAccount },
  },
  {
    id: 'http.status_402.v1',
    description: 'HTTP 402: payment or credits required',
    tier: 'structured',
    generic: true,
    priority: -10,
    code: 'quota_limited',
    confidence: 'medium',
    // A named service's own credentials or credits (notTheProviderAccount): no provider account answered.
    when: { status: [402], unless: notTheProviderAccount },
  },
  {
    id: 'http.status_403.v1',
    description: 'HTTP 403 alone is ambiguous (permission, region, plan, proxy): never acted on',
    tier: 'structured',
    generic: true,
    priority: -10,
    code: 'auth_required',
    confidence: 'low',
    when: { status: [403] },
  },
  {
    id: 'http.status_403_invalid_request.v1',
    description:
      'HTTP 403 typed invalid_request_error: a permission denial, not a malformed request (still ambiguous)',
    tier: 'structured',
    generic: true,
    // OpenAI types nearly every 4xx invalid_request_error, so at a 403 the type says nothing about the request:
    // above the bare type's bad_request, and as ambiguous as a bare 403 (a specific message still outranks it).
    priority: 5,
    code: 'auth_required',
    confidence: 'low',
    when: { status: [403], fields: { type: ['invalid_request_error'] } },
  },
  {
    id: 'http.status_404.v1',
    description: 'HTTP 404 alone is ambiguous (model or endpoint): never acted on',
    tier: 'structured',
    generic: true,
    priority: -10,
    code: 'model_unavailable',
    confidence: 'low',
    when: { status: [404] },
  },
  {
    id: 'http.status_408.v1',
    description: 'HTTP 408: the request timed out at the provider',
    tier: 'structured',
    generic: true,
    priority: -10,
    code: 'provider_unavailable',
    confidence: 'medium',
    when: { status: [408] },
  },
  {
    id: 'http.status_413.v1',
    description: 'HTTP 413: the request is too large, waiting cannot help',
    tier: 'structured',
    generic: true,
    priority: -10,
    code: 'request_too_large',
    confidence: 'high',
    when: { status: [413] },
  },
  {
    id: 'http.status_422.v1',
    description: 'HTTP 422: the request was rejected as invalid',
    tier: 'structured',
    generic: true,
    priority: -10,
    code: 'bad_request',
    confidence: 'medium',
    when: { status: [422] },
  },
  {
    id: 'http.status_429.v1',
    description: 'HTTP 429: too many requests',
    tier: 'structured',
    generic: true,
    priority: -10,
    code: 'rate_limited',
    confidence: 'medium',
    // A help page explaining that a 429 "is not caused by" the rate limit "but most probably by" another limit; a
    // failed action on something that is no model call (a token, an image, a package ...); a body typed as an
    // authentication error whose code is 429 says two opposite things.
    when: {
      status: [429],
      unless: new RegExp(
        `${hedgedCause.source}|${notTheModelCall.source}|\\btype\\W{1,6}auth(?:entication)?_error\\b`,
      ),
    },
  },
  {
    id: 'http.status_499.v1',
    description: 'HTTP 499: the client closed the request',
    tier: 'structured',
    generic: true,
    priority: -10,
    code: 'cancelled',
    confidence: 'medium',
    when: { status: [499] },
  },
  {
    id: 'http.status_5xx.v1',
    description: 'HTTP 500, 502, 503, 504 and Cloudflare 52x: the provider failed to serve',
    tier: 'structured',
    generic: true,
    priority: -10,
    code: 'provider_unavailable',
    confidence: 'medium',
    when: {
      status: [500, 502, 503, 504, 520, 521, 522, 523, 524, 525, 526, 530],
      // A gateway whose own code threw answers 5xx with the exception as its body: no provider failed.
      // A CDN's own verdict on its origin ("503 Server Error: Backend is unhealthy", Varnish and Fastly) names
      // neither the origin nor a provider. An error object typed as the client's bad request under a 5xx
      // (`{"type": "bad_request", ...}` with 500, round 36) contradicts its status: neither says the provider failed.
      // An HTML page where the client wanted JSON is a response nobody read (`unreadHtmlResponse`).
      unless: new RegExp(
        String.raw`cannot read propert(?:y|ies) of (?:undefined|null)|${unreadHtmlResponse.source}|\bbackend is unhealthy\b|["']type["']\s{0,3}:\s{0,3}["'](?:bad_request|invalid_request_error)["']|${loopbackUnknownError.source}|${notTheModelCall.source}`,
      ),
    },
  },
  {
    id: 'http.status_529.v1',
    description: 'HTTP 529: the provider is overloaded',
    tier: 'structured',
    generic: true,
    priority: -10,
    code: 'provider_overloaded',
    confidence: 'high',
    when: { status: [529] },
  },
];
