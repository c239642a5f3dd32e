import { afterAll, describe, expect, it } from 'vitest';
import { openRecourse, type RunAttemptFunction } from '../../src/app/index.js';
import type { DynamicProfileInput, EvidenceEnvelope } from '../../src/core/index.js';
import { advanceManualClock, ManualClock } from '../../src/engine/index.js';
import { t0 } from '../core/route/route-fixtures.js';
import { dropSchemas, freshSchemaName, schemaUrl } from '../helpers/postgres.js';
import { claudeFleet, transientRetryPolicy } from '../helpers/retry-policy.js';

/** The composition root on the real PostgreSQL (127.0.0.1:5432, database `test`), each case in a fresh schema. */
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

function freshUrl(): string {
  const schema = freshSchemaName();
  schemas.push(schema);
  return schemaUrl(schema);
}

const profile: DynamicProfileInput = claudeFleet(
  transientRetryPolicy({ maxRetries: 3, intervalSeconds: 5, onExhausted: 'skip' }),
);
const overloaded: EvidenceEnvelope = {
  kind: 'http',
  status: 529,
  provider: 'anthropic',
  body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
};

async function open(databaseUrl: string, run: RunAttemptFunction) {
  const clock = new ManualClock(t0);
  const recourse = await openRecourse({ databaseUrl, clock, run });
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      await recourse.engine.idle();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { recourse, clock, settle };
}

describe('openRecourse({ databaseUrl }): PostgreSQL', () => {
  it('[DUR-07][EVL-02] a retry wait written on PostgreSQL survives a restart, is re-armed, and fires', async () => {
    const databaseUrl = freshUrl();
    const tried: string[] = [];
    const first = await open(databaseUrl, (attempt) => {
      tried.push(attempt.intent.kind);
      return { status: 'failure', evidence: overloaded };
    });
    await first.recourse.engine.saveProfile(profile);
    await first.recourse.engine.startRoute({ routeId: 'task-1', profileId: 'fleet' });
    await first.settle();
    expect(await first.recourse.engine.route('task-1')).toMatchObject({ state: 'retry_wait', generation: 1 });
    await first.recourse.close();

    const again = await open(databaseUrl, (attempt) => {
      tried.push(attempt.intent.kind);
      return { status: 'success' };
    });
    try {
      expect(again.recourse.report.rearmed).toMatchObject([{ id: 'task-1', deadlineMs: t0 + 5_000 }]);
      const done = again.recourse.engine.waitFor('task-1', (r) => r.outcome === 'succeeded');
      await advanceManualClock(again.clock, { idle: again.settle }, t0 + 5_000);
      await again.settle();
      expect(await done).toMatchObject({ state: 'active', outcome: 'succeeded' });
      expect(tried).toEqual(['initial', 'retry']);
    } finally {
      await again.recourse.close();
    }
  });

  it('a second open of the same schema is refused (in_use) until the first closes; another schema opens', async () => {
    const databaseUrl = freshUrl();
    const first = await openRecourse({ databaseUrl, run: () => undefined });
    try {
      await expect(openRecourse({ databaseUrl, run: () => undefined })).rejects.toMatchObject({
        code: 'in_use',
        message: expect.stringMatching(/one engine per schema/) as unknown,
      });
      const other = await openRecourse({ databaseUrl: freshUrl(), run: () => undefined });
      await other.close();
    } finally {
      await first.close();
    }
    const again = await openRecourse({ databaseUrl, run: () => undefined });
    await again.close();
  });

  it('shared nodes open side by side on one schema, never beside a single engine', async () => {
    const databaseUrl = freshUrl();
    const shared = (nodeId: string) =>
      openRecourse({ databaseUrl, nodes: 'shared', nodeId, run: () => undefined });
    const a = await shared('node-a');
    const b = await shared('node-b');
    try {
      await expect(openRecourse({ databaseUrl, run: () => undefined })).rejects.toMatchObject({
        code: 'in_use',
        message: expect.stringMatching(/nodes: "shared"/) as unknown,
      });
    } finally {
      await a.close();
      await b.close();
    }
    const single = await openRecourse({ databaseUrl, run: () => undefined });
    try {
      await expect(shared('node-c')).rejects.toMatchObject({
        code: 'in_use',
        message: expect.stringMatching(/single-node Recourse/) as unknown,
      });
    } finally {
      await single.close();
    }
  });

  it('[DUR-01] a shared node whose clock runs an hour ahead fires nothing early: the database clock decides what is due', async () => {
    const clock = new ManualClock(Date.now() + 3_600_000);
    const tried: string[] = [];
    const recourse = await openRecourse({
      databaseUrl: freshUrl(),
      nodes: 'shared',
      pollMs: 50,
      clock,
      run: (attempt) => {
        tried.push(attempt.intent.kind);
        return { status: 'failure', evidence: overloaded };
      },
    });
    const settle = async () => {
      for (let i = 0; i < 5; i++) {
        await recourse.engine.idle();
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    try {
      await recourse.engine.saveProfile(profile);
      await recourse.engine.startRoute({ routeId: 'task-1', profileId: 'fleet' });
      await settle();
      const waiting = await recourse.engine.route('task-1');
      expect(waiting).toMatchObject({ state: 'retry_wait' });
      // By this node's clock the retry is due and the poll runs again and again; by the database's it is an hour away.
      await advanceManualClock(clock, { idle: settle }, clock.now() + 10_000);
      await settle();
      expect(await recourse.engine.route('task-1')).toMatchObject({
        state: 'retry_wait',
        revision: waiting!.revision,
      });
      expect(tried).toEqual(['initial']);
    } finally {
      await recourse.close();
    }
  });

  it('shared-mode options are refused by field: on SQLite, a bad node id, a poll longer than half the lease', async () => {
    const refused = (options: Record<string, unknown>) =>
      openRecourse({ run: () => undefined, ...options }).then(
        () => null,
        (error: unknown) => error,
      );
    expect(await refused({ database: ':memory:', nodes: 'shared' })).toMatchObject({
      issues: [{ path: '/nodes', message: expect.stringMatching(/PostgreSQL/) as unknown }],
    });
    expect(await refused({ databaseUrl: freshUrl(), nodes: 'shared', nodeId: 'a b' })).toMatchObject({
      issues: [{ path: '/nodeId' }],
    });
    expect(await refused({ databaseUrl: freshUrl(), nodeId: 'a' })).toMatchObject({
      issues: [{ path: '/nodeId', message: expect.stringMatching(/shared/) as unknown }],
    });
    expect(
      await refused({ databaseUrl: freshUrl(), nodes: 'shared', leaseMs: 2_000, pollMs: 1_500 }),
    ).toMatchObject({ issues: [{ path: '/pollMs' }] });
    expect(await refused({ databaseUrl: freshUrl(), nodes: 'many' })).toMatchObject({
      issues: [{ path: '/nodes' }],
    });
  });

  it('a malformed URL, both databases, a bad pool size: refused by field before anything opens', async () => {
    const refused = (options: Record<string, unknown>) =>
      openRecourse({ run: () => undefined, ...options }).then(
        () => null,
        (error: unknown) => error,
      );
    expect(await refused({ databaseUrl: 'mysql://u:secret-pw@h/db' })).toMatchObject({
      issues: [
        { path: '/databaseUrl', message: expect.stringMatching(/must start with postgres:\/\//) as unknown },
      ],
    });
    expect(await refused({ databaseUrl: freshUrl(), database: 'x.db' })).toMatchObject({
      issues: [{ path: '/databaseUrl', message: expect.stringMatching(/not both/) as unknown }],
    });
    expect(await refused({ databaseUrl: freshUrl(), poolSize: 0 })).toMatchObject({
      issues: [{ path: '/poolSize' }],
    });
    const down = await refused({ databaseUrl: 'postgres://ada:secret-pw@127.0.0.1:1/test' });
    expect(String((down as Error).message)).toMatch(
      /cannot connect to PostgreSQL at postgres:\/\/ada:\*\*\*@/,
    );
    expect(JSON.stringify(down) + String((down as Error).message)).not.toContain('secret-pw');
  });
});
