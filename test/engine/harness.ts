import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import {
  appendReplayEvent,
  openReplayEvidence,
  replayKeyOf,
  snapshotReplayEvidence,
  type DispatchIntent,
  type EvidenceEnvelope,
  type ReplayEvent,
  type ReplayEvidence,
  type Route,
  type Store,
} from '../../src/core/index.js';
import {
  advanceManualClock,
  Engine,
  ManualClock,
  type Dispatcher,
  type EngineEvent,
} from '../../src/engine/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import { t0 } from '../core/route/route-fixtures.js';

const folders: string[] = [];
afterAll(async () => {
  for (const f of folders) await rm(f, { recursive: true, force: true });
});

export async function tempDatabase(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'recourse-engine-'));
  folders.push(folder);
  return join(folder, 'recourse.db');
}

/** Records every dispatch; acknowledges at once unless told to lose or reject the next ones. */
export class RecordingDispatcher implements Dispatcher {
  readonly sent: DispatchIntent[] = [];
  mode: 'ack' | 'lose' | 'reject' = 'ack';
  onDispatch: ((intent: DispatchIntent) => Promise<void> | void) | null = null;

  async dispatch(intent: DispatchIntent): Promise<void> {
    this.sent.push(intent);
    await this.onDispatch?.(intent);
    if (this.mode === 'lose') return new Promise<void>(() => undefined);
    if (this.mode === 'reject') throw new Error('the agent process went away mid-send');
  }

  kinds(): string[] {
    return this.sent.map((i) => `${i.kind}:${i.candidate}:${i.generation}`);
  }
}

export const envelopes = {
  overloaded: {
    kind: 'http' as const,
    status: 529,
    provider: 'anthropic',
    body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  },
  credits: { kind: 'stderr' as const, agent: 'claude-code', text: 'Credit balance is too low' },
  unknown: { kind: 'stderr' as const, text: 'weird gibberish' },
  unavailableRetryAfter: (seconds: number): EvidenceEnvelope => ({
    kind: 'http',
    status: 503,
    provider: 'anthropic',
    headers: { 'retry-after': String(seconds) },
    body: '{"type":"error","error":{"type":"api_error","message":"Service Unavailable"}}',
  }),
  quotaResetAt: (resetMs: number): EvidenceEnvelope => ({
    kind: 'http',
    status: 429,
    provider: 'anthropic',
    headers: { 'anthropic-ratelimit-unified-reset': String(resetMs / 1000) },
    body: '{"type":"error","error":{"type":"rate_limit_error","message":"5-hour usage limit reached"}}',
  }),
};

/** The replay evidence of the route's current attempt: clean unless events are given. */
export function replayOf(route: Route, events: readonly ReplayEvent[] = []): ReplayEvidence {
  let evidence = openReplayEvidence(replayKeyOf(route));
  for (const e of events) evidence = appendReplayEvent(evidence, e);
  return snapshotReplayEvidence(evidence);
}

export interface Harness {
  readonly file: string;
  readonly clock: ManualClock;
  readonly dispatcher: RecordingDispatcher;
  readonly events: EngineEvent[];
  store: Store;
  engine: Engine;
  /** Drops the engine and the connection and builds new ones on the same file (a restart). */
  restart(): Promise<Awaited<ReturnType<Engine['reconcile']>>>;
  /** Advances the clock to `seconds` after t0, firing due timers on the way. */
  advance(seconds: number): Promise<void>;
  route(id: string): Promise<Route>;
  fail(
    id: string,
    envelope: EvidenceEnvelope,
    events?: readonly ReplayEvent[],
  ): ReturnType<Engine['reportFailure']>;
  close(): Promise<void>;
}

export async function harness(
  options: { file?: string; wrapStore?: (store: Store) => Store } = {},
): Promise<Harness> {
  const file = options.file ?? (await tempDatabase());
  const clock = new ManualClock(t0);
  const dispatcher = new RecordingDispatcher();
  const events: EngineEvent[] = [];
  const openStore = async () => {
    const store = openSqliteStore({ file });
    await store.migrate();
    return options.wrapStore ? options.wrapStore(store) : store;
  };
  const boot = async (store: Store) => {
    const engine = new Engine({ store, clock, dispatcher });
    engine.subscribe((e) => events.push(e));
    const report = await engine.reconcile();
    await engine.idle();
    return { engine, report };
  };
  const store = await openStore();
  const { engine } = await boot(store);
  const h: Harness = {
    file,
    clock,
    dispatcher,
    events,
    store,
    engine,
    async restart() {
      await h.engine.close();
      await h.store.close();
      h.store = await openStore();
      const booted = await boot(h.store);
      h.engine = booted.engine;
      return booted.report;
    },
    async advance(seconds) {
      await advanceManualClock(clock, h.engine, t0 + seconds * 1000);
      await h.engine.idle();
    },
    async route(id) {
      const r = await h.store.readRoute(id);
      if (r === null) throw new Error(`no route ${id}`);
      return r;
    },
    async fail(id, envelope, replayEvents = []) {
      const r = await h.route(id);
      const outcome = await h.engine.reportFailure({
        routeId: id,
        generation: r.generation,
        ...(r.dispatch === null ? {} : { invocationId: r.dispatch.intentId }),
        evidence: envelope,
        replay: replayOf(r, replayEvents),
      });
      await h.engine.idle();
      return outcome;
    },
    async close() {
      await h.engine.close();
      await h.store.close();
    },
  };
  return h;
}

/** A dynamic profile document (wire format) with candidates a, b, c. */
export function profileDocument(policy: object, extra: Record<string, object> = {}, id = 'p') {
  return {
    id,
    name: 'Test profile',
    version: 1,
    candidates: ['a', 'b', 'c'].map((c) => ({ profile_id: c, enabled: true, policy, ...(extra[c] ?? {}) })),
  };
}
