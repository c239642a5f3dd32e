import { afterAll, describe, expect, it } from 'vitest';
import type { Circuit } from '../../src/core/index.js';
import { openCircuit } from '../core/route/route-fixtures.js';
import { dropSchemas } from '../helpers/postgres.js';
import { twoSharedNodes } from '../helpers/shared-node.js';

// The real PostgreSQL at 127.0.0.1:5432, database `test`, a fresh schema per test, dropped at the end. Two stores
// on one schema stand for two nodes (each store runs its own transactions one at a time).
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

const open = openCircuit;
const closed: Circuit = { ...open, state: 'closed', openedBy: null, version: 2 };

/** Two nodes on a fresh schema, the circuit stored open (version 1). */
async function nodesWithOpenCircuit() {
  const nodes = await twoSharedNodes(schemas, []);
  expect(await nodes.a.store.transact((tx) => tx.writeCircuit(open, 0))).toBe(true);
  return nodes;
}

describe('[CIR-04] PostgreSQL: a decision that only read a circuit is fenced by its version at COMMIT', () => {
  it('a circuit another node changed after the read is not confirmed; one it did not change is', async () => {
    const nodes = await nodesWithOpenCircuit();
    try {
      const confirmed = await nodes.a.store.transact(async (tx) => {
        await tx.readCircuits(['provider:x', 'provider:absent']);
        expect(await nodes.b.store.transact((other) => other.writeCircuit(closed, 1))).toBe(true);
        // The read is kept for the transaction: it still says open.
        expect((await tx.readCircuits(['provider:x'])).get('provider:x')).toEqual(open);
        return tx.confirmCircuitReads();
      });
      expect(confirmed).toBe(false);
      // A circuit read as absent and stored meanwhile moved as well.
      const absent = await nodes.a.store.transact(async (tx) => {
        await tx.readCircuits(['provider:y']);
        await nodes.b.store.transact((other) => other.writeCircuit({ ...open, key: 'provider:y' }, 0));
        return tx.confirmCircuitReads();
      });
      expect(absent).toBe(false);
      const unchanged = await nodes.a.store.transact(async (tx) => {
        await tx.readCircuits(['provider:x', 'provider:absent']);
        return tx.confirmCircuitReads();
      });
      expect(unchanged).toBe(true);
    } finally {
      await nodes.close();
    }
  });

  it('a circuit another node is writing (not yet committed) fails the confirmation at once, without waiting', async () => {
    const nodes = await nodesWithOpenCircuit();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const writing = new Promise<void>((resolve) => (written = resolve));
    try {
      const other = nodes.b.store.transact(async (tx) => {
        expect(await tx.writeCircuit(closed, 1)).toBe(true);
        written();
        await released;
      });
      await writing;
      // Waiting for it would hold this transaction's routes behind another's circuit write: a deadlock in the making.
      // Not confirmed, the transaction cannot commit (the failed lock aborted it): the engine rolls it back.
      let confirmed: boolean | null = null;
      const ended = nodes.a.store
        .transact(async (tx) => {
          await tx.readCircuits(['provider:x']);
          confirmed = await tx.confirmCircuitReads();
        })
        .finally(release);
      await expect(ended).rejects.toThrow('rolled back');
      expect(confirmed).toBe(false);
      await other;
      expect(await nodes.a.store.readCircuit('provider:x')).toEqual(closed);
    } finally {
      release();
      await nodes.close();
    }
  });

  it('once confirmed, the circuits stay as read until COMMIT: another node’s write waits for it', async () => {
    const nodes = await nodesWithOpenCircuit();
    try {
      const order: string[] = [];
      let other: Promise<boolean> | null = null;
      await nodes.a.store.transact(async (tx) => {
        await tx.readCircuits(['provider:x']);
        expect(await tx.confirmCircuitReads()).toBe(true);
        other = nodes.b.store
          .transact((b) => b.writeCircuit(closed, 1))
          .then((won) => {
            order.push('written');
            return won;
          });
        // However long the transaction goes on after its confirmation, the write waits (here 300 ms).
        await new Promise((resolve) => setTimeout(resolve, 300));
        order.push('committing');
      });
      expect(await other!).toBe(true);
      expect(order).toEqual(['committing', 'written']);
      expect(await nodes.a.store.readCircuit('provider:x')).toEqual(closed);
    } finally {
      await nodes.close();
    }
  });
});
