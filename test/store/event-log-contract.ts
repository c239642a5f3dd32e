import { describe, expect, it } from 'vitest';
import type { EventLog, Store } from '../../src/core/index.js';

/** The EventLog contract: every adapter passes it (`open` gives a fresh, migrated database). */
export function eventLogContract(
  name: string,
  open: () => Promise<{ store: Store; events: EventLog }>,
): void {
  describe(`EventLog contract: ${name}`, () => {
    const event = (n: number) => ({ type: 'route.changed', atMs: 1_000 + n, data: JSON.stringify({ n }) });

    it('appends in order and gives growing ids; an empty append stores nothing', async () => {
      const { store, events } = await open();
      try {
        expect(await events.lastId()).toBe(0);
        expect(await events.bounds()).toBeNull();
        expect(await events.append([])).toEqual([]);
        const first = await events.append([event(1), event(2)]);
        const second = await events.append([event(3)]);
        const ids = [...first, ...second].map((e) => e.id);
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
        expect(new Set(ids).size).toBe(3);
        expect(second[0]).toEqual({ id: ids[2], ...event(3) });
        expect(await events.after(0, 10)).toEqual([...first, ...second]);
        expect(await events.after(ids[0]!, 1)).toEqual([first[1]]);
        expect(await events.bounds()).toEqual({ first: ids[0], last: ids[2] });
        expect(await events.lastId()).toBe(ids[2]);
      } finally {
        await store.close();
      }
    });

    it('prunes all but the newest and the recent, and never gives a pruned id again', async () => {
      const { store, events } = await open();
      try {
        const stored = await events.append([1, 2, 3, 4, 5].map(event));
        // Keep the newest 3, and nothing older than at 1_004: ids 1 to 3 go.
        expect(await events.prune(3, 1_004)).toBe(3);
        expect((await events.after(0, 10)).map((e) => e.data)).toEqual([4, 5].map((n) => event(n).data));
        expect(await events.prune(10, 0)).toBe(0);
        await events.prune(0, Number.MAX_SAFE_INTEGER);
        expect(await events.bounds()).toBeNull();
        expect(await events.lastId()).toBe(stored[4]!.id);
        const [next] = await events.append([event(6)]);
        expect(next!.id).toBeGreaterThan(stored[4]!.id);
      } finally {
        await store.close();
      }
    });

    it('prunes by age only a prefix: an old event after a younger one (its node’s clock ran behind) stays, so a resuming reader never skips a hole', async () => {
      const { store, events } = await open();
      try {
        // Shared nodes stamp events with their own clocks: the third was appended by a node whose clock is behind.
        const stamped = (n: number, atMs: number) => ({ ...event(n), atMs });
        const stored = await events.append([
          stamped(1, 2_000),
          stamped(2, 3_000),
          stamped(3, 1_000),
          stamped(4, 4_000),
        ]);
        expect(await events.prune(100, 2_500)).toBe(1);
        // A reader that saw the second event (inside the kept range) resumes after it and gets the third.
        expect(await events.bounds()).toEqual({ first: stored[1]!.id, last: stored[3]!.id });
        expect((await events.after(stored[1]!.id, 10)).map((e) => e.id)).toEqual([
          stored[2]!.id,
          stored[3]!.id,
        ]);
        // Once everything before it is old enough, it goes with them.
        expect(await events.prune(100, 3_500)).toBe(2);
        expect((await events.after(0, 10)).map((e) => e.id)).toEqual([stored[3]!.id]);
      } finally {
        await store.close();
      }
    });
  });
}
