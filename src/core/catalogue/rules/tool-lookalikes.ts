import { modelTarget } from './model-hosts.js';
import type { Rule } from '../rule.js';

/**
 * Round 29: the texts that read like a provider failing a prompt but come from the tools around an agent (installers
 * and updaters, editor extensions and language servers, sign-in and token endpoints, MCP servers, web fetch and
 * search tools, git hosting, package and container registries, telemetry, local databases and model servers), and the
 * nearest real model-call failures in the same words. Most of the round's shapes widen the shared vetoes in
 * `prose.ts` (`notTheModelCall`); the rules here read the few shapes that name a code of their own. Each has
 * fixtures (ids r29-…, r29pos-…, r29neg-…) in `catalogue/fixtures/generic.jsonl`.
 */

/** A model host or model API path (`model-hosts.ts`), as a group to embed in a larger pattern. */
const modelCall = `(?:${modelTarget.source})`;

export const toolLookalikeRules: readonly Rule[] = [
  {
    id: 'provider.free_trial_request_cap.v1',
    description:
      "A free trial's allowance of requests used up (`HTTP 429 Too Many Requests from …/stream_chat You have exceeded the maximum number of requests for the free trial`): the trial's cap, not a short window, whatever 429 carries it",
    tier: 'signature',
    // Above provider.rate_limited.v1 (0), which reads the 429 and "too many requests" as a throttle.
    priority: 11,
    code: 'quota_limited',
    confidence: 'medium',
    when: {
      keywords: ['trial'],
      text: /\b(?:exceeded|reached|used up|hit) (?:the |your )?(?:maximum|max|limit)(?: number)?(?: of)?(?: requests| messages| uses)?[^\n]{0,20} (?:for|of|in|on) (?:the |your )?free trial\b|\bfree trial (?:limit|quota|allowance) (?:reached|exceeded|used up)\b/,
    },
  },
  {
    id: 'network.browser_fetch_model_endpoint.v1',
    description:
      "A browser-side fetch of a model endpoint that never got an answer, in the browsers' own words (`Error fetching from https://generativelanguage.googleapis.com/…:streamGenerateContent?alt=sse: Load failed`; Chromium's `Failed to fetch`, Firefox's `NetworkError when attempting to fetch resource`): the way to the model API",
    tier: 'signature',
    code: 'network_unavailable',
    confidence: 'medium',
    when: {
      keywords: ['fetching'],
      text: new RegExp(
        String.raw`\berror fetching from https?:\/\/[^\s]{0,200}?${modelCall}[^\s]{0,300}: (?:load failed|failed to fetch|networkerror when attempting to fetch resource)`,
      ),
    },
  },
];
