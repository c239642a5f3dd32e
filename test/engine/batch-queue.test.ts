import { expect, it } from 'vitest';
import { BatchQueue, WriteRaceError, type Work } from '../../src/engine/batch-queue.js';
import { ManualClock } from '../../src/engine/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { t0 } from '../core/route/route-fixtures.js';

// The group commit on a real SQLite store: which transactions run when one piece of a batch throws.
it('a batch whose first piece throws commits the rest together, in submission order, and the piece alone', async () => {
  const store = openSqliteStore({ file: ':memory:' });
  await store.migrate();
  let transactions = 0;
  const counting = {
    ...store,
    transact: <T>(work: Parameters<typeof store.transact<T>>[0]) => {
      transactions += 1;
      return store.transact(work);
    },
  };
  const queue = new BatchQueue(counting, new ManualClock(t0), 256, () => undefined);

  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const first = queue.submit(() => gate);
  const ran: number[] = [];
  let thrown = false;
  const piece =
    (i: number): Work<number> =>
    () => {
      if (i === 0 && !thrown) {
        thrown = true;
        return Promise.reject(new Error('another node moved the circuit'));
      }
      ran.push(i);
      return Promise.resolve(i);
    };
  // Queued while the first piece runs: they make up the next batch, together.
  const rest = Array.from({ length: 10 }, (_, i) => queue.submit(piece(i)));
  open();
  await first;
  expect(await Promise.all(rest)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  // The first batch, the failed one, the piece alone, the other nine together: not one commit per piece.
  expect(transactions).toBe(4);
  expect(ran.slice(-10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  await store.close();
});

it('a piece that throws again is rejected alone; the pieces around it commit, those before it first', async () => {
  const store = openSqliteStore({ file: ':memory:' });
  await store.migrate();
  const queue = new BatchQueue(store, new ManualClock(t0), 256, () => undefined);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const first = queue.submit(() => gate);
  const committed: number[] = [];
  const rest = Array.from({ length: 5 }, (_, i) =>
    queue.submit(async (tx) => {
      if (i === 2) throw new Error('always fails');
      await tx.readRoute(`route-${i}`);
      committed.push(i);
      return i;
    }),
  );
  open();
  await first;
  const settled = await Promise.allSettled(rest);
  expect(settled.map((s) => s.status)).toEqual([
    'fulfilled',
    'fulfilled',
    'rejected',
    'fulfilled',
    'fulfilled',
  ]);
  expect(committed.slice(-4)).toEqual([0, 1, 3, 4]);
  await store.close();
});

it('a piece alone that loses a write race (another node moved the circuit) is done again until it wins', async () => {
  const store = openSqliteStore({ file: ':memory:' });
  await store.migrate();
  const queue = new BatchQueue(store, new ManualClock(t0), 256, () => undefined);
  let tries = 0;
  const answer = await queue.submit(() => {
    tries += 1;
    if (tries <= 3) return Promise.reject(new WriteRaceError('circuit provider:x changed concurrently'));
    return Promise.resolve('decided on the winner');
  });
  expect(answer).toBe('decided on the winner');
  expect(tries).toBe(4);
  await store.close();
});

it('a write race lost every time reaches the caller after a bounded number of tries; any other error at once', async () => {
  const store = openSqliteStore({ file: ':memory:' });
  await store.migrate();
  const queue = new BatchQueue(store, new ManualClock(t0), 256, () => undefined);
  let raced = 0;
  await expect(
    queue.submit(() => {
      raced += 1;
      return Promise.reject(new WriteRaceError('always moved'));
    }),
  ).rejects.toThrow(WriteRaceError);
  expect(raced).toBe(9);
  let failed = 0;
  await expect(
    queue.submit(() => {
      failed += 1;
      return Promise.reject(new Error('a bug, not a race'));
    }),
  ).rejects.toThrow('a bug, not a race');
  expect(failed).toBe(1);
  await store.close();
});

it('a batch whose circuits another node moved before COMMIT is done again whole, then piece by piece; nothing lands before', async () => {
  const store = openSqliteStore({ file: ':memory:' });
  await store.migrate();
  // The store as it is, but the confirmation of what a batch of pieces read fails as often as `moves` says.
  let moves = 0;
  const transactions: number[] = [];
  const moving = {
    ...store,
    transact: <T>(work: Parameters<typeof store.transact<T>>[0]) =>
      store.transact((tx) => {
        const from = transactions.length;
        const confirmCircuitReads = () => Promise.resolve(transactions.length === from || moves-- <= 0);
        return work(Object.assign(Object.create(tx) as typeof tx, { confirmCircuitReads }));
      }),
  };
  const committed: number[][] = [];
  // What each commit of pieces armed (the gate's commits arm nothing).
  const queue = new BatchQueue(moving, new ManualClock(t0), 256, (after) => {
    if (after.arm.length > 0) committed.push(after.arm.slice());
  });
  const batch = async (n: number) => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const first = queue.submit(() => gate);
    const pieces = Array.from({ length: n }, (_, i) =>
      queue.submit((_tx, _now, after) => {
        transactions.push(i);
        after.arm.push(i);
        return Promise.resolve(i);
      }),
    );
    open();
    await first;
    return Promise.all(pieces);
  };
  // Moved once: the three pieces again, together, and committed once.
  moves = 1;
  expect(await batch(3)).toEqual([0, 1, 2]);
  expect(transactions).toEqual([0, 1, 2, 0, 1, 2]);
  expect(committed).toEqual([[0, 1, 2]]);
  // Moved twice in a row: each piece alone.
  committed.length = 0;
  transactions.length = 0;
  moves = 2;
  expect(await batch(3)).toEqual([0, 1, 2]);
  expect(transactions).toEqual([0, 1, 2, 0, 1, 2, 0, 1, 2]);
  expect(committed).toEqual([[0], [1], [2]]);
  await store.close();
});
