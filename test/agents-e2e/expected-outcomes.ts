import type { RealAgent } from '../helpers/agent-recipes.js';

/**
 * What the end-to-end suite expects of each real agent per scripted fault: docs/agents.md's outcome table, row for
 * row (keep the two together). `code: null` is unclassified; `replay` is the effect-safety verdict on the turn's
 * replay evidence; `retryAfter` the seconds of a provider retry time the classification kept.
 */
export const scriptedFaults = [
  'overloaded',
  'rate_limited',
  'insufficient_quota',
  'invalid_key',
  'permission_denied',
  'model_not_found',
  'server_error',
  'bad_gateway',
  'unavailable',
  'cut_after_text',
  'cut_after_tool_call',
] as const;
export type ScriptedFault = (typeof scriptedFaults)[number];

export interface ExpectedOutcome {
  readonly code: string | null;
  readonly class: 'transient' | 'hard' | 'unclassified';
  readonly replay: 'safe' | 'assistant_output' | 'tool_activity';
  readonly retryAfter: number | null;
}

const row = (
  code: string | null,
  cls: ExpectedOutcome['class'],
  replay: ExpectedOutcome['replay'] = 'safe',
  retryAfter: number | null = null,
): ExpectedOutcome => ({ code, class: cls, replay, retryAfter });

const overloaded = row('provider_overloaded', 'transient');
const unavailable = row('provider_unavailable', 'transient');
const rateLimited = row('rate_limited', 'transient');
const auth = row('auth_required', 'hard');
const model = row('model_unavailable', 'hard');
const quota = row('quota_limited', 'hard');
const unclassified = (replay: ExpectedOutcome['replay'] = 'safe') => row(null, 'unclassified', replay);
const transportLost = (replay: ExpectedOutcome['replay']) => row('agent_transport_lost', 'transient', replay);

export const expectedOutcomes: Readonly<Record<RealAgent, Readonly<Record<ScriptedFault, ExpectedOutcome>>>> =
  {
    'claude-code': {
      overloaded,
      rate_limited: rateLimited,
      insufficient_quota: quota,
      invalid_key: auth,
      permission_denied: auth,
      model_not_found: model,
      server_error: unavailable,
      bad_gateway: unavailable,
      unavailable,
      // "API Error: terminated" after the retry without streaming: the fetch layer's transport loss (catalogue
      // 2026.12.05-3); the output or tool call it already showed makes a replay unsafe.
      cut_after_text: transportLost('assistant_output'),
      cut_after_tool_call: transportLost('tool_activity'),
    },
    'gemini-cli': {
      overloaded: row('model_capacity', 'transient'),
      rate_limited: row('rate_limited', 'transient', 'safe', 17),
      insufficient_quota: quota,
      invalid_key: auth,
      // The fake's bare 403 PERMISSION_DENIED names no model: ambiguous, left unclassified.
      permission_denied: unclassified(),
      model_not_found: model,
      server_error: unavailable,
      bad_gateway: unavailable,
      unavailable,
      cut_after_text: transportLost('assistant_output'),
      // Gemini CLI shows no tool activity before the cut: nothing was shown, so a replay is safe.
      cut_after_tool_call: transportLost('safe'),
    },
    codex: {
      overloaded,
      rate_limited: rateLimited,
      // Codex drops a 429's body: an insufficient_quota reads as a rate limit.
      insufficient_quota: rateLimited,
      invalid_key: auth,
      // OpenAI's real 403: "You are not allowed to sample from this model".
      permission_denied: model,
      model_not_found: model,
      // Codex renders any 500 as "high demand"; its structured codex_error_info (internal_server_error) wins.
      server_error: unavailable,
      bad_gateway: unavailable,
      unavailable,
      cut_after_text: transportLost('assistant_output'),
      cut_after_tool_call: transportLost('safe'),
    },
  };
