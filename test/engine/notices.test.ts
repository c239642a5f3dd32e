import { describe, expect, it } from 'vitest';
import { envelopes } from './harness.js';
import { noticeHarness, type NoticeHarness } from './notice-harness.js';
import { isRetryNotice, planNoticeWrite, retryNotice, type TranscriptMessage } from '../../src/core/index.js';
import { EngineInputError } from '../../src/engine/index.js';
import { sqliteMigrations } from '../../src/store/sqlite/migrations/index.js';
import { t0 } from '../core/route/route-fixtures.js';

const s1 = { taskId: 't1', sessionId: 's1' };

async function retrying(): Promise<NoticeHarness> {
  const h = await noticeHarness();
  await h.open(s1);
  await h.fail(s1);
  return h;
}

const message = (id: string, createdAtMs: number, metadata: Record<string, unknown>): TranscriptMessage => ({
  id,
  taskId: 't1',
  sessionId: 's1',
  turnId: null,
  kind: 'status',
  content: '',
  metadata,
  createdAtMs,
  updatedAtMs: createdAtMs,
});

describe('the notice (pure)', () => {
  it('[NOT-02][NOT-03] carries retrying: true and shows the safe reason, provider, attempt, absolute deadline and Cancel', () => {
    const body = retryNotice({
      routeId: 'r',
      code: 'provider_overloaded',
      provider: 'anthropic',
      profileId: 'claude-main',
      attempt: 2,
      maxAttempts: 5,
      deadlineMs: t0 + 130_000,
    });
    expect(body.content).toBe('Provider overloaded (anthropic). Retrying at 12:02:10 UTC, attempt 2 of 5.');
    expect(body.metadata).toMatchObject({
      retrying: true,
      attempt: 2,
      max_attempts: 5,
      deadline_at: '2026-06-01T12:02:10Z',
      actions: ['cancel'],
      provider: 'anthropic',
    });
    expect(body.content).not.toContain('provider_overloaded');
  });

  it('[NOT-06][NOT-08] only the boolean true marks a notice; the newest by creation time, then id, is kept', () => {
    expect(isRetryNotice(message('a', 1, { retrying: 'true' }))).toBe(false);
    expect(isRetryNotice(message('a', 1, { retrying: false }))).toBe(false);
    const plan = planNoticeWrite([
      message('b', 5, { retrying: true }),
      message('c', 9, { retrying: true }),
      message('d', 9, { retrying: true }),
      message('e', 10, { retrying: 'true' }),
    ]);
    expect(plan.op === 'update' && [plan.keep.id, plan.duplicates.map((m) => m.id)]).toEqual([
      'd',
      ['c', 'b'],
    ]);
    expect(planNoticeWrite([message('e', 10, { retrying: false })])).toEqual({ op: 'create' });
  });
});

describe('writing an attempt', () => {
  it('[NOT-07][NOT-09][NOT-10] the first attempt creates the notice once; the next updates it in place (same id, creation time, turn)', async () => {
    const h = await retrying();
    try {
      const [created] = await h.db.transcript.list(s1);
      await h.advance(5);
      await h.fail(s1);
      const [updated] = await h.db.transcript.list(s1);
      expect(updated).toMatchObject({
        id: created!.id,
        createdAtMs: created!.createdAtMs,
        turnId: created!.turnId,
        metadata: { attempt: 2 },
      });
      expect(updated!.updatedAtMs).toBeGreaterThan(created!.updatedAtMs);
      expect(h.transcriptEvents.map((e) => e.type)).toEqual([
        'session.message.created',
        'session.message.updated',
      ]);
    } finally {
      await h.close();
    }
  });

  it('[NOT-11][NOT-13] duplicates left by an older version are repaired by the next write', async () => {
    const h = await noticeHarness();
    try {
      await h.open(s1);
      for (const n of [1, 2, 3]) {
        h.clock.set(t0 + n);
        await h.db.transcript.create(s1, {
          kind: 'status',
          content: `old ${n}`,
          metadata: { retrying: true },
          turnId: null,
        });
      }
      await h.fail(s1);
      const left = await h.db.transcript.list(s1);
      expect(left).toHaveLength(1);
      expect(left[0]).toMatchObject({ id: 'm3', metadata: { attempt: 1, retrying: true } });
    } finally {
      await h.close();
    }
  });

  it('[NOT-12] a list or an update failure is logged and swallowed, and no fallback notice is inserted', async () => {
    const h = await retrying();
    try {
      h.faults.update = 1;
      await h.advance(5);
      const outcome = await h.fail(s1);
      expect(outcome).toMatchObject({ outcome: 'changed', route: { state: 'retry_wait', retryOrdinal: 2 } });
      expect(await h.db.transcript.list(s1)).toMatchObject([{ metadata: { attempt: 1 } }]);
      h.faults.list = 1;
      await h.advance(16);
      await h.fail(s1);
      expect(await h.db.transcript.list(s1)).toMatchObject([{ metadata: { attempt: 1 } }]);
      expect(h.logs.filter((l) => /updating|listing/.test(l))).toHaveLength(2);
      // The next write that goes through brings the one notice up to date.
      await h.advance(40);
      await h.fail(s1);
      expect(await h.db.transcript.list(s1)).toMatchObject([{ metadata: { attempt: 4 } }]);
    } finally {
      await h.close();
    }
  });

  it('[NOT-13][NOT-36][NOT-37] a failed deletion stays eligible: the resolver goes on, and a later cleanup removes it', async () => {
    const h = await noticeHarness();
    try {
      await h.open(s1);
      for (const n of [1, 2]) {
        h.clock.set(t0 + n);
        await h.db.transcript.create(s1, {
          kind: 'status',
          content: 'dup',
          metadata: { retrying: true },
          turnId: null,
        });
      }
      await h.fail(s1); // keeps m2, deletes m1
      h.faults.deleteIds.add('m2');
      await h.db.transcript.create(s1, {
        kind: 'status',
        content: 'stray',
        metadata: { retrying: true },
        turnId: null,
      });
      await h.advance(10);
      const success = await h.succeed(s1);
      expect(success).toMatchObject({ outcome: 'changed', route: { state: 'active' } });
      expect((await h.db.transcript.list(s1)).map((m) => m.id)).toEqual(['m2']);
      expect(h.logs.some((l) => l.includes('deleting retry notice m2'))).toBe(true);
      const cancel = await h.sessions.cancel('owner', s1);
      expect(cancel).toEqual({ outcome: 'cancelled', active: false });
      expect(await h.notices(s1)).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('[NOT-14] a cancelled attempt never recreates a retired notice, whatever the order of the events', async () => {
    const h = await retrying();
    try {
      await h.advance(5);
      // The failure and the Cancel race: the Cancel is queued while the failure's notice write is pending.
      const route = await h.db.store.readRoute('session:s1');
      const failure = h.sessions.reportFailure(s1, {
        evidence: envelopes.overloaded,
        replay: null,
        invocationId: route!.dispatch!.intentId,
      });
      const cancel = h.sessions.cancel('owner', s1);
      await Promise.all([failure, cancel]);
      await h.sessions.idle();
      expect(await h.notices(s1)).toBe(0);
      await h.advance(600);
      expect(await h.notices(s1)).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('[NOT-15] no transcript operation runs while a store transaction is open', async () => {
    const h = await noticeHarness();
    const during: string[] = [];
    h.faults.before = (op) => {
      if (h.inTransaction()) during.push(op);
    };
    try {
      await h.open(s1);
      for (let i = 0; i < 3; i++) {
        await h.fail(s1);
        await h.advance((i + 1) * 100);
      }
      await h.succeed(s1);
      await h.sessions.cancel('owner', s1);
      expect(h.faults.calls.length).toBeGreaterThan(5);
      expect(during).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('[NOT-16][NOT-23][CUR-34] nothing is armed or written while the failed turn is still open; then the next attempt is', async () => {
    const h = await retrying();
    try {
      await h.advance(5);
      const open = await h.fail(s1, envelopes.overloaded, { promptOpen: true });
      expect(open).toMatchObject({ outcome: 'refused', reason: 'prompt_open' });
      expect((await h.db.transcript.list(s1))[0]!.metadata.attempt).toBe(1);
      expect(h.engine.armedFor()).toBeNull();
      await h.fail(s1);
      expect((await h.db.transcript.list(s1))[0]!.metadata.attempt).toBe(2);
      expect(h.engine.armedFor()).toBe(t0 + 15_000);
    } finally {
      await h.close();
    }
  });
});

describe('retiring notices', () => {
  it('[NOT-26][NOT-27][NOT-28][NOT-32] success retires the notice by deleting it, and viewers get the deletion event', async () => {
    const h = await retrying();
    try {
      await h.advance(5);
      await h.succeed(s1);
      expect(await h.db.transcript.list(s1)).toEqual([]);
      expect(h.transcriptEvents.at(-1)).toEqual({
        type: 'session.message.deleted',
        taskId: 't1',
        sessionId: 's1',
        messageId: 'm1',
      });
      expect(h.transcriptEvents.some((e) => e.type === 'session.message.updated')).toBe(false);
    } finally {
      await h.close();
    }
  });

  it('[NOT-33] the attempts stay observable in the recovery history after the notice is gone', async () => {
    const h = await retrying();
    try {
      await h.advance(5);
      await h.succeed(s1);
      expect((await h.db.store.listAttempts('session:s1')).map((a) => [a.decision, a.retryOrdinal])).toEqual([
        ['retry', 1],
      ]);
    } finally {
      await h.close();
    }
  });

  it('[NOT-34] a normal successful turn without a retry performs no transcript lookup', async () => {
    const h = await noticeHarness();
    try {
      await h.open(s1);
      const before = h.faults.calls.length;
      await h.succeed(s1);
      expect(h.faults.calls.slice(before)).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('[NOT-35] stop, terminal and Cancel look even when no retry is owned: a persisted notice is still retired', async () => {
    const h = await noticeHarness();
    try {
      await h.open(s1);
      await h.db.transcript.create(s1, {
        kind: 'status',
        content: 'left by a dead process',
        metadata: { retrying: true },
        turnId: null,
      });
      await h.sessions.stop(s1);
      expect(await h.notices(s1)).toBe(0);
      await h.db.transcript.create(s1, {
        kind: 'status',
        content: 'again',
        metadata: { retrying: true },
        turnId: null,
      });
      await h.fail(s1, envelopes.credits); // a terminal outcome for an interactive route: not retriable
      expect(await h.notices(s1)).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('[NOT-38] a cleanup failure never turns a success or a terminal transition into a failure', async () => {
    const h = await retrying();
    try {
      h.faults.list = 5;
      await h.advance(5);
      await expect(h.succeed(s1)).resolves.toMatchObject({ outcome: 'changed', route: { state: 'active' } });
      expect(h.logs.some((l) => l.includes('listing the transcript failed'))).toBe(true);
    } finally {
      await h.close();
    }
  });

  it('[NOT-26][NOT-31] an ordinary session stop while the retry is in flight ends the loop: no notice, no retry, no recovery message', async () => {
    const h = await retrying();
    try {
      await h.advance(5);
      h.clock.set(t0 + 6000);
      await h.sessions.stop(s1);
      h.clock.set(t0 + 7000);
      expect(await h.fail(s1)).toMatchObject({ outcome: 'refused', reason: 'route_stopped' });
      await h.advance(600);
      expect(h.dispatcher.kinds()).toEqual(['initial:claude-main:1', 'retry:claude-main:1']);
      expect(await h.db.transcript.list(s1)).toEqual([]);
      expect(await h.db.store.readRoute('session:s1')).toMatchObject({
        state: 'action_required',
        reason: 'stopped',
      });
    } finally {
      await h.close();
    }
  });

  it('[NOT-17][NOT-16] advancing to the next attempt updates the notice in place and runs no retry-ending reset', async () => {
    const h = await retrying();
    try {
      await h.advance(5);
      const before = h.transcriptEvents.length;
      h.clock.set(t0 + 6000);
      await h.fail(s1);
      const after = h.transcriptEvents.slice(before).map((e) => e.type);
      expect(after).toEqual(['session.message.updated']);
      expect(h.events.some((e) => e.type === 'ignored')).toBe(false);
      // No fence was armed: an event without identity right now is not ignored.
      h.clock.set(t0 + 6500);
      expect(await h.fail(s1, envelopes.overloaded, { late: true })).toMatchObject({
        outcome: 'refused',
        reason: 'not_allowed',
      });
    } finally {
      await h.close();
    }
  });

  it('[NOT-05] a notice is an ordinary transcript message: no table or column of its own', async () => {
    const h = await retrying();
    try {
      const [notice] = await h.db.transcript.list(s1);
      expect(notice).toMatchObject({ kind: 'status', metadata: { retrying: true } });
      expect(Object.keys(sqliteMigrations).some((n) => /notice|retry/i.test(n))).toBe(false);
    } finally {
      await h.close();
    }
  });

  it('[NOT-24] deleting a session while its retry waits retires the retry and the notices first, then removes the row', async () => {
    const h = await retrying();
    try {
      await h.sessions.deleteSession(s1);
      expect(await h.notices(s1)).toBe(0);
      expect(await h.db.sessions.read('s1')).toBeNull();
      // Stopped, the route waits for nothing: it goes with its session, so the session id can be opened again.
      expect(await h.db.store.readRoute('session:s1')).toBeNull();
      await h.advance(600);
      expect(h.dispatcher.kinds()).toEqual(['initial:claude-main:1']);
    } finally {
      await h.close();
    }
  });
});

describe('bad input to the orchestrator', () => {
  it('rejects hostile task, session and owner ids with field-addressed errors and creates nothing', async () => {
    const h = await noticeHarness();
    try {
      const attempt = (input: { taskId: string; sessionId: string; owner: string }) =>
        h.sessions.open({ ...input, profileId: 'claude-main' }).then(
          () => [],
          (error: EngineInputError) => error.issues.map((i) => i.path),
        );
      expect(await attempt({ taskId: '../etc', sessionId: 's1', owner: 'o' })).toEqual(['/task_id']);
      expect(await attempt({ taskId: 't1', sessionId: 'x'.repeat(121), owner: 'o' })).toEqual([
        '/session_id',
      ]);
      expect(await attempt({ taskId: 't1', sessionId: 's1', owner: 'sk-ant-\u0000' })).toEqual(['/owner']);
      expect(await h.db.sessions.list()).toEqual([]);
      await expect(h.sessions.stop({ taskId: 't1', sessionId: 'missing' })).rejects.toBeInstanceOf(
        EngineInputError,
      );
    } finally {
      await h.close();
    }
  });
});

describe('Cancel (CancelTransientRetry)', () => {
  it('[NOT-39][NOT-40][NOT-41] with a live loop: retires the notice, disarms the timer, writes Resume and Start fresh', async () => {
    const h = await retrying();
    try {
      expect(await h.sessions.cancel('owner', s1)).toEqual({ outcome: 'cancelled', active: true });
      await h.sessions.idle();
      const transcript = await h.db.transcript.list(s1);
      expect(transcript.map((m) => [m.kind, m.metadata.actions])).toEqual([
        ['recovery', ['resume', 'start_fresh']],
      ]);
      expect(h.engine.armedFor()).toBeNull();
      await h.advance(600);
      expect(h.dispatcher.kinds()).toEqual(['initial:claude-main:1']);
    } finally {
      await h.close();
    }
  });

  it('[NOT-19][NOT-41][NOT-14][SCN-14] Cancel while the retry is in flight ends the loop: active, Resume/Start fresh once, the late failure schedules nothing', async () => {
    const h = await retrying();
    try {
      await h.advance(5); // the retry is dispatched and accepted: the loop is active
      expect(await h.db.store.readRoute('session:s1')).toMatchObject({ state: 'retrying' });
      h.clock.set(t0 + 6000);
      expect(await h.sessions.cancel('owner', s1)).toEqual({ outcome: 'cancelled', active: true });
      h.clock.set(t0 + 7000);
      expect(await h.fail(s1)).toMatchObject({ outcome: 'refused', reason: 'route_stopped' });
      await h.advance(600);
      expect(h.dispatcher.kinds()).toEqual(['initial:claude-main:1', 'retry:claude-main:1']);
      const transcript = await h.db.transcript.list(s1);
      expect(transcript.map((m) => [m.kind, m.metadata.actions])).toEqual([
        ['recovery', ['resume', 'start_fresh']],
      ]);
      // Cancelling again is an idempotent cleanup: nothing more is written.
      expect(await h.sessions.cancel('owner', s1)).toEqual({ outcome: 'cancelled', active: false });
      expect(await h.db.transcript.list(s1)).toHaveLength(1);
    } finally {
      await h.close();
    }
  });

  it('[NOT-41] the in-flight retry that succeeds after Cancel is still a success', async () => {
    const h = await retrying();
    try {
      await h.advance(5);
      h.clock.set(t0 + 6000);
      await h.sessions.cancel('owner', s1);
      expect(await h.succeed(s1)).toMatchObject({ outcome: 'changed', route: { state: 'active' } });
      expect(await h.notices(s1)).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('[NOT-42][SCN-13] after the loop ended: an idempotent cleanup that retires a stale notice and writes no recovery message', async () => {
    const h = await retrying();
    try {
      await h.advance(5);
      h.faults.deleteIds.add('m1'); // the success's cleanup fails: the notice is stale
      await h.succeed(s1);
      expect(await h.notices(s1)).toBe(1);
      expect(await h.sessions.cancel('owner', s1)).toEqual({ outcome: 'cancelled', active: false });
      expect(await h.sessions.cancel('owner', s1)).toEqual({ outcome: 'cancelled', active: false });
      expect(await h.db.transcript.list(s1)).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('[NOT-43] a denied caller and a foreign task-session pair get the same answer, and nothing changes', async () => {
    const h = await retrying();
    try {
      await h.open({ taskId: 't2', sessionId: 's2' });
      const denied = await h.sessions.cancel('mallory', s1);
      const foreign = await h.sessions.cancel('owner', { taskId: 't2', sessionId: 's1' });
      const unknown = await h.sessions.cancel('owner', { taskId: 't1', sessionId: 'nope' });
      expect(denied).toEqual(foreign);
      expect(unknown).toEqual(foreign);
      expect(await h.notices(s1)).toBe(1);
      expect(await h.db.store.readRoute('session:s1')).toMatchObject({ state: 'retry_wait' });
    } finally {
      await h.close();
    }
  });
});

describe('the process-local lifecycle', () => {
  it('[NOT-20][NOT-22] a late provider event is ignored for exactly five minutes; after that the engine judges it (stale: it never starts a loop)', async () => {
    const h = await retrying();
    try {
      await h.advance(5);
      await h.succeed(s1);
      const retiredAt = h.clock.now();
      for (const after of [60_000, 240_000, 299_999]) {
        h.clock.set(retiredAt + after);
        expect(await h.fail(s1, envelopes.overloaded, { late: true })).toEqual({
          outcome: 'ignored',
          reason: 'fenced',
        });
      }
      expect(await h.notices(s1)).toBe(0);
      h.clock.set(retiredAt + 300_000);
      expect(await h.fail(s1, envelopes.overloaded, { late: true })).toMatchObject({
        outcome: 'refused',
        reason: 'stale_invocation',
        route: { state: 'active' },
      });
      expect(await h.notices(s1)).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('[NOT-22] a new prompt with a complete identity lifts the fence at once', async () => {
    const h = await retrying();
    try {
      await h.advance(5);
      await h.fail(s1, envelopes.credits); // ends the loop: action_required, fenced
      const resumed = await h.engine.act({
        routeId: 'session:s1',
        action: 'retry_now',
        expectedGeneration: 1,
      });
      expect(resumed.route.state).toBe('retrying');
      await h.sessions.idle();
      expect(await h.fail(s1, envelopes.overloaded, { late: true })).toMatchObject({ outcome: 'changed' });
    } finally {
      await h.close();
    }
  });

  it('[NOT-18][NOT-19][NOT-21][NOT-25] churn: 300 sessions retrying and finishing at once end with no notice and no guard entry left', async () => {
    const h = await noticeHarness();
    try {
      const refs = Array.from({ length: 300 }, (_, i) => ({ taskId: `t${i % 7}`, sessionId: `s${i}` }));
      await Promise.all(refs.map((r) => h.sessions.open({ ...r, profileId: 'claude-main', owner: 'owner' })));
      await h.sessions.idle();
      await Promise.all(refs.map((r) => h.fail(r)));
      expect(h.sessions.guardEntries()).toBe(300);
      await h.advance(5);
      // A third succeed, a third are cancelled, a third stop; all at once.
      await Promise.all(
        refs.map((r, i) =>
          i % 3 === 0 ? h.succeed(r) : i % 3 === 1 ? h.sessions.cancel('owner', r) : h.sessions.stop(r),
        ),
      );
      await h.sessions.idle();
      const left = await Promise.all(refs.map((r) => h.notices(r)));
      expect(left.reduce((a, b) => a + b, 0)).toBe(0);
      // Entries live until their fence passes, and no longer.
      expect(h.sessions.guardEntries()).toBe(300);
      await h.advance(5 + 301);
      expect(h.sessions.guardEntries()).toBe(0);
    } finally {
      await h.close();
    }
  }, 120_000);

  it('[NOT-18] a waiter counted in before it waits is never handed a replacement guard', async () => {
    const h = await noticeHarness();
    try {
      await h.open(s1);
      await h.succeed(s1); // released, no fence: reclaimable at once
      const order: string[] = [];
      const a = h.sessions.cancel('owner', s1).then(() => order.push('a'));
      const b = h.sessions.cancel('owner', s1).then(() => order.push('b'));
      // The reclaim timer fires while both are in or waiting: the entry stays for them.
      h.clock.fireDue();
      await Promise.all([a, b]);
      expect(order).toEqual(['a', 'b']);
      expect(h.sessions.guardEntries()).toBe(1);
      await h.advance(301);
      expect(h.sessions.guardEntries()).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('[NOT-26] a shutdown does not end a durable retry: after the restart one true notice remains and the retry fires once; a stop or Cancel then retires it', async () => {
    for (const end of ['stop', 'cancel'] as const) {
      const h = await retrying();
      try {
        await h.restart();
        expect(await h.notices(s1)).toBe(1);
        await h.advance(5);
        expect(h.dispatcher.kinds()).toEqual(['initial:claude-main:1', 'retry:claude-main:1']);
        expect(await h.notices(s1)).toBe(1);
        if (end === 'stop') await h.sessions.stop(s1);
        else expect(await h.sessions.cancel('owner', s1)).toEqual({ outcome: 'cancelled', active: true });
        expect(await h.notices(s1)).toBe(0);
        await h.advance(600);
        expect(h.dispatcher.kinds()).toHaveLength(2);
      } finally {
        await h.close();
      }
    }
  });

  it('[NOT-04] after a restart the retry is still owned: its success retires the notice', async () => {
    const h = await retrying();
    try {
      await h.restart();
      await h.advance(5);
      await h.succeed(s1);
      expect(await h.notices(s1)).toBe(0);
    } finally {
      await h.close();
    }
  });
});
