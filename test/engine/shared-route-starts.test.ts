import { afterAll, describe, expect, it } from 'vitest';
import type { ClusterTimers, Store } from '../../src/core/index.js';
import { Engine, RouteExistsError, systemClock } from '../../src/engine/index.js';
import { dropSchemas } from '../helpers/postgres.js';
import { pausingFirstRead, twoSharedNodes } from '../helpers/shared-node.js';
import { off, retries } from '../core/route/route-fixtures.js';
import { profileDocument } from './harness.js';

// Two shared nodes on the real PostgreSQL at 127.0.0.1:5432 (database `test`, a fresh schema dropped at the end).
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

function sharedEngine(store: Store, cluster: ClusterTimers): Engine {
  return new Engine({
    store,
    clock: systemClock(),
    dispatcher: { dispatch: () => Promise.resolve() },
    shared: { cluster, leaseMs: 3_600_000, pollMs: 3_600_000 },
  });
}

describe('[API-01] one route id started on two nodes at once', () => {
  it('one start wins; the other is told the route exists (409), not a database error', async () => {
    const nodes = await twoSharedNodes(schemas, []);
    // Node A reads that no route r1 exists, then waits (at most 1 s) for node B to start it before inserting its own.
    const { store: watched, paused: aRead, release: bStarted } = pausingFirstRead(nodes.a.store, 'readRoute');
    const a = sharedEngine(watched, nodes.a.cluster!);
    const b = sharedEngine(nodes.b.store, nodes.b.cluster!);
    try {
      await b.saveProfile(profileDocument({ version: 1, transient: retries(3, 1, 'stop'), hard: off }));
      const onA = a.startRoute({ routeId: 'r1', profileId: 'p' });
      await aRead;
      const onB = b.startRoute({ routeId: 'r1', profileId: 'p' });
      void onB.then(bStarted, bStarted);
      const results = await Promise.allSettled([onA, onB]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(RouteExistsError);
      const stored = await nodes.b.store.readRoute('r1');
      expect(stored?.generation).toBe(1);
    } finally {
      await a.close();
      await b.close();
      await nodes.close();
    }
  });
});
