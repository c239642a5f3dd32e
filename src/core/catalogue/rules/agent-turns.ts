import type { Rule } from '../rule.js';

/**
 * Round 27: what the primary agent CLIs and their ACP adapters print when a turn fails (Claude Code, Codex, Gemini
 * CLI, Qwen Code, Cursor and the agent panels around them). Each rule reads the shape of the turn's end, not one
 * vendor's sentence; each has fixtures (ids r27-…, r27pos-…, r27neg-…) in `catalogue/fixtures/generic.jsonl`.
 */
export const agentTurnRules: readonly Rule[] = [
  {
    id: 'local.turn_interrupted_last.v1',
    description:
      "A turn whose last line is the user's interrupt (`Interrupted by user`, `API Error: Operation aborted`): the agent's own retries of a provider error before it were stopped by the user, so nothing is retried on its own",
    // Structured, so that the provider error quoted in the retry lines above (an `overloaded_error` field) does
    // not outrank the interrupt that ended the turn.
    tier: 'structured',
    priority: 50,
    code: 'cancelled',
    confidence: 'high',
    scope: 'request',
    when: {
      keywords: ['interrupted', 'aborted'],
      // No multiline flag: `$` is the end of the text, so only an interrupt on the last line counts.
      text: /\b(?:interrupted by (?:the )?user|api error: (?:the )?operation (?:was )?aborted)\b[^\n]{0,80}\s*$/,
    },
  },
  {
    id: 'network.stream_connect_refused.v1',
    description:
      "An agent's model stream never opened because the connection was refused (`stream disconnected before completion: No connection could be made because the target machine actively refused it`): nothing answered, so no stream was lost",
    tier: 'signature',
    code: 'network_unavailable',
    confidence: 'medium',
    when: {
      keywords: ['stream'],
      text: /\bstream disconnected before completion: [^\n]{0,40}(?:no connection could be made|actively refused|connection refused|os error 10061|failed to connect to)/,
    },
  },
  {
    id: 'network.streaming_timeout.v1',
    description:
      "An agent's own timeout on a streaming model call (`Streaming request timeout after 46s`, `Streaming setup timeout after 6s`): the call got no complete answer in time",
    tier: 'signature',
    code: 'network_unavailable',
    confidence: 'medium',
    when: {
      keywords: ['streaming'],
      text: /\bstreaming (?:request|setup) timeout after \d{1,6} ?s\b/,
    },
  },
  {
    id: 'transport.stream_stalled.v1',
    description:
      "An agent's model stream stalled with no data within its idle timeout (`stream stalled (no data within idle timeout)`, `Stream idle timeout - no chunks received`): the stream had opened and stopped",
    tier: 'signature',
    code: 'agent_transport_lost',
    confidence: 'medium',
    scope: 'request',
    when: {
      keywords: ['stalled', 'idle', 'chunks'],
      text: /\bstream stalled\b|\bno data (?:received )?within (?:the )?idle timeout\b|\bstream idle timeout\b|\bidle timeout\W{1,4}no chunks received\b/,
    },
  },
  {
    id: 'provider.no_refresh_token.v1',
    description:
      'An OAuth credential stored without a refresh token (`No refresh token available for token refresh`): the login has to be done again',
    tier: 'signature',
    code: 'auth_required',
    confidence: 'medium',
    when: {
      keywords: ['refresh'],
      text: /\bno refresh token (?:is )?(?:available|found|present|stored)\b/,
    },
  },
  {
    id: 'provider.auth_required_set_key.v1',
    description:
      'An agent asks for credentials it has none of (`Authentication required for Claude Code. Set ANTHROPIC_API_KEY or run ...`): the instruction to set a key says none is configured',
    tier: 'signature',
    // Above provider.invalid_credentials.v1 (0), which reads "authentication required" as a refused credential.
    priority: 6,
    code: 'missing_credentials',
    confidence: 'medium',
    when: {
      keywords: ['authentication'],
      text: /\bauthentication required\b[^\n]{0,60}?\bset [a-z][a-z0-9_]{1,40}_(?:api_key|auth_token|token)\b/,
    },
  },
];
