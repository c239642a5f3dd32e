import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { symlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  evidenceOfResponse,
  openRecourse,
  type RunAttemptFunction,
  type ResponseLike,
} from '../../src/app/index.js';
import { evidenceOfError, type DynamicProfileInput, type EvidenceEnvelope } from '../../src/core/index.js';
import { ManualClock } from '../../src/engine/index.js';
import { tempDatabase } from '../engine/harness.js';
import { t0 } from '../core/route/route-fixtures.js';
import { claudeFleet, transientRetryPolicy } from '../helpers/retry-policy.js';

/**
 * The embedding surface as a careless or hostile caller uses it (a review found each of these): a `run` that
 * settles with garbage, evidence that contradicts its attempt, callbacks that throw, a second Recourse on the same
 * file, a shutdown in the middle of a dispatch, and arguments plain JavaScript may pass. Each case fails without
 * its fix: a route left `running` forever, a hang, a crash of the host process, or a raw TypeError.
 */
const profile: DynamicProfileInput = claudeFleet(
  transientRetryPolicy({ maxRetries: 3, intervalSeconds: 5, onExhausted: 'skip' }),
);
const overloaded: EvidenceEnvelope = {
  kind: 'http',
  status: 529,
  provider: 'anthropic',
  body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
};

async function openWith(
  run: RunAttemptFunction,
  options: { onError?: (e: unknown) => void; systemClock?: boolean } = {},
) {
  const database = await tempDatabase();
  const errors: unknown[] = [];
  const recourse = await openRecourse({
    database,
    ...(options.systemClock === true ? {} : { clock: new ManualClock(t0) }),
    run,
    onError: options.onError ?? ((e) => errors.push(e)),
  });
  await recourse.engine.saveProfile(profile);
  const settle = async () => {
    for (let i = 0; i < 6; i++) {
      await recourse.engine.idle();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { recourse, database, errors, settle };
}

/** Starts route `t` with `run` and returns where it ends up once everything settled. */
async function routeAfter(run: RunAttemptFunction) {
  const { recourse, settle, errors } = await openWith(run);
  try {
    await recourse.engine.startRoute({ routeId: 't', profileId: 'fleet' });
    await settle();
    return { route: await recourse.engine.route('t'), errors };
  } finally {
    await recourse.close();
  }
}

describe('a run that settles with garbage never strands its route', () => {
  const garbage: Array<[string, unknown]> = [
    ['an unknown status', { status: 'weird' }],
    ['a number', 42],
    ['null', null],
    ['a failure without evidence', { status: 'failure' }],
    ['evidence that is not an envelope', { status: 'failure', evidence: { kind: 'nope' } }],
    [
      'progress that is not facts',
      { status: 'failure', evidence: overloaded, progress: { assistant_output: 'yes' } },
    ],
  ];
  for (const [name, result] of garbage) {
    it(`[OUT-01] ${name}: the attempt ended, unclassified, and a person is asked`, async () => {
      const { route } = await routeAfter(() => result as never);
      expect(route).toMatchObject({
        state: 'action_required',
        reason: 'unclassified',
        outcome: 'needs_action',
      });
      expect(route?.lastFailure?.safe_excerpt).toMatch(/run (settled with something|reported a failure)/);
    });
  }

  it('a thrown value whose getters throw, or a trapping Proxy, is a failure like any other', async () => {
    const hostile = [
      {
        get message(): string {
          throw new Error('getter');
        },
      },
      new Proxy(
        {},
        {
          get() {
            throw new Error('trap');
          },
        },
      ),
    ];
    for (const thrown of hostile) {
      const { route } = await routeAfter(() => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- what a careless run may throw
        throw thrown;
      });
      expect(route).toMatchObject({ outcome: 'needs_action', reason: 'unclassified' });
    }
    expect(evidenceOfError(hostile[1])).toMatchObject({ kind: 'sdk_exception', name: 'UnreadableError' });
  });

  it('[EVD-03] identity fields in the evidence cannot contradict the attempt the helper ran', async () => {
    const { route } = await routeAfter(() => ({
      status: 'failure',
      evidence: { ...overloaded, invocation_id: 'someone-else', prompt_generation: 7 },
    }));
    expect(route).toMatchObject({ state: 'retry_wait', outcome: 'waiting' });
  });

  it('[EVD-03] evidence of a phase that cannot fail an attempt still ends it, for a person to look at', async () => {
    for (const phase of ['streaming', 'shutdown']) {
      const { route } = await routeAfter(() => ({
        status: 'failure',
        evidence: { ...overloaded, phase } as EvidenceEnvelope,
      }));
      expect(route).toMatchObject({ outcome: 'needs_action', reason: 'unclassified' });
      expect(route?.lastFailure?.safe_excerpt).toContain('cannot fail its attempt');
    }
  });

  it('[DAT-13] a phase that holds a credential reaches no event and no database row (it is not echoed raw)', async () => {
    const key = '9f8e7d6c5b4a39281706f5e4d3c2b1a0';
    const events: unknown[] = [];
    const database = await tempDatabase();
    const recourse = await openRecourse({
      database,
      clock: new ManualClock(t0),
      run: () => ({ status: 'failure', evidence: { ...overloaded, phase: `token=${key}` } }),
      onEvent: (e) => events.push(e),
    });
    try {
      await recourse.engine.saveProfile(profile);
      await recourse.engine.startRoute({ routeId: 't', profileId: 'fleet' });
      for (let i = 0; i < 6; i++) {
        await recourse.engine.idle();
        await new Promise((resolve) => setImmediate(resolve));
      }
      const route = await recourse.engine.route('t');
      expect(route).toMatchObject({ outcome: 'needs_action', reason: 'unclassified' });
      expect(JSON.stringify([events, route, await recourse.store.listAttempts('t')])).not.toContain(
        key.slice(0, 12),
      );
    } finally {
      await recourse.close();
    }
    for (const file of (await readdir(dirname(database))).filter((f) => f.startsWith(basename(database))))
      expect((await readFile(join(dirname(database), file))).toString('latin1')).not.toContain(
        key.slice(0, 12),
      );
  });

  it('an onError that throws does not take the host process down', async () => {
    let finish!: () => void;
    const { recourse, settle } = await openWith(() => new Promise<void>((resolve) => (finish = resolve)), {
      onError: () => {
        throw new Error('the error sink is broken too');
      },
    });
    await recourse.engine.startRoute({ routeId: 't', profileId: 'fleet' });
    await settle();
    await recourse.close();
    finish(); // its report meets a closed engine; onError throws; nothing is left unhandled
    await new Promise((resolve) => setTimeout(resolve, 20));
  });
});

describe('waitFor on the real clock', () => {
  it('a zero timeout still sees a route that is already there; a predicate that throws rejects the wait', async () => {
    const { recourse, settle } = await openWith(() => ({ status: 'success' }), { systemClock: true });
    try {
      await recourse.engine.startRoute({ routeId: 't', profileId: 'fleet' });
      await settle();
      await expect(
        recourse.engine.waitFor('t', (r) => r.outcome === 'succeeded', { timeoutMs: 0 }),
      ).resolves.toMatchObject({ id: 't' });
      await expect(
        recourse.engine.waitFor('t', (r) => (r.payload as { prompt: string }).prompt.length > 0),
      ).rejects.toBeInstanceOf(TypeError);
    } finally {
      await recourse.close();
    }
  });
});

describe('one Recourse per database file', () => {
  it('a second open of the same file is refused (in_use) until the first closes', async () => {
    const { recourse, database } = await openWith(() => undefined);
    await expect(openRecourse({ database, run: () => undefined })).rejects.toMatchObject({ code: 'in_use' });
    await recourse.close();
    const again = await openRecourse({ database, run: () => undefined });
    await again.close();
  });

  it('the same file reached through a symbolic link, or a linked folder, is refused (in_use) too', async () => {
    const { recourse, database } = await openWith(() => undefined);
    try {
      const links = await mkdtemp(join(tmpdir(), 'recourse-links-'));
      const linkedFile = join(links, 'linked.db');
      symlinkSync(database, linkedFile);
      const linkedFolder = join(links, 'folder');
      symlinkSync(dirname(database), linkedFolder);
      for (const path of [linkedFile, join(linkedFolder, basename(database))]) {
        await expect(openRecourse({ database: path, run: () => undefined })).rejects.toMatchObject({
          code: 'in_use',
        });
      }
    } finally {
      await recourse.close();
    }
  });

  it('reads after close say closed, not a driver error', async () => {
    const { recourse } = await openWith(() => undefined);
    await recourse.close();
    for (const call of [
      () => recourse.engine.route('t'),
      () => recourse.engine.listRoutes(),
      () => recourse.engine.purgeRoutes({ beforeMs: t0 }),
      () => recourse.engine.waitFor('t', () => true),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'closed' });
    }
  });

  it('[DUR-06] a shutdown while a start is queued records the acceptance: the restart finds an orphan, not an ambiguous dispatch', async () => {
    const ran: string[] = [];
    const { recourse, database } = await openWith((attempt) => {
      ran.push(attempt.intent.id);
      return new Promise<void>(() => undefined); // still running when the process goes
    });
    const started = recourse.engine.startRoute({ routeId: 't', profileId: 'fleet' });
    await recourse.close();
    await started;
    expect(ran).toHaveLength(1);
    const again = await openRecourse({ database, clock: new ManualClock(t0), run: () => undefined });
    try {
      expect(again.report.stopped).toEqual([]);
      expect(again.report.orphaned).toMatchObject([{ routeId: 't', intentId: ran[0] }]);
    } finally {
      await again.close();
    }
  });

  it('purging keeps a stopped route whose attempt still runs: its answer still counts', async () => {
    let finish!: () => void;
    const { recourse, settle, errors } = await openWith(
      () => new Promise<void>((resolve) => (finish = resolve)),
    );
    try {
      await recourse.engine.startRoute({ routeId: 't', profileId: 'fleet' });
      await settle();
      await recourse.engine.act({ routeId: 't', action: 'stop', expectedGeneration: 1 });
      expect(await recourse.engine.purgeRoutes({ beforeMs: t0 + 1_000_000 })).toBe(0);
      finish();
      await settle();
      expect(errors).toEqual([]);
      expect(await recourse.engine.purgeRoutes({ beforeMs: t0 + 1_000_000 })).toBe(1);
    } finally {
      await recourse.close();
    }
  });
});

describe('arguments plain JavaScript may pass', () => {
  it('refuses a run or dispatcher that is not callable, and database paths that would mislead', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'recourse-paths-'));
    const fifo = join(folder, 'a-fifo');
    // Node cannot make a FIFO; the shell's mkfifo can.
    expect(spawnSync('sh', ['-c', 'exec mkfifo "$0"', fifo]).status).toBe(0);
    // The field each options object gets wrong (its JSON pointer is `/` + the field).
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ run: null, database: join(folder, 'a.db') }, 'run'],
      [{ run: 'x', database: join(folder, 'a.db') }, 'run'],
      [{ dispatcher: {}, database: join(folder, 'a.db') }, 'dispatcher'],
      [{ run: () => undefined, database: `${folder}/a\0b.db` }, 'database'],
      [{ run: () => undefined, database: '' }, 'database'],
      [{ run: () => undefined, database: folder }, 'database'],
      // SQLite would block the whole process reading a FIFO nobody writes; a device is no database either.
      [{ run: () => undefined, database: fifo }, 'database'],
      [{ run: () => undefined, database: '/dev/null' }, 'database'],
      [{ run: () => undefined, database: join(folder, 'a.db'), onEvent: 'log' }, 'onEvent'],
    ];
    for (const [options, field] of cases) {
      const error = (await openRecourse(options as never).catch((e: unknown) => e)) as {
        code: string;
        issues: Array<{ path: string }>;
      };
      expect(error.code).toBe('invalid_input');
      expect(error.issues.map((i) => i.path)).toEqual([`/${field}`]);
    }
    await expect(openRecourse(null as never)).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('refuses null requests, and payloads with holes, deep nesting or getters that throw, by field', async () => {
    const { recourse } = await openWith(() => undefined);
    const engine = recourse.engine;
    try {
      for (const call of [
        () => engine.startRoute(null as never),
        () => engine.listRoutes(null as never),
        () => engine.purgeRoutes(null as never),
        () => engine.saveProfile(profile, null as never),
        () => engine.act(null as never),
        () => engine.reportFailure(null as never),
        () => engine.waitFor('t', () => true, null as never),
      ]) {
        await expect(call()).rejects.toMatchObject({ code: 'invalid_input' });
      }
      let deep: unknown = 'leaf';
      for (let i = 0; i < 5000; i++) deep = [deep];
      const payloads: Array<[unknown, RegExp]> = [
        [[1, , 3], /holes/], // eslint-disable-line no-sparse-arrays
        [deep, /nest at most 64/],
        [
          {
            get prompt(): string {
              throw new Error('getter');
            },
          },
          /could not be read/,
        ],
      ];
      for (const [payload, message] of payloads) {
        const error = (await engine
          .startRoute({ routeId: 'p', profileId: 'fleet', payload: payload as never })
          .catch((e: unknown) => e)) as { code: string; issues: Array<{ path: string; message: string }> };
        expect(error.code).toBe('invalid_input');
        expect(error.issues[0]!.path.startsWith('/payload')).toBe(true);
        expect(error.issues[0]!.message).toMatch(message);
      }
      expect(await engine.route('p')).toBeNull();
      const conflict = (await engine
        .saveProfile(profile, { expectedVersion: '1' as never })
        .catch((e: unknown) => e)) as { issues: Array<{ path: string; message: string }> };
      expect(conflict.issues[0]).toMatchObject({ path: '/expected_version' });
      expect(conflict.issues[0]!.message).toContain('"1"');
    } finally {
      await recourse.close();
    }
  });
});

describe('evidenceOfResponse on responses that misbehave', () => {
  const hanging = (): ResponseLike => ({
    status: 503,
    headers: { 'retry-after': '5' },
    body: new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('Service Unavailable'));
        // never closed: a proxy that stalls mid-page
      },
    }),
  });

  it('[EVD-02] a body that stalls is cut at the timeout, keeping what arrived', async () => {
    const envelope = await evidenceOfResponse(hanging(), {}, { bodyTimeoutMs: 50 });
    expect(envelope).toMatchObject({
      status: 503,
      body: 'Service Unavailable',
      headers: { 'retry-after': '5' },
    });
  });

  it('a locked body, a text() that throws, or a body that is not a stream is absent, never a throw', async () => {
    const locked = new Response('the caller is reading this');
    locked.body!.getReader();
    expect((await evidenceOfResponse(locked)).body).toBe('');
    const throwing: ResponseLike = {
      status: 500,
      headers: {},
      text() {
        throw new Error('sync');
      },
    };
    expect((await evidenceOfResponse(throwing)).body).toBe('');
    const odd = { status: 500, headers: {}, body: 'not a stream' } as unknown as ResponseLike;
    expect((await evidenceOfResponse(odd)).body).toBe('');
  });

  it('[EVD-02] a text() body is bounded in bytes, not characters; header pairs are read as headers', async () => {
    const big: ResponseLike = {
      status: 500,
      headers: [
        ['Retry-After', '5'],
        ['x-request-id', 'abc'],
      ],
      text: () => Promise.resolve('é'.repeat(5_000_000)),
    };
    const envelope = await evidenceOfResponse(big);
    expect(Buffer.byteLength(String(envelope.body))).toBeLessThanOrEqual(64 * 1024);
    expect(String(envelope.body).length).toBeGreaterThan(30_000);
    expect(envelope.headers).toEqual({ 'retry-after': '5', 'x-request-id': 'abc' });
  });
});
