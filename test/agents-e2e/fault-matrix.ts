import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcpAgent, TurnResult } from '../../src/acp/index.js';
import {
  defaultPolicyDocument,
  evaluate,
  freshCycle,
  type PolicyDecision,
  type PolicyDocument,
} from '../../src/core/index.js';
import type { RealAgent } from '../helpers/agent-recipes.js';
import { openAgent, openAgentSandbox, type AgentSandbox } from './agent-harness.js';
import { expectedOutcomes, scriptedFaults, type ExpectedOutcome } from './expected-outcomes.js';

/**
 * One real agent against every scripted fault, in one process: the fake provider is restarted with the case's
 * fault on the same port between prompts (every generation request of the case gets the fault, as a provider in
 * trouble does), the agent keeps running. Each turn's evidence comes through the ACP adapter (structured error,
 * ordered updates, prompt barrier) and is judged there; the policy evaluator then takes each policy's decision.
 * Claude Code's session answers nothing more after a failed prompt (its next prompts end at once, unsent), and
 * each new session keeps a Claude Code process of its own (about 150 MB) until the agent ends, so it gets a new
 * agent process per case (`freshProcess`): one at a time, in the same namespace and home.
 */

const prompt = 'Say hello in one short sentence.';

/** docs/policy.md's example: transient retries from 5 s after a reset wait, then skip; hard waits or stops. */
const retryingPolicy: PolicyDocument = {
  version: 1,
  transient: {
    retry: { enabled: true, max_retries: 3, initial_interval_seconds: 5 },
    wait_for_reset: { enabled: true, max_wait_seconds: 300 },
    on_exhausted: 'skip',
  },
  hard: {
    retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
    wait_for_reset: { enabled: true, max_wait_seconds: 300 },
    on_exhausted: 'stop',
  },
};

type Failure = Extract<TurnResult, { outcome: 'failure' }>;

/** When the adapter observed the failure (it stamps every envelope). */
function observedAtOf(turn: Failure): number {
  const at = turn.evidence.observed_at;
  if (at === undefined || at === null) throw new Error('the adapter left observed_at off the evidence');
  return Date.parse(at);
}

function decide(turn: Failure, policy: PolicyDocument): PolicyDecision {
  const now = observedAtOf(turn);
  return evaluate({ classification: turn.classification, safety: turn.safety }, freshCycle, policy, now);
}

/** What each policy must decide for an expected outcome (the table's "default policy" and the retrying one). */
function expectedDecisions(expected: ExpectedOutcome, observedAt: number) {
  if (expected.class === 'unclassified') {
    const reject = { kind: 'reject', reason: 'unclassified' };
    return { byDefault: reject, byRetrying: reject };
  }
  if (expected.replay !== 'safe') {
    const reject = { kind: 'reject', reason: 'unsafe', detail: expected.replay };
    return { byDefault: reject, byRetrying: reject };
  }
  const byDefault = { kind: 'skip', class: expected.class };
  if (expected.class === 'hard') return { byDefault, byRetrying: { kind: 'stop', class: 'hard' } };
  const byRetrying =
    expected.retryAfter === null
      ? { kind: 'retry', delaySeconds: 5, deadlineMs: observedAt + 5_000, delaySource: 'policy' }
      : { kind: 'wait_for_reset', delaySource: 'retry_after' };
  return { byDefault, byRetrying };
}

export function describeRealAgent(agent: RealAgent, options: { freshProcess: boolean }): void {
  describe(`${agent} over ACP against the fake provider, one process`, () => {
    let sandbox: AgentSandbox;
    let acp: AcpAgent;
    const started = Date.now();

    beforeAll(async () => {
      sandbox = await openAgentSandbox(agent, { answer: 'Hello there.' });
      acp = await openAgent(sandbox, `e2e-${agent}`);
    });

    afterAll(async () => {
      await acp?.shutdown();
      await sandbox?.close();
      console.log(`${agent}: fault matrix took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    });

    /** Serves `step` to every generation request, on a new session where the agent needs one. */
    async function nextCase(step: Record<string, unknown>): Promise<number> {
      await sandbox.provider.serve(step);
      if (options.freshProcess) {
        await acp.shutdown();
        acp = await openAgent(sandbox, `e2e-${agent}`);
      }
      return sandbox.provider.log.length;
    }

    it('[EVD-01] a success run completes normally', async () => {
      const turn = await acp.prompt(prompt);
      expect(turn).toMatchObject({ outcome: 'success', stopReason: 'end_turn' });
    });

    it.each(scriptedFaults)(
      '[EVD-01][SAF-04][POL-13][EVL-01] %s: classified as docs/agents.md says, each policy decides',
      async (fault) => {
        const mark = await nextCase({ fault });
        const turn = await acp.prompt(prompt);
        await sandbox.provider.stop();
        // The fault was really served: the agent called the provider at least once for this prompt.
        expect(sandbox.provider.generationsSince(mark).length).toBeGreaterThanOrEqual(1);
        expect(turn.outcome).toBe('failure');
        const failure = turn as Failure;
        const expected = expectedOutcomes[agent][fault];
        const observedAt = observedAtOf(failure);
        expect(failure.evidence).toMatchObject({
          kind: 'acp_error',
          phase: 'prompt',
          invocation_id: `e2e-${agent}`,
        });
        expect({
          code: failure.classification.code,
          class: failure.classification.class,
          replay: failure.safety.safe ? 'safe' : failure.safety.reason,
          retryAfter:
            failure.classification.retry_after === null
              ? null
              : Math.round((Date.parse(failure.classification.retry_after) - observedAt) / 1000),
        }).toEqual(expected);
        const wanted = expectedDecisions(expected, observedAt);
        expect(decide(failure, defaultPolicyDocument)).toMatchObject(wanted.byDefault);
        const retrying = decide(failure, retryingPolicy);
        if (retrying.kind === 'wait_for_reset') {
          // The reset comes from the provider's hint, measured from when the evidence was observed (to the ms).
          const reset = observedAt + (expected.retryAfter ?? 0) * 1000;
          expect(Math.abs(retrying.deadlineMs - reset)).toBeLessThan(1000);
        }
        expect(retrying).toMatchObject(wanted.byRetrying);
      },
    );

    it('[OUT-01][CUR-34] hang: nothing is decided while the prompt is open; a cancel ends it cleanly', async () => {
      const mark = await nextCase({ fault: 'hang' });
      const errorsBefore = promptErrors(acp);
      let settled: TurnResult | null = null;
      const turn = acp.prompt(prompt).then((result) => (settled = result));
      // A bounded few seconds of silence: no failure may be inferred from it.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      // The request reached the provider, which holds it unanswered (it logs a hang as soon as it starts one).
      expect(sandbox.provider.generationsSince(mark).map((entry) => entry.served)).toContain('hang');
      expect(settled).toBeNull();
      expect(promptErrors(acp)).toBe(errorsBefore);
      const cancelledAt = Date.now();
      await acp.cancel();
      expect(await turn).toMatchObject({ outcome: 'cancelled' });
      console.log(`${agent}: cancel answered in ${Date.now() - cancelledAt} ms`);
    });

    it('after the cancel the agent answers the next prompt', async () => {
      await nextCase({ answer: 'Back again.' });
      expect(await acp.prompt(prompt)).toMatchObject({ outcome: 'success' });
    });
  });
}

/** The structured errors the agent answered prompts with so far. */
function promptErrors(acp: AcpAgent): number {
  return acp.evidence.filter((e) => e.kind === 'acp_error' && e.phase === 'prompt').length;
}
