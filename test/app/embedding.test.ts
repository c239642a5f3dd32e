import { describe, expect, it } from 'vitest';
import { openRecourse, type RunAttemptFunction, type RunResult } from '../../src/app/index.js';
import type { DynamicProfileInput, EvidenceEnvelope } from '../../src/core/index.js';
import {
  advanceManualClock,
  ManualClock,
  VersionConflictError,
  type EngineEvent,
} from '../../src/engine/index.js';
import { tempDatabase } from '../engine/harness.js';
import { t0 } from '../core/route/route-fixtures.js';

const retries = {
  version: 1 as const,
  transient: {
    retry: { enabled: true, max_retries: 3, initial_interval_seconds: 5 },
    wait_for_reset: { enabled: true, max_wait_seconds: 120 },
    on_exhausted: 'skip' as const,
  },
  hard: {
    retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
    wait_for_reset: { enabled: false, max_wait_seconds: 0 },
    on_exhausted: 'stop' as const,
  },
};
const profile: DynamicProfileInput = {
  id: 'fleet',
  name: 'Fleet',
  candidates: [
    { profile_id: 'claude', provider: 'anthropic', policy: retries },
    { profile_id: 'gpt', provider: 'openai', policy: retries },
  ],
};
const overloaded: EvidenceEnvelope = {
  kind: 'http',
  status: 529,
  provider: 'anthropic',
  body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
};

/** A Recourse on a real SQLite file and a manual clock, running attempts through `run`. */
async function embedded(run: RunAttemptFunction, file?: string) {
  const database = file ?? (await tempDatabase());
  const clock = new ManualClock(t0);
  const events: EngineEvent[] = [];
  const errors: unknown[] = [];
  const recourse = await openRecourse({
    database,
    clock,
    run,
    onEvent: (e) => events.push(e),
    onError: (e) => errors.push(e),
  });
  // The run's outcome is reported after it returns: let those reports land too.
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      await recourse.engine.idle();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const advance = async (seconds: number) => {
    await advanceManualClock(clock, { idle: settle }, t0 + seconds * 1000);
    await settle();
  };
  return { recourse, clock, events, errors, database, settle, advance };
}

describe('openRecourse({ run }): the dispatcher helper', () => {
  it('[EVL-02][EVL-16] an agent failing 529, 529, then 429 with Retry-After, then succeeding: retries at 5 and 10 s, waits for the reset, succeeds', async () => {
    const tried: string[] = [];
    const script: (() => RunResult | never)[] = [
      () => {
        throw Object.assign(new Error('529 {"type":"error","error":{"type":"overloaded_error"}}'), {
          status: 529,
        });
      },
      () => ({ status: 'failure', evidence: overloaded }),
      () => ({
        status: 'failure',
        evidence: {
          kind: 'http',
          status: 429,
          provider: 'anthropic',
          headers: { 'retry-after': '30' },
          body: '{"type":"error","error":{"type":"rate_limit_error","message":"Rate limited"}}',
        },
      }),
      () => ({ status: 'success' }),
    ];
    const { recourse, advance, settle } = await embedded((attempt) => {
      tried.push(`${attempt.intent.kind}:${attempt.intent.candidate}:${JSON.stringify(attempt.payload)}`);
      return script[tried.length - 1]!();
    });
    try {
      await recourse.engine.saveProfile(profile);
      await recourse.engine.startRoute({
        routeId: 'task-1',
        profileId: 'fleet',
        payload: { prompt: 'fix it' },
      });
      await settle();
      const done = recourse.engine.waitFor('task-1', (r) => r.outcome === 'succeeded');
      await advance(5);
      await advance(15);
      expect(await recourse.engine.route('task-1')).toMatchObject({
        state: 'waiting_for_reset',
        outcome: 'waiting',
      });
      await advance(45);
      expect(await done).toMatchObject({ state: 'active', outcome: 'succeeded', candidate: 'claude' });
      expect(tried).toEqual([
        'initial:claude:{"prompt":"fix it"}',
        'retry:claude:{"prompt":"fix it"}',
        'retry:claude:{"prompt":"fix it"}',
        'reset_retry:claude:{"prompt":"fix it"}',
      ]);
      const attempts = await recourse.store.listAttempts('task-1');
      expect(attempts.map((a) => `${a.code}:${a.decision}`)).toEqual([
        'provider_overloaded:retry',
        'provider_overloaded:retry',
        'rate_limited:wait_for_reset',
      ]);
    } finally {
      await recourse.close();
    }
  });

  it('[SAF-09][SAF-04] what the attempt recorded before it threw decides: tool activity stops for a person', async () => {
    const { recourse, settle } = await embedded((attempt) => {
      attempt.record({ kind: 'tool_call' });
      throw Object.assign(new Error('overloaded_error'), { status: 529 });
    });
    try {
      await recourse.engine.saveProfile(profile);
      await recourse.engine.startRoute({ routeId: 't', profileId: 'fleet' });
      await settle();
      expect(await recourse.engine.route('t')).toMatchObject({
        state: 'action_required',
        reason: 'unsafe',
        detail: 'tool_activity',
        outcome: 'needs_action',
      });
    } finally {
      await recourse.close();
    }
  });

  it("[SAF-02] plain progress facts returned with a failure are the attempt's replay evidence", async () => {
    const { recourse, settle } = await embedded(() => ({
      status: 'failure',
      evidence: overloaded,
      progress: { assistant_output: true },
    }));
    try {
      await recourse.engine.saveProfile(profile);
      await recourse.engine.startRoute({ routeId: 't', profileId: 'fleet' });
      await settle();
      expect(await recourse.engine.route('t')).toMatchObject({
        reason: 'unsafe',
        detail: 'assistant_output',
      });
    } finally {
      await recourse.close();
    }
  });

  it('needs exactly one of run and dispatcher', async () => {
    const database = await tempDatabase();
    const clock = new ManualClock(t0);
    await expect(openRecourse({ database, clock })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(
      openRecourse({
        database,
        clock,
        run: () => undefined,
        dispatcher: { dispatch: () => Promise.resolve() },
      }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('a report that arrives after close is dropped to onError; the next start reports the attempt orphaned', async () => {
    let finish!: () => void;
    const { recourse, settle, errors, database } = await embedded(
      () => new Promise<void>((resolve) => (finish = resolve)),
    );
    await recourse.engine.saveProfile(profile);
    await recourse.engine.startRoute({ routeId: 't', profileId: 'fleet' });
    await settle();
    await recourse.close();
    finish();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(errors).toMatchObject([{ code: 'closed' }]);
    const again = await openRecourse({ database, clock: new ManualClock(t0), run: () => undefined });
    try {
      expect(again.report.orphaned).toMatchObject([{ routeId: 't', kind: 'initial' }]);
    } finally {
      await again.close();
    }
  });
});

describe('profiles: versions numbered by the store', () => {
  it('numbers versions 1, 2, ... whatever the input says; an unchanged save is not a new version; a stale edit conflicts', async () => {
    const { recourse } = await embedded(() => undefined);
    const engine = recourse.engine;
    try {
      expect(await engine.saveProfile({ ...profile, version: 7 })).toMatchObject({ version: 1 });
      expect(await engine.saveProfile(profile)).toMatchObject({ version: 1 });
      const edited = { ...profile, name: 'Fleet, edited' };
      expect(await engine.saveProfile(edited, { expectedVersion: 1 })).toMatchObject({ version: 2 });
      const stale = engine.saveProfile({ ...profile, name: 'Fleet, stale edit' }, { expectedVersion: 1 });
      await expect(stale).rejects.toBeInstanceOf(VersionConflictError);
      await expect(stale).rejects.toMatchObject({
        code: 'version_conflict',
        current: { version: 2, name: 'Fleet, edited' },
      });
      await expect(
        engine.saveProfile({ ...profile, id: 'new' }, { expectedVersion: 1 }),
      ).rejects.toMatchObject({
        code: 'version_conflict',
        current: null,
      });
      expect(await engine.saveProfile({ ...profile, id: 'new' }, { expectedVersion: 0 })).toMatchObject({
        version: 1,
      });
      await expect(engine.saveProfile(profile, { expectedVersion: -1 })).rejects.toMatchObject({
        code: 'invalid_input',
      });
      expect(await recourse.store.readProfile('fleet')).toMatchObject({ version: 2 });
    } finally {
      await recourse.close();
    }
  });
});

describe('routes: payload, listing, purging, waiting', () => {
  it('refuses a payload that is not plain JSON or is over 64 KiB, naming the field, and starts nothing', async () => {
    const { recourse } = await embedded(() => undefined);
    try {
      await recourse.engine.saveProfile(profile);
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      for (const payload of [{ big: 'x'.repeat(70_000) }, { at: new Date() }, cyclic, { n: Number.NaN }]) {
        await expect(
          recourse.engine.startRoute({ routeId: 'p', profileId: 'fleet', payload: payload as never }),
        ).rejects.toMatchObject({
          code: 'invalid_input',
          issues: [{ path: expect.stringMatching(/^\/payload/) as unknown }],
        });
      }
      expect(await recourse.engine.route('p')).toBeNull();
    } finally {
      await recourse.close();
    }
  });

  it('lists routes by state and profile a page at a time, and purges only those that wait for nothing', async () => {
    const { recourse, settle, clock } = await embedded((attempt) =>
      attempt.intent.routeId.startsWith('ok')
        ? { status: 'success' }
        : { status: 'failure', evidence: overloaded },
    );
    const engine = recourse.engine;
    try {
      await engine.saveProfile(profile);
      for (const id of ['ok-1', 'ok-2', 'ok-3', 'fail-1'])
        await engine.startRoute({ routeId: id, profileId: 'fleet' });
      await settle();
      const first = await engine.listRoutes({ limit: 2 });
      expect(first.routes.map((r) => r.id)).toEqual(['fail-1', 'ok-1']);
      const second = await engine.listRoutes({ limit: 2, after: first.next! });
      expect(second.routes.map((r) => r.id)).toEqual(['ok-2', 'ok-3']);
      expect((await engine.listRoutes({ state: 'retry_wait' })).routes.map((r) => r.id)).toEqual(['fail-1']);
      expect((await engine.listRoutes({ profileId: 'other' })).routes).toEqual([]);
      await expect(engine.listRoutes({ limit: 0 })).rejects.toMatchObject({ code: 'invalid_input' });
      clock.set(t0 + 1000);
      expect(await engine.purgeRoutes({ beforeMs: t0 + 1000 })).toBe(3);
      expect((await engine.listRoutes()).routes.map((r) => `${r.id}:${r.outcome}`)).toEqual([
        'fail-1:waiting',
      ]);
      expect(await recourse.store.listAttempts('ok-1')).toEqual([]);
    } finally {
      await recourse.close();
    }
  });

  it('waitFor resolves at once when the predicate already holds, and times out on the engine clock', async () => {
    const { recourse, settle, clock } = await embedded(() => ({ status: 'success' }));
    try {
      await recourse.engine.saveProfile(profile);
      await recourse.engine.startRoute({ routeId: 't', profileId: 'fleet' });
      await settle();
      expect(await recourse.engine.waitFor('t', (r) => r.outcome === 'succeeded')).toMatchObject({ id: 't' });
      const never = recourse.engine.waitFor('t', (r) => r.state === 'switching', { timeoutMs: 1000 });
      await settle(); // the timeout counts from the first look at the route
      clock.set(t0 + 1000);
      clock.fireDue();
      await expect(never).rejects.toMatchObject({ code: 'timeout' });
      await expect(recourse.engine.waitFor('missing', () => true)).rejects.toMatchObject({
        code: 'not_found',
      });
    } finally {
      await recourse.close();
    }
  });

  it('waitFor ends, never hangs: a purge of its route, a closing engine, a throwing predicate, bad options', async () => {
    const { recourse, settle, clock } = await embedded(() => ({ status: 'success' }));
    const engine = recourse.engine;
    try {
      await engine.saveProfile(profile);
      await engine.startRoute({ routeId: 'done', profileId: 'fleet' });
      await settle();
      const purged = engine.waitFor('done', (r) => r.outcome === 'running');
      clock.set(t0 + 1000);
      expect(await engine.purgeRoutes({ beforeMs: t0 + 1000 })).toBe(1);
      await expect(purged).rejects.toMatchObject({ code: 'not_found' });

      await engine.startRoute({ routeId: 'next', profileId: 'fleet' });
      await settle();
      await expect(
        engine.waitFor('next', () => {
          throw new Error('predicate bug');
        }),
      ).rejects.toThrow('predicate bug');
      for (const timeoutMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(engine.waitFor('next', () => false, { timeoutMs })).rejects.toMatchObject({
          code: 'invalid_input',
          issues: [expect.objectContaining({ path: '/timeout_ms' })],
        });
      }
      await expect(engine.waitFor('next', 'yes' as never)).rejects.toMatchObject({ code: 'invalid_input' });
      const pending = engine.waitFor('next', (r) => r.state === 'switching');
      await recourse.close();
      await expect(pending).rejects.toMatchObject({ code: 'closed' });
      await expect(engine.waitFor('next', () => true)).rejects.toMatchObject({ code: 'closed' });
    } finally {
      await recourse.close();
    }
  });

  it('tells listeners one event per kind: an acknowledgement is not a transition, and reconciliation reaches them', async () => {
    const { recourse, settle, events } = await embedded(() => ({ status: 'success' }));
    try {
      await recourse.engine.saveProfile(profile);
      await recourse.engine.startRoute({ routeId: 't', profileId: 'fleet' });
      await settle();
      expect(events.map((e) => e.type)).toEqual([
        'reconciled',
        'transition',
        'dispatch',
        'dispatch_acknowledged',
        'transition',
      ]);
      expect(
        events.filter((e) => e.type === 'transition').map((e) => e.type === 'transition' && e.decision),
      ).toEqual(['start', 'success']);
    } finally {
      await recourse.close();
    }
  });
});
