import { describe, expect, it } from 'vitest';
import type { Store, TaskSessions, Transcript, TranscriptEvent } from '../../src/core/index.js';

/** The Transcript and TaskSessions contract: every adapter passes it (`open` gives a fresh, migrated database). */
export function transcriptContract(
  name: string,
  open: () => Promise<{ store: Store; transcript: Transcript; sessions: TaskSessions }>,
): void {
  describe(`Transcript contract: ${name}`, () => {
    const s1 = { taskId: 't1', sessionId: 's1' };

    it('[NOT-09][NOT-10] update keeps id, creation time and turn, and every mutation is published', async () => {
      const { store, transcript } = await open();
      const events: TranscriptEvent[] = [];
      transcript.subscribe((e) => events.push(e));
      try {
        const created = await transcript.create(s1, {
          kind: 'status',
          content: 'a',
          metadata: { retrying: true },
          turnId: 'turn-1',
        });
        const updated = await transcript.update(created.id, {
          content: 'b',
          metadata: { retrying: true, attempt: 2 },
        });
        expect(updated).toMatchObject({
          id: created.id,
          createdAtMs: created.createdAtMs,
          turnId: 'turn-1',
          content: 'b',
        });
        expect(await transcript.update('missing', { content: 'x', metadata: {} })).toBeNull();
        expect(await transcript.delete(created.id)).toBe(true);
        expect(await transcript.delete(created.id)).toBe(false);
        expect(events.map((e) => e.type)).toEqual([
          'session.message.created',
          'session.message.updated',
          'session.message.deleted',
        ]);
        expect(await transcript.list(s1)).toEqual([]);
      } finally {
        await store.close();
      }
    });

    it('lists the messages of exactly one task session, oldest first', async () => {
      const { store, transcript } = await open();
      try {
        await transcript.create(s1, { kind: 'agent', content: 'one', metadata: {}, turnId: null });
        await transcript.create(
          { taskId: 't2', sessionId: 's1' },
          { kind: 'agent', content: 'other task', metadata: {}, turnId: null },
        );
        await transcript.create(
          { taskId: 't1', sessionId: 's2' },
          { kind: 'agent', content: 'other session', metadata: {}, turnId: null },
        );
        await transcript.create(s1, {
          kind: 'agent',
          content: 'two',
          metadata: { nested: { ok: [1, 2] } },
          turnId: null,
        });
        const listed = await transcript.list(s1);
        expect(listed.map((m) => m.content)).toEqual(['one', 'two']);
        expect(listed[1]!.metadata).toEqual({ nested: { ok: [1, 2] } });
      } finally {
        await store.close();
      }
    });

    it('[NOT-24] registers task sessions with their owner and route, and deletes them', async () => {
      const { store, sessions } = await open();
      try {
        expect(await sessions.create({ ...s1, owner: 'ada', routeId: 'session:s1', createdAtMs: 1 })).toBe(
          true,
        );
        // A second create of the id (another open that found it free) writes nothing and says so.
        expect(await sessions.create({ ...s1, owner: 'bob', routeId: 'session:s1', createdAtMs: 2 })).toBe(
          false,
        );
        expect(await sessions.read('s1')).toEqual({
          ...s1,
          owner: 'ada',
          routeId: 'session:s1',
          createdAtMs: 1,
        });
        expect(await sessions.list()).toHaveLength(1);
        expect(await sessions.delete('s1')).toBe(true);
        expect(await sessions.read('s1')).toBeNull();
      } finally {
        await store.close();
      }
    });

    it('pages task sessions newest first: a page holds the sessions strictly after the previous page’s last', async () => {
      const { store, sessions } = await open();
      try {
        // Two sessions share a creation time: the session id breaks the tie (descending).
        const times: Record<string, number> = { a: 10, b: 20, c: 20, d: 30, e: 5 };
        for (const [id, at] of Object.entries(times)) {
          await sessions.create({
            taskId: 't',
            sessionId: id,
            owner: 'o',
            routeId: `r-${id}`,
            createdAtMs: at,
          });
        }
        const first = await sessions.page({ limit: 2 });
        expect(first.map((x) => x.sessionId)).toEqual(['d', 'c']);
        const last = first.at(-1)!;
        const second = await sessions.page({
          before: { createdAtMs: last.createdAtMs, sessionId: last.sessionId },
          limit: 2,
        });
        expect(second.map((x) => x.sessionId)).toEqual(['b', 'a']);
        const third = await sessions.page({ before: { createdAtMs: 10, sessionId: 'a' }, limit: 2 });
        expect(third.map((x) => x.sessionId)).toEqual(['e']);
        expect(await sessions.page({ before: { createdAtMs: 5, sessionId: 'e' }, limit: 2 })).toEqual([]);
        expect(third[0]).toEqual({ taskId: 't', sessionId: 'e', owner: 'o', routeId: 'r-e', createdAtMs: 5 });
      } finally {
        await store.close();
      }
    });
  });
}
