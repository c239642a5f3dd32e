import { describe, expect, it } from 'vitest';
import { failure } from '../../src/acp/judge-turn.js';
import { acpErrorEvidence, type EvidenceOrigin } from '../../src/acp/acp-evidence.js';
import { RequestError } from '@agentclientprotocol/sdk';

const origin: EvidenceOrigin = {
  agent: 'some-agent',
  provider: null,
  invocationId: 'inv-1',
  promptGeneration: 1,
  phase: 'prompt',
  observedAtMs: Date.parse('2026-06-01T12:00:00Z'),
};
const key = { sessionId: 's-1', executionId: 'inv-1', promptGeneration: 1 };

describe('[EVD-02] an ACP error whose data is hostile JSON', () => {
  it('is judged: data nested 100,000 deep (as an agent may write it; JSON.parse reads it) does not overflow the stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    const evidence = acpErrorEvidence(
      origin,
      new RequestError(-32603, 'Internal error: API Error: 529', deep),
    );
    const result = failure({ replay: null, stderrText: '', origin, key }, evidence);
    expect(result).toMatchObject({ outcome: 'failure', classification: { code: 'provider_overloaded' } });
  });
});
