import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { envelopes, harness, profileDocument, RecordingDispatcher, tempDatabase } from './harness.js';
import { openRecourse } from '../../src/app/index.js';
import { errorCodes, RecourseError } from '../../src/core/index.js';
import { ManualClock, type EngineEvent } from '../../src/engine/index.js';
import { standardPolicy, t0 } from '../core/route/route-fixtures.js';

describe('engine errors carry stable codes', () => {
  it('maps bad input, unknown ids, taken ids and a closed engine to codes, never to parsed messages', async () => {
    const h = await harness();
    await h.engine.saveProfile(profileDocument(standardPolicy));
    await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
    const codeOf = async (p: Promise<unknown>) => {
      try {
        await p;
        return 'resolved';
      } catch (error) {
        expect(error).toBeInstanceOf(RecourseError);
        return (error as RecourseError).code;
      }
    };
    expect(await codeOf(h.engine.act({ routeId: 'nope', action: 'stop', expectedGeneration: 1 }))).toBe(
      'not_found',
    );
    expect(await codeOf(h.engine.startRoute({ routeId: 'x', profileId: 'missing' }))).toBe('not_found');
    expect(await codeOf(h.engine.startRoute({ routeId: 'r1', profileId: 'p' }))).toBe('route_exists');
    expect(
      await codeOf(
        h.engine.reportFailure({ routeId: 'r1', generation: 0, evidence: { kind: 'http' } as never }),
      ),
    ).toBe('invalid_input');
    expect(
      await codeOf(
        h.engine.reportFailure({
          routeId: 'r1',
          generation: 1,
          evidence: envelopes.overloaded,
          replay: { key: 'not a key' } as never,
        }),
      ),
    ).toBe('invalid_input');
    await h.close();
    expect(await codeOf(h.engine.act({ routeId: 'r1', action: 'stop', expectedGeneration: 1 }))).toBe(
      'closed',
    );
    expect(errorCodes).toEqual([
      'invalid_input',
      'not_found',
      'route_exists',
      'version_conflict',
      'invalid_configuration',
      'closed',
      'timeout',
      'in_use',
      'session_exists',
    ]);
  });
});

describe('the identity an envelope names (EVD-03)', () => {
  it('[EVD-03][EVL-01] evidence naming another invocation and generation authorizes nothing: recorded, refused, nothing dispatched', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.idle();
      const outcome = await h.fail('r1', {
        ...envelopes.overloaded,
        invocation_id: 'inv-from-another-run',
        prompt_generation: 9,
        observed_at: '2026-05-31T12:00:00Z',
      });
      expect(outcome).toMatchObject({
        outcome: 'refused',
        reason: 'stale_evidence',
        route: { state: 'active' },
      });
      await h.advance(600);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);
      expect(await h.store.listAttempts('r1')).toMatchObject([
        { decision: expect.stringMatching(/^stale: /) as unknown },
      ]);
    } finally {
      await h.close();
    }
  });
});

describe('a stored profile that no longer validates (POL-20)', () => {
  it('[POL-20] loads as an actionable configuration error naming the profile and field, and authorizes no work', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.idle();
      // Another version (or a hand edit) left a document the validator refuses.
      const raw = new BetterSqlite3(h.file);
      const stored = raw.prepare('SELECT document FROM profiles WHERE id = ?').get('p') as {
        document: string;
      };
      const broken = JSON.parse(stored.document) as {
        candidates: { policy: { transient: { retry: object } } }[];
      };
      broken.candidates[0]!.policy.transient.retry = {
        enabled: true,
        max_retries: 99,
        initial_interval_seconds: 5,
      };
      raw.prepare('UPDATE profiles SET document = ? WHERE id = ?').run(JSON.stringify(broken), 'p');
      raw.close();
      await expect(h.store.readProfile('p')).rejects.toMatchObject({
        code: 'invalid_configuration',
        message: expect.stringContaining('/candidates/0/policy/transient/retry/max_retries') as unknown,
      });
      const outcome = await h.fail('r1', envelopes.overloaded);
      expect(outcome.route).toMatchObject({
        state: 'action_required',
        reason: 'invalid_configuration',
        detail: expect.stringContaining('stored dynamic profile "p" (version 1) is invalid') as unknown,
      });
      await h.advance(600);
      expect(h.dispatcher.kinds()).toEqual(['initial:a:1']);
      // Saving a valid document repairs it as a new version.
      expect(await h.engine.saveProfile(profileDocument(standardPolicy))).toMatchObject({ version: 2 });
      expect(await h.store.readProfile('p')).toMatchObject({ version: 2 });
    } finally {
      await h.close();
    }
  });
});

describe('the composition root', () => {
  it('opens, migrates and reconciles after the listeners are subscribed, so the report reaches them', async () => {
    const file = await tempDatabase();
    const clock = new ManualClock(t0);
    const events: EngineEvent[] = [];
    const first = await openRecourse({ database: file, clock, dispatcher: new RecordingDispatcher() });
    await first.engine.saveProfile(profileDocument(standardPolicy));
    await first.engine.startRoute({ routeId: 'r1', profileId: 'p' });
    await first.engine.idle();
    await first.close();
    const again = await openRecourse({
      database: file,
      clock,
      dispatcher: new RecordingDispatcher(),
      onEvent: (e) => events.push(e),
    });
    try {
      const reconciled = events.find((e) => e.type === 'reconciled');
      expect(reconciled).toMatchObject({ report: { orphaned: [{ routeId: 'r1', kind: 'initial' }] } });
      expect(again.report).toEqual((reconciled as Extract<EngineEvent, { type: 'reconciled' }>).report);
    } finally {
      await again.close();
    }
  });

  it('refuses a database path that is a directory with a clear error and leaves nothing open', async () => {
    const file = await tempDatabase();
    const folder = file.replace(/recourse\.db$/, '');
    await expect(
      openRecourse({ database: folder, clock: new ManualClock(t0), dispatcher: new RecordingDispatcher() }),
    ).rejects.toThrow();
  });
});

describe('purging routes, told live', () => {
  it('a route started again with a purged id while the purge runs on (a later batch) is never told purged after it started', async () => {
    let onTransact: (() => void) | null = null;
    const h = await harness({
      wrapStore: (store) =>
        new Proxy(store, {
          get(target, key) {
            const value: unknown = Reflect.get(target, key);
            if (key === 'transact') {
              return (...args: Parameters<typeof target.transact>) => {
                const hook = onTransact;
                onTransact = null;
                hook?.();
                return target.transact(...args);
              };
            }
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        }),
    });
    try {
      await h.engine.saveProfile(profileDocument(standardPolicy));
      for (const id of ['a', 'b']) {
        await h.engine.startRoute({ routeId: id, profileId: 'p' });
        await h.fail(id, envelopes.overloaded);
        const waiting = await h.route(id);
        await h.engine.act({ routeId: id, action: 'cancel', expectedGeneration: waiting.generation });
      }
      await h.engine.idle();
      h.events.length = 0;
      // The purge's first piece (a) commits alone; 'a' is started again before the next batch (b) begins.
      let again: Promise<unknown> = Promise.resolve();
      onTransact = () => {
        again = h.engine.startRoute({ routeId: 'a', profileId: 'p' });
      };
      expect(await h.engine.purgeRoutes({ beforeMs: t0 + 86_400_000 })).toBe(2);
      await again;
      await h.engine.idle();
      const told = h.events.flatMap((e, i) =>
        e.type === 'purged'
          ? e.routeIds.map((id) => `${i} purged ${id}`)
          : e.type === 'transition' && e.route.id === 'a'
            ? [`${i} a ${e.route.state}`]
            : [],
      );
      const purgedA = told.findIndex((t) => t.endsWith('purged a'));
      const startedA = told.findIndex((t) => / a active$/.test(t));
      expect(purgedA).toBeGreaterThanOrEqual(0);
      expect(startedA).toBeGreaterThan(purgedA);
      expect(told.filter((t) => t.endsWith('purged a'))).toHaveLength(1);
      expect(told.some((t) => t.endsWith('purged b'))).toBe(true);
      expect(await h.engine.route('a')).not.toBeNull();
    } finally {
      await h.close();
    }
  });
});
