import { describe, expect, it } from 'vitest';
import { AcpDispatcher, type AcpTurn, type LaunchRecipe } from '../../src/acp/index.js';
import { openRecourse } from '../../src/app/index.js';
import type { DispatchIntent, DynamicProfileInput } from '../../src/core/index.js';
import { advanceManualClock, ManualClock } from '../../src/engine/index.js';
import { tempDatabase } from '../engine/harness.js';
import { t0 } from '../core/route/route-fixtures.js';
import { scriptedRecipe } from './acp-harness.js';

// A real engine on a real SQLite file (manual clock) dispatching to real scripted ACP agents over stdio.

function policy(retries: number) {
  return {
    version: 1 as const,
    transient: {
      retry: { enabled: retries > 0, max_retries: retries, initial_interval_seconds: retries > 0 ? 5 : 0 },
      wait_for_reset: { enabled: false, max_wait_seconds: 0 },
      on_exhausted: 'skip' as const,
    },
    hard: {
      retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
      wait_for_reset: { enabled: false, max_wait_seconds: 0 },
      on_exhausted: 'stop' as const,
    },
  };
}

async function harness(
  recipes: Record<string, LaunchRecipe>,
  retries = 0,
  onUpdate: (update: Readonly<Record<string, unknown>>) => void = () => undefined,
) {
  const clock = new ManualClock(t0);
  const turns: { intent: DispatchIntent; turn: AcpTurn }[] = [];
  const errors: unknown[] = [];
  // eslint-disable-next-line prefer-const -- the dispatcher needs the engine, which is built with it
  let recourse: Awaited<ReturnType<typeof openRecourse>>;
  const dispatcher = new AcpDispatcher({
    recipes,
    engine: () => recourse.engine,
    onTurn: (intent, turn) => turns.push({ intent, turn }),
    onError: (e) => errors.push(e),
    onUpdate,
  });
  recourse = await openRecourse({ database: await tempDatabase(), clock, dispatcher });
  const candidates = Object.keys(recipes).map((id) => ({
    profile_id: id,
    provider: id,
    policy: policy(retries),
  }));
  const profile: DynamicProfileInput = { id: 'fleet', name: 'Fleet', candidates };
  await recourse.engine.saveProfile(profile);
  const advance = (seconds: number) =>
    advanceManualClock(clock, { idle: () => recourse.engine.idle() }, t0 + seconds * 1000);
  return { recourse, dispatcher, turns, errors, advance };
}

type Harness = Awaited<ReturnType<typeof harness>>;

/** Runs `body` on a fresh harness and always closes it (the agents' processes with it). */
async function withHarness(
  recipes: Record<string, LaunchRecipe>,
  options: { retries?: number; onUpdate?: (update: Readonly<Record<string, unknown>>) => void },
  body: (h: Harness) => Promise<void>,
): Promise<void> {
  const h = await harness(recipes, options.retries, options.onUpdate);
  try {
    await body(h);
  } finally {
    await h.recourse.close();
  }
}

/** A Codex agent that fails unless its session is loaded: the route's first turn fails and waits to retry. */
async function codexFailedOnce(
  h: Harness,
  payload: { prompt: string; continuation?: string },
): Promise<void> {
  await h.recourse.engine.startRoute({ routeId: 'task', profileId: 'fleet', payload });
  await h.recourse.engine.waitFor('task', (r) => r.state === 'retry_wait');
}

const codexFailUnlessLoaded = () => ({ codex: scriptedRecipe('fail_unless_loaded', { agent: 'codex-acp' }) });

describe('AcpDispatcher', () => {
  it('[SAF-14][SAF-15][CUR-38] a Cursor normal-completion failure at the safe point switches to the next candidate, which answers the cached prompt', async () => {
    const recipes = {
      cursor: scriptedRecipe('cursor_normal_completion', { agent: 'cursor-acp' }),
      claude: scriptedRecipe('success', { agent: 'claude' }),
    };
    await withHarness(recipes, {}, async ({ recourse, turns, errors }) => {
      await recourse.engine.startRoute({
        routeId: 'task',
        profileId: 'fleet',
        payload: { prompt: 'fix it' },
      });
      const done = recourse.engine.waitFor('task', (r) => r.outcome === 'succeeded');
      expect(await done).toMatchObject({ outcome: 'succeeded', candidate: 'claude' });
      expect(turns.map((t) => `${t.intent.kind}:${t.intent.candidate}:${t.turn.outcome}`)).toEqual([
        'initial:cursor:failure',
        'successor:claude:success',
      ]);
      const attempts = await recourse.store.listAttempts('task');
      expect(attempts.map((a) => `${a.code}:${a.decision}`)).toEqual(['agent_transport_lost:skip']);
      // The successor's replay identity is its own intent, reserved before its agent started.
      expect(turns[1]?.intent.id).not.toBe(turns[0]?.intent.id);
      expect(errors).toEqual([]);
    });
  });

  it('[CUR-30][SAF-13] the incident (thoughts, a Read File tool call in flight, the marker) stops for a person: no replay', async () => {
    const recipes = {
      cursor: scriptedRecipe('cursor_incident', { agent: 'cursor-acp' }),
      claude: scriptedRecipe('success', { agent: 'claude' }),
    };
    await withHarness(recipes, {}, async ({ recourse, turns }) => {
      await recourse.engine.startRoute({ routeId: 'task', profileId: 'fleet', payload: 'fix it' });
      const stopped = recourse.engine.waitFor('task', (r) => r.state === 'action_required');
      expect(await stopped).toMatchObject({
        state: 'action_required',
        reason: 'unsafe',
        detail: 'tool_activity',
      });
      expect(turns).toHaveLength(1);
    });
  });

  it('[CUR-32][CUR-31] a retry of the same candidate resumes its provider-native session with session/load and the cached prompt', async () => {
    await withHarness(codexFailUnlessLoaded(), { retries: 2 }, async (h) => {
      await codexFailedOnce(h, { prompt: 'fix it' });
      const done = h.recourse.engine.waitFor('task', (r) => r.outcome === 'succeeded');
      await h.advance(5);
      expect(await done).toMatchObject({ outcome: 'succeeded', candidate: 'codex' });
      expect(
        h.turns.map((t) => `${t.intent.kind}:${t.turn.outcome}:${t.turn.resumed}:${t.turn.sessionId}`),
      ).toEqual(['initial:failure:false:scripted-1', 'retry:success:true:scripted-1']);
    });
  });

  it('Start fresh: a payload asking for a fresh continuation opens session/new on retry', async () => {
    await withHarness(codexFailUnlessLoaded(), { retries: 1 }, async (h) => {
      await codexFailedOnce(h, { prompt: 'fix it', continuation: 'fresh' });
      const settled = h.recourse.engine.waitFor(
        'task',
        (r) => r.outcome !== 'waiting' && h.turns.length === 2,
      );
      await h.advance(5);
      await settled;
      expect(h.turns.map((t) => `${t.intent.kind}:${t.turn.outcome}:${t.turn.resumed}`)).toEqual([
        'initial:failure:false',
        'retry:failure:false',
      ]);
    });
  });

  it("[CUR-34][CUR-35][OUT-01] while the agent's prompt is open nothing is decided, however silent it is; a cancel then stops for a person", async () => {
    let working: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (working = resolve));
    const recipes = {
      hang: scriptedRecipe('hang', { agent: 'claude' }),
      claude: scriptedRecipe('success', { agent: 'claude' }),
    };
    await withHarness(
      recipes,
      { retries: 3, onUpdate: () => working() },
      async ({ recourse, dispatcher, turns }) => {
        await recourse.engine.startRoute({ routeId: 'task', profileId: 'fleet', payload: 'fix it' });
        await started;
        for (let i = 0; i < 50; i++) {
          await recourse.engine.idle();
          await new Promise((resolve) => setImmediate(resolve));
        }
        expect(await recourse.engine.route('task')).toMatchObject({ state: 'active', candidate: 'hang' });
        expect(await recourse.store.listAttempts('task')).toEqual([]);
        expect(await dispatcher.cancel('task')).toBe(true);
        const stopped = await recourse.engine.waitFor('task', (r) => r.state === 'action_required');
        expect(stopped).toMatchObject({ state: 'action_required', candidate: 'hang' });
        expect(turns.map((t) => t.turn.outcome)).toEqual(['cancelled']);
        expect(await dispatcher.cancel('task')).toBe(false);
      },
    );
  });
});
