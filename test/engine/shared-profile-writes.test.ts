import { afterAll, describe, expect, it } from 'vitest';
import type { ClusterTimers, Store } from '../../src/core/index.js';
import { Engine, systemClock, VersionConflictError } from '../../src/engine/index.js';
import { dropSchemas } from '../helpers/postgres.js';
import { pausingFirstRead, replacingInTransaction, twoSharedNodes } from '../helpers/shared-node.js';
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

describe('[API-01][API-02] profile writes on two nodes of one schema', () => {
  it('a delete fenced on version 1 never takes an edit another node committed after it read: one of them is refused', async () => {
    const nodes = await twoSharedNodes(schemas, []);
    let readDone!: () => void;
    const aRead = new Promise<void>((resolve) => (readDone = resolve));
    let bSaved!: () => void;
    const bDone = new Promise<void>((resolve) => (bSaved = resolve));
    // Node A reads the profile for its delete, then waits (at most 1 s) for node B's edit before it deletes.
    const watched = replacingInTransaction(nodes.a.store, (tx) => ({
      readProfile: async (id) => {
        const read = await tx.readProfile(id);
        readDone();
        await Promise.race([bDone, new Promise((resolve) => setTimeout(resolve, 1_000))]);
        return read;
      },
    }));
    const a = sharedEngine(watched, nodes.a.cluster!);
    const b = sharedEngine(nodes.b.store, nodes.b.cluster!);
    try {
      const first = profileDocument({ version: 1, transient: retries(3, 1, 'stop'), hard: off });
      await b.saveProfile(first);
      const deleting = a.deleteProfile('p', { expectedVersion: 1 });
      await aRead;
      const editing = b.saveProfile({ ...first, name: 'Edited on node B' }, { expectedVersion: 1 });
      void editing.then(bSaved, bSaved);
      const [deleted, edited] = await Promise.allSettled([deleting, editing]);
      // Either order is fine; both succeeding is not: the delete, decided on version 1, took version 2 with it.
      expect([deleted.status, edited.status]).not.toEqual(['fulfilled', 'fulfilled']);
      const refused = [deleted, edited].find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(VersionConflictError);
    } finally {
      await a.close();
      await b.close();
      await nodes.close();
    }
  });
  it('two saves fenced on version 1 on two nodes: one is stored as version 2, the other refused, none overwritten', async () => {
    const nodes = await twoSharedNodes(schemas, []);
    const { store: watched, paused: aRead, release: bSaved } = pausingFirstRead(nodes.a.store, 'readProfile');
    const a = sharedEngine(watched, nodes.a.cluster!);
    const b = sharedEngine(nodes.b.store, nodes.b.cluster!);
    try {
      const first = profileDocument({ version: 1, transient: retries(3, 1, 'stop'), hard: off });
      await b.saveProfile(first);
      const onA = a.saveProfile({ ...first, name: 'Edited on node A' }, { expectedVersion: 1 });
      await aRead;
      const onB = b.saveProfile({ ...first, name: 'Edited on node B' }, { expectedVersion: 1 });
      void onB.then(bSaved, bSaved);
      const results = await Promise.allSettled([onA, onB]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const stored = results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{
        name: string;
      }>;
      expect((await nodes.b.store.readProfile('p'))?.name).toBe(stored.value.name);
    } finally {
      await a.close();
      await b.close();
      await nodes.close();
    }
  });

  it('a route started on one node while another deletes its profile: never both, so no route names a deleted profile', async () => {
    const nodes = await twoSharedNodes(schemas, []);
    // Node A's start reads the profile, then waits (at most 1 s) for node B's delete before it inserts the route.
    const {
      store: watched,
      paused: aRead,
      release: bDeleted,
    } = pausingFirstRead(nodes.a.store, 'readProfile');
    const a = sharedEngine(watched, nodes.a.cluster!);
    const b = sharedEngine(nodes.b.store, nodes.b.cluster!);
    try {
      await b.saveProfile(profileDocument({ version: 1, transient: retries(3, 1, 'stop'), hard: off }));
      const starting = a.startRoute({ routeId: 'r-orphan', profileId: 'p' });
      await aRead;
      const deleting = b.deleteProfile('p');
      void deleting.then(bDeleted, bDeleted);
      const [started, deleted] = await Promise.allSettled([starting, deleting]);
      // Either order is fine: the start first (the delete is refused in_use), or the delete (the start finds no
      // profile). Both is not: the route would name a profile that is gone.
      expect([started.status, deleted.status]).not.toEqual(['fulfilled', 'fulfilled']);
      const route = await nodes.b.store.readRoute('r-orphan');
      const profile = await nodes.b.store.readProfile('p');
      expect(route === null || profile !== null).toBe(true);
    } finally {
      await a.close();
      await b.close();
      await nodes.close();
    }
  });
});
