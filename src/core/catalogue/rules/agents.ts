import type { Rule } from '../rule.js';

/** Agent-protocol and agent-CLI specific evidence: ACP JSON-RPC codes and the Cursor retriable diagnostic. */
export const agentRules: readonly Rule[] = [
  {
    id: 'cursor.retriable_stream_reset.v1',
    description:
      'A complete Cursor diagnostic `Error: RetriableError: <bounded, non-empty suffix>` (HTTP/2 reset, PING timed out, Connection stalled); cancellation, deadline and escalation veto it',
    tier: 'signature',
    priority: 20,
    code: 'agent_transport_lost',
    confidence: 'high',
    scope: 'request',
    when: {
      kinds: ['acp_error', 'acp_update', 'stderr', 'sdk_exception', 'http', 'process_exit'],
      keywords: ['retriableerror'],
      predicate: 'cursor_retriable_diagnostic',
    },
  },
  {
    id: 'acp.auth_required.v1',
    description:
      'JSON-RPC -32000 alone: ACP reserves it for authentication required, other agents use it for any server error; never acted on',
    tier: 'structured',
    generic: true,
    code: 'auth_required',
    confidence: 'low',
    when: { kinds: ['acp_error'], rpcCodes: [-32000] },
  },
  {
    id: 'acp.invalid_params.v1',
    description: 'JSON-RPC -32600/-32602: the request to the agent was invalid',
    tier: 'structured',
    generic: true,
    code: 'bad_request',
    confidence: 'medium',
    when: { kinds: ['acp_error'], rpcCodes: [-32600, -32602] },
  },
  {
    id: 'acp.protocol_failure.v1',
    description: 'JSON-RPC -32700/-32601: the agent runtime could not parse or does not implement the call',
    tier: 'structured',
    generic: true,
    code: 'local_runtime',
    confidence: 'medium',
    when: { kinds: ['acp_error'], rpcCodes: [-32700, -32601] },
  },
  {
    id: 'acp.resource_not_found.v1',
    description:
      'ACP -32002: a resource (file, session) was not found; the code decides, never a provider phrase',
    tier: 'structured',
    code: 'resume_state',
    confidence: 'medium',
    when: { kinds: ['acp_error'], rpcCodes: [-32002] },
  },
];
