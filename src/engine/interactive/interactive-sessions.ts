import { RetryNotices, type NoticeLog, type NoticeOp } from './retry-notices.js';
import { RouteSessions } from './route-sessions.js';
import { SessionGuards, type GuardEntry } from './session-guards.js';
import { Listeners } from '../../support/listeners.js';
import type { Clock } from '../clock.js';
import type { Engine } from '../engine.js';
import { EngineInputError, RouteExistsError, SessionExistsError } from '../engine-errors.js';
import { checkSession } from '../engine-input.js';
import type { EngineEvent } from '../engine-events.js';
import type { RouteOutcome } from '../route-work.js';
import type {
  EvidenceEnvelope,
  NoticeBody,
  NoticeOperation,
  ReplayEvidence,
  Route,
  SessionLocks,
  SessionRef,
  Store,
  TaskSession,
  TaskSessions,
  Transcript,
  TranscriptMessage,
} from '../../core/index.js';

export interface InteractiveSessionsOptions {
  readonly engine: Engine;
  readonly store: Store;
  readonly transcript: Transcript;
  readonly sessions: TaskSessions;
  readonly clock: Clock;
  readonly log?: NoticeLog;
  readonly fenceMs?: number;
  /**
   * Several nodes on one PostgreSQL schema: each session's notice work also holds the session's lock across nodes,
   * and its lifecycle (owned, retry, the fence by the database's clock) is stored (docs/operations.md).
   */
  readonly sessionLocks?: SessionLocks;
}

/** What the orchestrator did to a session's transcript, for viewers and the simulator. */
export type SessionEvent =
  | {
      readonly type: 'notice';
      readonly atMs: number;
      readonly sessionId: string;
      readonly op: NoticeOp['op'];
      readonly message: TranscriptMessage;
    }
  | {
      readonly type: 'recovery_message';
      readonly atMs: number;
      readonly sessionId: string;
      readonly message: TranscriptMessage;
    }
  | { readonly type: 'cancel'; readonly atMs: number; readonly sessionId: string; readonly active: boolean }
  | {
      readonly type: 'ignored';
      readonly atMs: number;
      readonly sessionId: string;
      readonly reason: 'fenced';
    };

export type CancelResult =
  | { readonly outcome: 'cancelled'; readonly active: boolean }
  /** A denied and a foreign task-session pair get this same answer (NOT-43). */
  | { readonly outcome: 'refused'; readonly reason: 'not_found' };

export interface ProviderFailure {
  readonly evidence: EvidenceEnvelope;
  readonly replay?: ReplayEvidence | null;
  readonly promptOpen?: boolean;
  /** The dispatch the failure answers: a complete execution identity. Without it, a retired retry fences it. */
  readonly invocationId?: string;
}

export type ProviderEventResult = RouteOutcome | { readonly outcome: 'ignored'; readonly reason: 'fenced' };

/** States in which a retry loop is live: a wait, or an accepted retry (or switch) in flight (NOT-19). */
const loopStates: ReadonlySet<string> = new Set(['retry_wait', 'waiting_for_reset', 'retrying', 'switching']);

/**
 * Concrete-profile task sessions and their interactive transient retry notice (REQUIREMENTS NOT-01 to NOT-43).
 * The engine owns the retry, durably, and its decisions say what the transcript must show (notice operations);
 * this orchestrator carries them out, one session at a time under that session's guard, in event order, after
 * the engine's commit and never inside a store transaction. Before writing a notice it re-reads the route, so a
 * cancelled or superseded attempt never recreates a retired notice.
 */
export class InteractiveSessions {
  private readonly guards: SessionGuards;
  private readonly notices: RetryNotices;
  private readonly routes: RouteSessions;
  private readonly listeners = new Listeners<SessionEvent>();
  private readonly pending = new Set<Promise<unknown>>();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: InteractiveSessionsOptions) {
    const locks = options.sessionLocks;
    this.guards = new SessionGuards(options.clock, options.fenceMs, locks);
    this.notices = new RetryNotices(options.transcript, options.log ?? (() => undefined));
    this.routes = new RouteSessions(locks === undefined ? undefined : (id) => locks.sessionOfRoute(id));
  }

  /**
   * Follows the engine, and takes back the sessions whose route is still in a retry (it survived a restart). Shared
   * nodes keep the lifecycle in the database and learn a route's session when its first event comes.
   */
  async start(): Promise<void> {
    this.unsubscribe = this.options.engine.subscribe((event) => this.onEngineEvent(event));
    if (this.options.sessionLocks !== undefined) {
      await this.options.sessionLocks.ownLoops([...loopStates]);
      return;
    }
    for (const session of await this.options.sessions.list()) {
      this.routes.remember(session);
      const route = await this.options.store.readRoute(session.routeId);
      if (route !== null && loopStates.has(route.state)) {
        await this.guards.with(session.sessionId, (entry) => Promise.resolve(this.guards.own(entry, true)));
      }
    }
  }

  subscribe(listener: (event: SessionEvent) => void): () => void {
    return this.listeners.add(listener);
  }

  /**
   * Opens a task session on a concrete profile and dispatches its first prompt. The session's route id is
   * `session:<session id>` unless `routeId` names one.
   */
  async open(
    input: SessionRef & { readonly profileId: string; readonly owner: string; readonly routeId?: string },
  ): Promise<Route> {
    checkSession(input);
    const routeId = input.routeId ?? `session:${input.sessionId}`;
    const session: TaskSession = {
      taskId: input.taskId,
      sessionId: input.sessionId,
      owner: input.owner,
      routeId,
      createdAtMs: this.options.clock.now(),
    };
    return this.guards.with(input.sessionId, async (entry) => {
      // Another open of this id came first (on this node or another): its session stands, this one is refused.
      if (!(await this.options.sessions.create(session))) throw new SessionExistsError(input.sessionId);
      this.routes.remember(session);
      let route: Route;
      try {
        route = await this.startSessionRoute(routeId, input.profileId, input.routeId === undefined);
      } catch (error) {
        // A route that cannot start (an invalid profile id, the route id taken by another route) leaves no
        // session behind: it would point at no route, or own another caller's route and its notices.
        this.routes.forget(routeId);
        await this.options.sessions.delete(input.sessionId);
        throw error;
      }
      this.guards.own(entry, false);
      return route;
    });
  }

  /**
   * Starts the session's route. Its default id (`session:<id>`) may still be held by the route of a deleted session
   * with this id (its attempt was running when the session was deleted): the session id is free (its row was just
   * created), so that orphan is purged when it waits for nothing now, and the route started again.
   */
  private async startSessionRoute(routeId: string, profileId: string, defaultId: boolean): Promise<Route> {
    const start = () => this.options.engine.startRoute({ routeId, profileId, mode: 'interactive' });
    try {
      return await start();
    } catch (error) {
      if (!defaultId || !(error instanceof RouteExistsError)) throw error;
      if (!(await this.options.engine.purgeRoute(routeId))) throw error;
      return start();
    }
  }

  /** A new user prompt begins in the session (the caller sent it): a new attempt with its own identity. */
  async prompt(ref: SessionRef): Promise<RouteOutcome> {
    const session = await this.sessionOf(ref);
    return this.options.engine.beginPrompt({ routeId: session.routeId });
  }

  /** A provider failure of the session's current attempt; fenced when it is late and carries no identity. */
  async reportFailure(ref: SessionRef, failure: ProviderFailure): Promise<ProviderEventResult> {
    const session = await this.sessionOf(ref);
    return this.guards.with(ref.sessionId, async (entry) => {
      if (failure.invocationId === undefined && this.guards.fenced(entry)) return this.ignored(ref);
      const route = await this.routeOf(session);
      return this.options.engine.reportFailure({
        routeId: route.id,
        generation: route.generation,
        evidence: failure.evidence,
        replay: failure.replay ?? null,
        promptOpen: failure.promptOpen === true,
        ...(failure.invocationId === undefined ? {} : { invocationId: failure.invocationId }),
      });
    });
  }

  async reportSuccess(ref: SessionRef, invocationId?: string): Promise<ProviderEventResult> {
    const session = await this.sessionOf(ref);
    return this.guards.with(ref.sessionId, async (entry) => {
      if (invocationId === undefined && this.guards.fenced(entry)) return this.ignored(ref);
      const route = await this.routeOf(session);
      return this.options.engine.reportSuccess({
        routeId: route.id,
        generation: route.generation,
        ...(invocationId === undefined ? {} : { invocationId }),
      });
    });
  }

  /**
   * CancelTransientRetry: authorize the pair first; then always retire the notices; with a live retry loop (a
   * wait, or an accepted retry in flight) also end it: the engine's decision disarms the timer, retires the
   * notices and writes the manual recovery message once, and the in-flight attempt's later failure schedules
   * nothing. With no loop it is an idempotent cleanup.
   */
  async cancel(principal: string, ref: SessionRef): Promise<CancelResult> {
    const session = await this.options.sessions.read(ref.sessionId);
    if (session === null || session.taskId !== ref.taskId || session.owner !== principal) {
      return { outcome: 'refused', reason: 'not_found' };
    }
    await this.guards.with(ref.sessionId, async () => this.emitOps(ref, await this.notices.retireAll(ref)));
    const active = await this.endLoop(session, 'cancel');
    // The decision's notice work is queued behind this guard: wait for it, then fence late events.
    await this.guards.with(ref.sessionId, (entry) => Promise.resolve(this.guards.retire(entry)));
    this.emit({ type: 'cancel', atMs: this.options.clock.now(), sessionId: ref.sessionId, active });
    return { outcome: 'cancelled', active };
  }

  /** An ordinary session stop: a live retry loop (waiting or in flight) ends, and every notice is retired. */
  async stop(ref: SessionRef): Promise<void> {
    const session = await this.sessionOf(ref);
    await this.stopSession(session);
  }

  /**
   * Deleting a task session retires its retry and notices first, then removes the session row, then its route
   * when that waits for nothing (an attempt still running keeps it until it answers; `purgeRoutes` takes it
   * later), so the session id can be opened again.
   */
  async deleteSession(ref: SessionRef): Promise<void> {
    const session = await this.sessionOf(ref);
    await this.stopSession(session);
    await this.guards.with(ref.sessionId, async () => {
      await this.options.sessions.delete(ref.sessionId);
      this.routes.forget(session.routeId);
    });
    await this.options.engine.purgeRoute(session.routeId);
  }

  /** Waits for the notice work that engine events started. */
  async idle(): Promise<void> {
    do {
      await this.options.engine.idle();
      await Promise.all([...this.pending]);
    } while (this.pending.size > 0);
  }

  /** Guard entries alive (a leak test reads this). */
  guardEntries(): number {
    return this.guards.size();
  }

  /**
   * Stops following the engine. Retries are durable here (the engine re-arms them after a restart), so shutting
   * down does not end retry ownership and leaves the notices of live retries in place (NOT-26 decision).
   */
  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    await Promise.all([...this.pending]);
    this.guards.close();
  }

  private async stopSession(session: TaskSession): Promise<void> {
    await this.guards.with(session.sessionId, async () =>
      this.emitOps(session, await this.notices.retireAll(session)),
    );
    await this.endLoop(session, 'stop');
    await this.guards.with(session.sessionId, (entry) => Promise.resolve(this.guards.retire(entry)));
  }

  /**
   * Ends the session's retry loop through the engine, if one is live; true when this call ended it. A loop that
   * moves on under us (its wait fired) is read again, a few times, so a Cancel racing the timer still lands.
   */
  private async endLoop(session: TaskSession, action: 'cancel' | 'stop'): Promise<boolean> {
    for (let tries = 0; tries < 3; tries++) {
      const route = await this.options.store.readRoute(session.routeId);
      if (route === null || !loopStates.has(route.state)) return false;
      const outcome = await this.options.engine.act({
        routeId: route.id,
        action,
        expectedGeneration: route.generation,
        expectedState: route.state,
      });
      if (outcome.outcome === 'changed') return true;
      if (outcome.outcome === 'refused' && outcome.reason !== 'stale_state') return false;
    }
    return false;
  }

  private onEngineEvent(event: EngineEvent): void {
    let routeId: string;
    // A shared node looks up a route it does not know only when the route is interactive: a transition or prompt
    // says so (and comes before the dispatch it caused), a notice operation is one by definition.
    let mayLookUp = false;
    let work: ((session: TaskSession, entry: GuardEntry) => Promise<void>) | null = null;
    switch (event.type) {
      case 'notice':
        routeId = event.operation.routeId;
        mayLookUp = true;
        work = (session, entry) => this.carryOut(session, entry, event.operation);
        break;
      case 'dispatch':
        // An accepted prompt with its complete identity (every dispatch has one): owned, and any fence lifted.
        routeId = event.intent.routeId;
        work = (_session, entry) => {
          this.guards.own(entry, event.intent.kind === 'retry' || event.intent.kind === 'reset_retry');
          return Promise.resolve();
        };
        break;
      case 'prompt':
        routeId = event.route.id;
        mayLookUp = event.route.mode === 'interactive';
        work = (_session, entry) => Promise.resolve(this.guards.own(entry, false));
        break;
      case 'transition':
        routeId = event.route.id;
        mayLookUp = event.route.mode === 'interactive';
        break;
      default:
        return;
    }
    const found = this.routes.resolve(routeId, mayLookUp);
    if (found === null || (work === null && !(found instanceof Promise))) return;
    const guarded = async (session: TaskSession | null): Promise<void> => {
      if (session === null || work === null) return;
      try {
        await this.guards.with(session.sessionId, async (entry) => {
          // Shared nodes: another node deleted the session; its route's events are nobody's any more.
          if (entry.rowMissing) return this.routes.forget(session.routeId);
          await work(session, entry);
        });
      } catch (error) {
        this.warn(session.sessionId, `notice work failed: ${String(error)}`);
      }
    };
    const running = (
      found instanceof Promise
        ? found.then(guarded, (error: unknown) =>
            this.warn('', `looking up route ${routeId} failed: ${String(error)}`),
          )
        : guarded(found)
    ).finally(() => this.pending.delete(running));
    this.pending.add(running);
  }

  private warn(sessionId: string, message: string): void {
    this.options.log?.({ level: 'warn', message, sessionId });
  }

  /** One notice operation of an engine decision, under the session's guard. */
  private async carryOut(session: TaskSession, entry: GuardEntry, op: NoticeOperation): Promise<void> {
    switch (op.op) {
      case 'write': {
        // Event order is kept by the guard; the route is re-read so a superseded attempt never writes.
        const current = await this.options.store.readRoute(op.routeId);
        if (
          current?.state !== 'retry_wait' ||
          current.generation !== op.generation ||
          current.retryOrdinal !== op.retryOrdinal
        )
          return;
        this.guards.own(entry, true);
        this.emitOps(session, await this.notices.writeAttempt(session, op.body, op.turnId));
        return;
      }
      case 'retire':
        // A normal successful turn looks only when a retry entry is owned (NOT-34); the others always (NOT-35).
        if (op.lookup === 'always' || entry.retry) {
          this.emitOps(session, await this.notices.retireAll(session));
          this.guards.retire(entry);
        } else {
          this.guards.release(entry);
        }
        return;
      case 'recovery_message':
        await this.writeRecovery(session, op.body);
        return;
    }
  }

  private async writeRecovery(session: SessionRef, body: NoticeBody): Promise<void> {
    try {
      const message = await this.options.transcript.create(session, {
        kind: 'recovery',
        turnId: null,
        ...body,
      });
      this.emit({
        type: 'recovery_message',
        atMs: this.options.clock.now(),
        sessionId: session.sessionId,
        message,
      });
    } catch (error) {
      this.options.log?.({
        level: 'warn',
        message: `writing the recovery message failed: ${String(error)}`,
        sessionId: session.sessionId,
      });
    }
  }

  private ignored(ref: SessionRef): ProviderEventResult {
    this.emit({
      type: 'ignored',
      atMs: this.options.clock.now(),
      sessionId: ref.sessionId,
      reason: 'fenced',
    });
    return { outcome: 'ignored', reason: 'fenced' };
  }

  private async sessionOf(ref: SessionRef): Promise<TaskSession> {
    const session = await this.options.sessions.read(ref.sessionId);
    if (session === null || session.taskId !== ref.taskId) {
      throw new EngineInputError([
        { path: '/session_id', message: `no session ${JSON.stringify(ref.sessionId)} in this task` },
      ]);
    }
    // A shared node may serve a session another node opened: its engine events find it without a lookup.
    if (this.options.sessionLocks !== undefined) this.routes.remember(session);
    return session;
  }

  private async routeOf(session: TaskSession): Promise<Route> {
    const route = await this.options.store.readRoute(session.routeId);
    if (route === null) throw new Error(`session ${session.sessionId} has no route`);
    return route;
  }

  private emitOps(session: SessionRef, ops: readonly NoticeOp[]): void {
    const atMs = this.options.clock.now();
    for (const op of ops)
      this.emit({ type: 'notice', atMs, sessionId: session.sessionId, op: op.op, message: op.message });
  }

  private emit(event: SessionEvent): void {
    this.listeners.emit(event);
  }
}
