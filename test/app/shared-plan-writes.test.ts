import { afterAll, describe, expect, it } from 'vitest';
import { PlanLifecycle, PlanService } from '../../src/app/index.js';
import { dropSchemas } from '../helpers/postgres.js';
import { pausingFirstRead, twoSharedNodes } from '../helpers/shared-node.js';

// Two shared nodes on the real PostgreSQL at 127.0.0.1:5432 (database `test`, a fresh schema dropped at the end).
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

describe('[PLN-39] plan writes on two nodes of one schema', () => {
  it('one plan created on two nodes at once: one creates it, the other changes it; no database error', async () => {
    const nodes = await twoSharedNodes(schemas, []);
    // Node A's plan write reads the plan, then waits (at most 1 s) for node B's write: the two really overlap.
    const { store: watched, paused: aRead, release: bDone } = pausingFirstRead(nodes.a.store, 'readPlan');
    const a = new PlanService({ lifecycle: new PlanLifecycle(watched) });
    const b = new PlanService({ lifecycle: new PlanLifecycle(nodes.b.store) });
    try {
      const onA = a.configure('P1', { max_retries: 2 });
      await aRead;
      const onB = b.configure('P1', { max_retries: 4 });
      void onB.then(bDone, bDone);
      const results = await Promise.allSettled([onA, onB]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
      const statuses = results.map((r) => (r as PromiseFulfilledResult<{ status: string }>).value.status);
      expect(statuses.sort()).toEqual(['changed', 'created']);
      const stored = await nodes.b.store.readPlan('P1');
      expect(stored?.revision).toBe(2);
    } finally {
      await nodes.close();
    }
  });

  it('two changes of one plan fenced on one revision: one applies, the other is refused stale, not a 500', async () => {
    const nodes = await twoSharedNodes(schemas, []);
    await new PlanService({ lifecycle: new PlanLifecycle(nodes.b.store) }).configure('P2', {
      max_retries: 1,
    });
    // Node A's plan write reads the plan, then waits (at most 1 s) for node B's write: the two really overlap.
    const { store: watched, paused: aRead, release: bDone } = pausingFirstRead(nodes.a.store, 'readPlan');
    const a = new PlanLifecycle(watched);
    const b = new PlanLifecycle(nodes.b.store);
    try {
      const onA = a.act('P2', 'cancel', 1);
      await aRead;
      const onB = b.act('P2', 'cancel', 1);
      void onB.then(bDone, bDone);
      const results = await Promise.allSettled([onA, onB]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
      const statuses = results.map((r) => (r as PromiseFulfilledResult<{ status: string }>).value.status);
      expect(statuses.sort()).toEqual(['changed', 'refused']);
      expect((await nodes.b.store.readPlan('P2'))?.revision).toBe(2);
    } finally {
      await nodes.close();
    }
  });
});
