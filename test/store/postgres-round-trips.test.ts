import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { DispatchIntent, Route } from '../../src/core/index.js';
import { routesInEveryState, t0 } from '../core/route/route-fixtures.js';
import { dropSchemas } from '../helpers/postgres.js';
import { openSharedNodeDatabase } from '../helpers/shared-node.js';

// The real PostgreSQL at 127.0.0.1:5432, database `test`, a fresh schema dropped at the end. Every statement the
// store's pooled clients send is counted (and sent as it is): a round trip is what a claim pays per statement.
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

/** Counts the statements `pg` clients send while `work` runs (listener connections included: none is open here). */
async function statementsOf(work: () => Promise<void>): Promise<string[]> {
  const sent: string[] = [];
  const original = Object.getOwnPropertyDescriptor(pg.Client.prototype, 'query')!;
  const query = original.value as (this: pg.Client, ...args: unknown[]) => unknown;
  Object.defineProperty(pg.Client.prototype, 'query', {
    ...original,
    value: function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as string | { text?: string };
      sent.push((typeof config === 'string' ? config : (config.text ?? '')).replace(/\s+/g, ' ').trim());
      return query.apply(this, args);
    },
  });
  try {
    await work();
  } finally {
    Object.defineProperty(pg.Client.prototype, 'query', original);
  }
  return sent;
}

const next = (r: Route): Route => ({ ...r, revision: r.revision + 1, updatedAtMs: r.updatedAtMs + 1 });
const fenceOf = (r: Route) => ({ generation: r.generation, state: r.state, revision: r.revision });
const intent = (id: string, routeId: string): DispatchIntent => ({
  id,
  routeId,
  generation: 1,
  candidate: 'a',
  kind: 'retry',
  createdAtMs: t0,
});

describe('[DUR-01] a claim transaction on a shared node costs seven round trips, whatever its size', () => {
  it('BEGIN, the answered routes with their intents, the claim, the profile, the circuits, the writes with the circuit confirmation, COMMIT', async () => {
    const db = await openSharedNodeDatabase(schemas);
    const { retry_wait: waiting, active } = routesInEveryState();
    const due = Array.from(
      { length: 3 },
      (_, i) => ({ ...waiting, id: `due-${i}`, deadlineMs: t0 + i }) as Route,
    );
    const answered = Array.from({ length: 2 }, (_, i) => ({ ...active, id: `answered-${i}` }));
    try {
      await db.store.transact(async (tx) => {
        for (const r of [...due, ...answered]) await tx.insertRoute(r);
        for (const r of answered) await tx.insertIntent(intent(`i-${r.id}`, r.id));
      });
      let confirmed = false;
      const sent = await statementsOf(() =>
        db.store.transact(
          async (tx) => {
            // As the engine queues them: the claim and its firings, then the answers to the previous claim's
            // dispatches. Each writes its route; the firings write new intents, the answers resolve theirs.
            const locked = await tx.lockDueRoutes!({ owner: 'node-a', limit: 10 });
            expect(locked.due.map((d) => d.id)).toEqual(due.map((r) => r.id));
            await tx.readProfile('p');
            await tx.readCircuits(['provider:x', 'profile:a']);
            for (const d of locked.due) {
              const route = (await tx.readRoute(d.id))!;
              expect(await tx.updateRoute(next(route), fenceOf(route))).toBe(true);
              await tx.insertIntent(intent(`i-${d.id}`, d.id));
            }
            for (const r of answered) {
              expect(await tx.resolveIntent(`i-${r.id}`, 'acknowledged', t0 + 10)).toBe(true);
              expect(await tx.updateRoute(next((await tx.readRoute(r.id))!), fenceOf(r))).toBe(true);
            }
            confirmed = await tx.confirmCircuitReads();
          },
          { routeIds: answered.map((r) => r.id) },
        ),
      );
      expect(confirmed).toBe(true);
      // Before: BEGIN, set_config, the routes, their intents, the claim, the profile, the circuits, the route UPDATE
      // (two in a real claim, whose firings and answers change different columns), the intents' INSERT and UPDATE,
      // the confirmation, COMMIT: 12 here.
      expect(sent).toHaveLength(7);
      expect(sent[0]).toMatch(/^begin$/i);
      expect(sent.at(-1)).toMatch(/^commit$/i);
      // Everything landed as written.
      expect(await db.store.storedIntents(['i-due-0', 'i-due-1', 'i-due-2'])).toHaveLength(3);
      for (const r of due) expect(await db.store.readRoute(r.id)).toMatchObject({ revision: r.revision + 1 });
      for (const r of answered)
        expect(await db.store.readRoute(r.id)).toMatchObject({ revision: r.revision + 1 });
    } finally {
      await db.store.close();
    }
  });
});
