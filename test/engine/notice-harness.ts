import { RecordingDispatcher, envelopes, replayOf, tempDatabase } from './harness.js';
import type {
  EvidenceEnvelope,
  SessionRef,
  Store,
  Transcript,
  TranscriptEvent,
} from '../../src/core/index.js';
import {
  advanceManualClock,
  Engine,
  InteractiveSessions,
  ManualClock,
  type SessionEvent,
} from '../../src/engine/index.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../src/store/index.js';
import { t0 } from '../core/route/route-fixtures.js';

/** Failures a test injects into the real SQLite transcript (a full disk or a racing writer cannot be summoned). */
export interface TranscriptFaults {
  list: number;
  update: number;
  create: number;
  /** Message ids whose deletion fails (each once, unless `stickyDelete`). */
  deleteIds: Set<string>;
  stickyDelete: boolean;
  /** Called before each operation: a test asserts what must hold while it runs. */
  before: ((op: string) => void) | null;
  calls: string[];
}

function faultyTranscript(inner: Transcript, faults: TranscriptFaults): Transcript {
  const gate = (op: string) => {
    faults.calls.push(op);
    faults.before?.(op);
    const key = op as 'list' | 'update' | 'create';
    if (key in faults && typeof faults[key] === 'number' && faults[key] > 0) {
      faults[key] -= 1;
      throw new Error(`injected ${op} failure`);
    }
  };
  return {
    list: async (s) => (gate('list'), inner.list(s)),
    create: async (s, m) => (gate('create'), inner.create(s, m)),
    update: async (id, c) => (gate('update'), inner.update(id, c)),
    delete: async (id) => {
      gate('delete');
      if (faults.deleteIds.has(id)) {
        if (!faults.stickyDelete) faults.deleteIds.delete(id);
        throw new Error(`injected delete failure for ${id}`);
      }
      return inner.delete(id);
    },
    subscribe: (l) => inner.subscribe(l),
  };
}

export interface NoticeHarness {
  readonly clock: ManualClock;
  readonly dispatcher: RecordingDispatcher;
  readonly faults: TranscriptFaults;
  readonly events: SessionEvent[];
  readonly transcriptEvents: TranscriptEvent[];
  readonly logs: string[];
  db: SqliteDatabase;
  transcript: Transcript;
  engine: Engine;
  sessions: InteractiveSessions;
  /** True while the store runs a transaction (NOT-15 checks transcript operations never do). */
  inTransaction(): boolean;
  open(ref: SessionRef, owner?: string): Promise<void>;
  fail(
    ref: SessionRef,
    envelope?: EvidenceEnvelope,
    options?: { promptOpen?: boolean; late?: boolean },
  ): ReturnType<InteractiveSessions['reportFailure']>;
  succeed(ref: SessionRef): ReturnType<InteractiveSessions['reportSuccess']>;
  advance(seconds: number): Promise<void>;
  notices(ref: SessionRef): Promise<number>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function noticeHarness(): Promise<NoticeHarness> {
  const file = await tempDatabase();
  const clock = new ManualClock(t0);
  const dispatcher = new RecordingDispatcher();
  const faults: TranscriptFaults = {
    list: 0,
    update: 0,
    create: 0,
    deleteIds: new Set(),
    stickyDelete: false,
    before: null,
    calls: [],
  };
  const events: SessionEvent[] = [];
  const transcriptEvents: TranscriptEvent[] = [];
  const logs: string[] = [];
  let messages = 0;
  let transactions = 0;
  const tracked = (store: Store): Store =>
    Object.assign(Object.create(store) as Store, {
      transact: async <T>(work: Parameters<Store['transact']>[0]) => {
        return store.transact(async (tx) => {
          transactions += 1;
          try {
            return (await work(tx)) as T;
          } finally {
            transactions -= 1;
          }
        });
      },
    });
  const boot = async () => {
    const db = openSqliteDatabase({
      file,
      transcriptClock: { now: () => clock.now(), newId: () => `m${++messages}` },
    });
    await db.store.migrate();
    db.transcript.subscribe((e) => transcriptEvents.push(e));
    const store = tracked(db.store);
    const transcript = faultyTranscript(db.transcript, faults);
    const engine = new Engine({ store, clock, dispatcher });
    const sessions = new InteractiveSessions({
      engine,
      store,
      transcript,
      sessions: db.sessions,
      clock,
      log: (entry) => logs.push(entry.message),
    });
    sessions.subscribe((e) => events.push(e));
    await sessions.start();
    await engine.reconcile();
    await sessions.idle();
    return { db, transcript, engine, sessions };
  };
  const first = await boot();
  const h: NoticeHarness = {
    clock,
    dispatcher,
    faults,
    events,
    transcriptEvents,
    logs,
    ...first,
    inTransaction: () => transactions > 0,
    async open(ref, owner = 'owner') {
      await h.sessions.open({ ...ref, profileId: 'claude-main', owner });
      await h.sessions.idle();
    },
    async fail(ref, envelope = envelopes.overloaded, options = {}) {
      const route = await h.db.store.readRoute(`session:${ref.sessionId}`);
      if (route === null) throw new Error('no route');
      const outcome = await h.sessions.reportFailure(ref, {
        evidence: envelope,
        replay: replayOf(route),
        promptOpen: options.promptOpen === true,
        ...(options.late === true || route.dispatch === null
          ? {}
          : { invocationId: route.dispatch.intentId }),
      });
      await h.sessions.idle();
      return outcome;
    },
    async succeed(ref) {
      const route = await h.db.store.readRoute(`session:${ref.sessionId}`);
      const outcome = await h.sessions.reportSuccess(ref, route?.dispatch?.intentId);
      await h.sessions.idle();
      return outcome;
    },
    async advance(seconds) {
      await advanceManualClock(clock, { idle: () => h.sessions.idle() }, t0 + seconds * 1000);
    },
    async notices(ref) {
      return (await h.db.transcript.list(ref)).filter((m) => m.metadata.retrying === true).length;
    },
    async restart() {
      await h.sessions.close();
      await h.engine.close();
      await h.db.store.close();
      Object.assign(h, await boot());
    },
    async close() {
      await h.sessions.close();
      await h.engine.close();
      await h.db.store.close();
    },
  };
  return h;
}
