import { afterAll, describe, expect, it } from 'vitest';
import type { Route } from '../../src/core/index.js';
import { routesInEveryState, t0 } from '../core/route/route-fixtures.js';
import pg from 'pg';
import { dropSchemas, testDatabaseUrl } from '../helpers/postgres.js';
import { twoSharedNodes } from '../helpers/shared-node.js';

// The real PostgreSQL at 127.0.0.1:5432, database `test`, a fresh schema per node pair, dropped at the end. Due
// times are the database's clock: `t0` lies in the past, so routes due at `t0 + i` are overdue.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

const hourAhead = () => Date.now() + 3_600_000;

async function twoNodes(routes: readonly Route[]) {
  const nodes = await twoSharedNodes(schemas, routes);
  return { ...nodes, a: nodes.a.cluster!, b: nodes.b.cluster! };
}

const overdue = (n: number): Route[] => {
  const { retry_wait } = routesInEveryState();
  return Array.from({ length: n }, (_, i) => ({ ...retry_wait, id: `d${i}`, deadlineMs: t0 + i }) as Route);
};

describe('[DUR-01] claims of due routes on shared nodes', () => {
  it('a claim that is not full names the next waiting deadline, leaving out the routes it just claimed', async () => {
    const { retry_wait } = routesInEveryState();
    const later = hourAhead();
    const nodes = await twoNodes([
      ...overdue(2),
      { ...retry_wait, id: 'later', deadlineMs: later } as Route,
      { ...retry_wait, id: 'latest', deadlineMs: later + 60_000 } as Route,
    ]);
    try {
      const claim = await nodes.a.claimDue(30_000, 5);
      expect(claim.due.map((d) => d.id)).toEqual(['d0', 'd1']);
      // Not now: d0 and d1 are in hand, their firing writes their next deadline.
      expect(claim.nextMs).toBe(later);
      expect(claim.nowMs).toBeLessThan(later);
    } finally {
      await nodes.close();
    }
  });

  it("names the end of another node's lease on an overdue route, and nothing when no route waits", async () => {
    const nodes = await twoNodes(overdue(2));
    try {
      const taken = await nodes.a.claimDue(30_000, 5);
      expect(taken.due).toHaveLength(2);
      const claim = await nodes.b.claimDue(30_000, 5);
      expect(claim.due).toEqual([]);
      // B may take them over when A's lease ends, by the database's clock.
      expect(claim.nextMs).toBeGreaterThan(claim.nowMs + 25_000);
      expect(claim.nextMs).toBeLessThanOrEqual(claim.nowMs + 30_000);
      const empty = await twoNodes([]);
      try {
        expect((await empty.a.claimDue(30_000, 5)).nextMs).toBeNull();
      } finally {
        await empty.close();
      }
    } finally {
      await nodes.close();
    }
  });

  it('a full claim does not look for the next deadline: more may be due at once', async () => {
    const nodes = await twoNodes(overdue(3));
    try {
      const claim = await nodes.a.claimDue(30_000, 3);
      expect(claim.due).toHaveLength(3);
      expect(claim.nextMs).toBeNull();
    } finally {
      await nodes.close();
    }
  });

  it('a node that leaves frees what it claimed and did not fire, and the others hear of it at once', async () => {
    const nodes = await twoNodes(overdue(4));
    try {
      const heard: number[] = [];
      const stop = nodes.b.listen((dueAtMs) => heard.push(dueAtMs));
      try {
        // B's listener connects on its own: announce a deadline of 1 until B hears it, so it is surely listening.
        const client = new pg.Client({ connectionString: testDatabaseUrl });
        await client.connect();
        try {
          await expect
            .poll(async () => {
              await client.query(`SELECT pg_notify('recourse_timers', $1)`, [`${nodes.schema} 1 1`]);
              return heard;
            })
            .toContain(1);
        } finally {
          await client.end();
        }
        expect((await nodes.a.claimDue(30_000, 10)).due).toHaveLength(4);
        expect((await nodes.b.claimDue(30_000, 10)).due).toEqual([]);
        await nodes.a.leave();
        await expect.poll(() => heard).toContain(t0);
        expect((await nodes.b.claimDue(30_000, 10)).due.map((d) => d.id)).toEqual(['d0', 'd1', 'd2', 'd3']);
      } finally {
        await stop();
      }
    } finally {
      await nodes.close();
    }
  });
});
