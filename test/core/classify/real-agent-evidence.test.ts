import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendReplayEvent,
  assessReplaySafety,
  classify,
  defaultPolicyDocument,
  evaluate,
  freshCycle,
  openReplayEvidence,
  snapshotReplayEvidence,
  type ReplayEvent,
} from '../../../src/core/index.js';

/**
 * Evidence that real agent CLIs produced (pinned versions, driven over ACP in a loopback-only sandbox against a
 * fault-injecting provider; docs/agents.md says how), replayed through the real catalogue. A catalogue change
 * that stops recognizing a real agent's dialect fails here at once.
 */
interface RealAgentFixture {
  readonly agent: string;
  readonly version: string;
  readonly fault: string;
  readonly evidence: { readonly kind: 'acp_error'; readonly observed_at: string };
  readonly updates_before_error: readonly { readonly update: Record<string, unknown> }[];
  readonly expect: {
    readonly code: string;
    readonly class: 'transient' | 'hard';
    readonly replay: 'safe' | 'assistant_output' | 'tool_activity';
    readonly retry_after: string | null;
  };
}

const dir = new URL('../../fixtures/real-agents/', import.meta.url).pathname;

function load(folder: string): [string, RealAgentFixture][] {
  return readdirSync(folder)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => [file, JSON.parse(readFileSync(join(folder, file), 'utf8')) as RealAgentFixture]);
}

const fixtures = load(dir);
// Known gaps live in gaps/ while there are any (none today: the folder comes back with the next one).
const gapsDir = join(dir, 'gaps');
const gaps = existsSync(gapsDir) ? load(gapsDir) : [];
const classifyAt = (f: RealAgentFixture) => classify(f.evidence, { now: Date.parse(f.evidence.observed_at) });

/**
 * The ACP updates an adapter turns into replay events (agent output, thoughts, tool calls and their updates);
 * the adapter owns this mapping, repeated here only to put the recorded updates through the real gate.
 */
function replayEventOf(update: Record<string, unknown>): ReplayEvent | null {
  const content = update.content as { text?: unknown } | undefined;
  switch (update.sessionUpdate) {
    case 'agent_message_chunk':
      return { kind: 'assistant_output', text: typeof content?.text === 'string' ? content.text : '' };
    case 'agent_thought_chunk':
      return { kind: 'thought' };
    case 'tool_call':
      return { kind: 'tool_call' };
    case 'tool_call_update':
      return { kind: 'tool_update' };
    default:
      return null;
  }
}

const key = { sessionId: 'session-1', executionId: 'execution-1', promptGeneration: 1 };

/** The effect-safety gate's verdict on the updates the agent sent before its error. */
function safetyOf(fixture: RealAgentFixture) {
  let replay = openReplayEvidence(key);
  for (const { update } of fixture.updates_before_error) {
    const event = replayEventOf(update);
    if (event !== null) replay = appendReplayEvent(replay, event);
  }
  return assessReplaySafety(snapshotReplayEvidence(replay), {
    current: key,
    failure: classifyAt(fixture),
    failureMessage: JSON.stringify(fixture.evidence),
  });
}

describe('recorded real-agent evidence', () => {
  it('covers three agents and every scripted fault that ends in an error', () => {
    const agents = new Set(fixtures.map(([, f]) => f.agent));
    expect([...agents].sort()).toEqual(['claude-code', 'codex', 'gemini-cli']);
    const faults = new Set([...fixtures, ...gaps].map(([, f]) => `${f.agent}/${f.fault}`));
    // Eleven faults each; a hung response ends in an error only for Gemini CLI (its own 60 s timeout).
    expect(faults.size).toBe(34);
  });

  it.each(fixtures)('[EVD-01][CLS-01][CLS-04][CLS-23] %s classifies as recorded', (_file, fixture) => {
    const classification = classifyAt(fixture);
    expect({
      code: classification.code,
      class: classification.class,
      retry_after: classification.retry_after,
    }).toEqual({
      code: fixture.expect.code,
      class: fixture.expect.class,
      retry_after: fixture.expect.retry_after,
    });
  });

  it.each(fixtures)('[SAF-04] %s: the updates before the error decide replay', (_file, fixture) => {
    const verdict = safetyOf(fixture);
    expect(verdict.safe ? 'safe' : verdict.reason).toBe(fixture.expect.replay);
  });

  it.each(fixtures)(
    '[POL-13][EVL-01] %s: the default policy switches to the next candidate, or refuses an unsafe replay',
    (_file, fixture) => {
      const now = Date.parse(fixture.evidence.observed_at);
      const decision = evaluate(
        { classification: classifyAt(fixture), safety: safetyOf(fixture) },
        freshCycle,
        defaultPolicyDocument,
        now,
      );
      expect(decision.kind).toBe(fixture.expect.replay === 'safe' ? 'skip' : 'reject');
    },
  );

  // A known gap is evidence the catalogue gets wrong today, with the answer it should give: once the catalogue
  // gets it right, this fails so the fixture moves up beside the others and is held to its answer.
  // With no known gap there is nothing to hold, so the check exists only while gaps/ has a fixture.
  if (gaps.length > 0) {
    it.each(gaps)(
      'known catalogue gap %s is still a gap (move it out of gaps/ once fixed)',
      (_file, fixture) => {
        const classification = classifyAt(fixture);
        expect({ code: classification.code, class: classification.class }).not.toEqual({
          code: fixture.expect.code,
          class: fixture.expect.class,
        });
      },
    );
  }
});
