import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AcpDispatcher, type AcpTurn, type LaunchRecipe } from '../../src/acp/index.js';
import { openRecourse } from '../../src/app/index.js';
import type { ClassPolicy, DispatchIntent, PolicyDocument } from '../../src/core/index.js';
import type { RealAgent } from '../helpers/agent-recipes.js';
import { openAgentSandbox, type AgentSandbox, type ProviderStep } from './agent-harness.js';

/**
 * Whole routes through real agents: the real engine on a real SQLite file (the wall clock) dispatching with
 * AcpDispatcher, each dispatch starting the candidate's agent in its sandbox beside its fake provider. A wait the
 * policy schedules is asserted by its stored due time, never waited out.
 */

const off = { enabled: false, max_retries: 0, initial_interval_seconds: 0 };
const noWait = { enabled: false, max_wait_seconds: 0 };
const skip: ClassPolicy = { retry: off, wait_for_reset: noWait, on_exhausted: 'skip' };
const stop: ClassPolicy = { retry: off, wait_for_reset: noWait, on_exhausted: 'stop' };
const policies = {
  skip: { version: 1, transient: skip, hard: skip },
  retry5: {
    version: 1,
    transient: {
      retry: { enabled: true, max_retries: 3, initial_interval_seconds: 5 },
      wait_for_reset: noWait,
      on_exhausted: 'skip',
    },
    hard: stop,
  },
  waitForReset: {
    version: 1,
    transient: { retry: off, wait_for_reset: { enabled: true, max_wait_seconds: 300 }, on_exhausted: 'skip' },
    hard: stop,
  },
} satisfies Record<string, PolicyDocument>;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function sandbox(agent: RealAgent, step: ProviderStep): Promise<AgentSandbox> {
  const box = await openAgentSandbox(agent, step);
  open.push(box);
  return box;
}

/** A route on a dynamic profile over `candidates` (in order), all on `policy`. */
async function route(candidates: Record<string, LaunchRecipe>, policy: PolicyDocument) {
  const turns: { intent: DispatchIntent; turn: AcpTurn }[] = [];
  const errors: unknown[] = [];
  const folder = mkdtempSync(join(tmpdir(), 'recourse-e2e-route-'));
  // eslint-disable-next-line prefer-const -- the dispatcher needs the engine, which is built with it
  let recourse: Awaited<ReturnType<typeof openRecourse>>;
  const dispatcher = new AcpDispatcher({
    recipes: candidates,
    engine: () => recourse.engine,
    onTurn: (intent, turn) => turns.push({ intent, turn }),
    onError: (error) => errors.push(error),
    environment: {},
  });
  recourse = await openRecourse({ database: join(folder, 'recourse.db'), dispatcher });
  open.push({
    close: async () => {
      await recourse.close();
      rmSync(folder, { recursive: true, force: true });
    },
  });
  await recourse.engine.saveProfile({
    id: 'agents',
    name: 'Agents',
    candidates: Object.keys(candidates).map((id) => ({ profile_id: id, provider: id, policy })),
  });
  await recourse.engine.startRoute({
    routeId: 'task',
    profileId: 'agents',
    payload: { prompt: 'Say hello.' },
  });
  return { engine: recourse.engine, store: recourse.store, dispatcher, turns, errors };
}

describe('routes through real agents (engine + AcpDispatcher on SQLite)', () => {
  it('[SAF-14][POL-13] a two-candidate profile switches from Claude Code (overloaded) to Gemini CLI, which answers', async () => {
    const claude = await sandbox('claude-code', { fault: 'overloaded' });
    const gemini = await sandbox('gemini-cli', { answer: 'Hello from Gemini.' });
    const { engine, store, turns, errors } = await route(
      { claude: claude.recipe, gemini: gemini.recipe },
      policies.skip,
    );
    expect(await engine.waitFor('task', (r) => r.outcome !== 'waiting' && turns.length === 2)).toMatchObject({
      outcome: 'succeeded',
      candidate: 'gemini',
    });
    expect(turns.map((t) => `${t.intent.kind}:${t.intent.candidate}:${t.turn.outcome}`)).toEqual([
      'initial:claude:failure',
      'successor:gemini:success',
    ]);
    const attempts = await store.listAttempts('task');
    expect(attempts.map((a) => `${a.candidate}:${a.code}:${a.decision}`)).toEqual([
      'claude:provider_overloaded:skip',
    ]);
    expect(errors).toEqual([]);
  });

  it('[EVL-01] Gemini CLI rate-limited with retry-after 17: the route waits for the reset, due 17 s after the failure', async () => {
    const gemini = await sandbox('gemini-cli', { fault: 'rate_limited', retry_after: 17 });
    const { engine, store, turns } = await route({ gemini: gemini.recipe }, policies.waitForReset);
    const waiting = await engine.waitFor('task', (r) => r.state === 'waiting_for_reset');
    const [attempt] = await store.listAttempts('task');
    const failure = turns[0]?.turn;
    expect(failure?.outcome).toBe('failure');
    const observedAt = failure?.outcome === 'failure' ? Date.parse(failure.evidence.observed_at ?? '') : NaN;
    expect(attempt).toMatchObject({
      code: 'rate_limited',
      decision: 'wait_for_reset',
      delaySource: 'retry_after',
    });
    // The reset is the provider's 17 s from when the error was observed (the hint is whole seconds: within 1 s).
    expect(
      Math.abs((waiting.state === 'waiting_for_reset' ? waiting.deadlineMs : 0) - (observedAt + 17_000)),
    ).toBeLessThan(1000);
    expect(attempt?.deadlineMs).toBe(waiting.state === 'waiting_for_reset' ? waiting.deadlineMs : null);
  });

  it('[EVL-01] Codex overloaded under a retry policy: a retry is scheduled 5 s after the failure', async () => {
    const codex = await sandbox('codex', { fault: 'overloaded' });
    const { engine, store } = await route({ codex: codex.recipe }, policies.retry5);
    const waiting = await engine.waitFor('task', (r) => r.state === 'retry_wait');
    const [attempt] = await store.listAttempts('task');
    expect(attempt).toMatchObject({
      code: 'provider_overloaded',
      decision: 'retry',
      retryOrdinal: 1,
      delaySource: 'policy',
    });
    expect(waiting.state === 'retry_wait' ? waiting.deadlineMs : null).toBe((attempt?.atMs ?? 0) + 5_000);
  });

  it('Codex with an invalid key under a stopping hard policy: the route stops', async () => {
    const codex = await sandbox('codex', { fault: 'invalid_key' });
    const { engine, store, turns } = await route({ codex: codex.recipe }, policies.retry5);
    const stopped = await engine.waitFor('task', (r) => r.outcome !== 'waiting' && turns.length === 1);
    expect(stopped).toMatchObject({ state: 'action_required' });
    const attempts = await store.listAttempts('task');
    expect(attempts.map((a) => `${a.code}:${a.decision}`)).toEqual(['auth_required:stop']);
  });

  it('[SAF-04][SAF-13] Codex cut after streamed text: action_required, no replay, though a retry policy is set', async () => {
    const codex = await sandbox('codex', { fault: 'cut_after_text' });
    const { engine, turns } = await route({ codex: codex.recipe }, policies.retry5);
    expect(await engine.waitFor('task', (r) => r.state === 'action_required')).toMatchObject({
      reason: 'unsafe',
      detail: 'assistant_output',
    });
    expect(turns).toHaveLength(1);
  });

  it('[SAF-04][CUR-30] Claude Code cut after a tool call: action_required, no replay, no successor', async () => {
    const claude = await sandbox('claude-code', { fault: 'cut_after_tool_call' });
    const gemini = await sandbox('gemini-cli', { answer: 'Hello from Gemini.' });
    const { engine, turns } = await route({ claude: claude.recipe, gemini: gemini.recipe }, policies.retry5);
    const stopped = await engine.waitFor('task', (r) => r.state === 'action_required');
    expect(stopped).toMatchObject({ candidate: 'claude' });
    expect(turns).toHaveLength(1);
    const turn = turns[0]?.turn;
    expect(turn?.outcome === 'failure' ? turn.safety : null).toEqual({
      safe: false,
      reason: 'tool_activity',
    });
  });

  it('[OUT-01][CUR-34][CUR-35] Codex on a hung provider: no decision while the prompt is open; a cancel stops for a person', async () => {
    const codex = await sandbox('codex', { fault: 'hang' });
    const { engine, store, dispatcher, turns } = await route({ codex: codex.recipe }, policies.retry5);
    await engine.waitFor('task', (r) => r.state === 'active');
    // Let the prompt reach the provider, then a bounded few seconds of silence.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(codex.provider.generationsSince(0).map((entry) => entry.served)).toContain('hang');
    expect(await engine.route('task')).toMatchObject({ state: 'active', candidate: 'codex' });
    expect(await store.listAttempts('task')).toEqual([]);
    expect(turns).toEqual([]);
    expect(await dispatcher.cancel('task')).toBe(true);
    expect(await engine.waitFor('task', (r) => r.state === 'action_required')).toMatchObject({
      candidate: 'codex',
    });
    expect(turns.map((t) => t.turn.outcome)).toEqual(['cancelled']);
  });
});
