import { RetryNotices, type NoticeLog, type NoticeOp } from './retry-notices.js';
import { SessionGuards, type GuardEntry } from './session-guards.js';
import { Listeners } from '../../support/listeners.js';
import type { Clock } from '../clock.js';
import type { Engine } from '../engine.js';
import { EngineInputError } from '../engine-errors.js';
import { checkSession } from '../engine-input.js';
import type { EngineEvent } from '../engine-events.js';
import type { RouteOutcome } from '../route-work.js';
import {
  manualRecoveryMessage,
  retryNotice,
  safeReason,
  type ReplayEvidence,
  type Route,
  type SessionRef,
  type Store,
  type TaskSession,
  type TaskSessions,
  type Transcript,
  type TranscriptMessage,
} from '../../core/index.js';

export interface InteractiveSessionsOptions {
  readonly engine: Engine;
  readonly store: Store;
  readonly transcript: Transcript;
  readonly sessions: TaskSessions;
  readonly clock: Clock;
  readonly log?: NoticeLog;
  readonly fenceMs?: number;
}

/** What the orchestrator did to a session's transcript, for viewers and the simulator. */
export type SessionEvent =
  | {
      readonly type: 'notice';
      readonly atMs: number;
      readonly op: NoticeOp['op'];
      readonly message: TranscriptMessage;
    }
  | { readonly type: 'recovery_message'; readonly atMs: number; readonly message: TranscriptMessage }
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
  readonly evidence: unknown;
  readonly replay?: ReplayEvidence | null;
  readonly promptOpen?: boolean;
  /** The dispatch the failure answers: a complete execution identity. Without it, a retired retry fences it. */
  readonly invocationId?: string;
}

export type ProviderEventResult = RouteOutcome | { readonly outcome: 'ignored'; readonly reason: 'fenced' };

/** Reasons of `action_required` that are the existing manual recovery path (Resume, Start fresh). */
const manualRecoveryReasons = new Set([
  'exhausted',
  'unsafe',
  'unclassified',
  'not_retriable',
  'ambiguous_dispatch',
]);

/**
 * Concrete-profile task sessions and their interactive transient retry notice (REQUIREMENTS NOT-01 to NOT-43).
 * The engine owns the retry, durably; this orchestrator projects that ownership into one transcript message
 * and retires it whenever ownership ends. Every notice operation of a session runs under that session's guard,
 * in event order, and re-reads the route first, so a cancelled or superseded attempt never recreates a retired
 * notice. Notice operations run from engine events after the engine's commit, never inside a store transaction.
 */
export class InteractiveSessions {
  private readonly guards: SessionGuards;
  private readonly notices: RetryNotices;
  private readonly sessionsByRoute = new Map<string, SessionRef>();
  private readonly listeners = new Listeners<SessionEvent>();
  private readonly pending = new Set<Promise<unknown>>();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: InteractiveSessionsOptions) {
    this.guards = new SessionGuards(options.clock, options.fenceMs);
    this.notices = new RetryNotices(options.transcript, options.log ?? (() => undefined));
  }

  /** Follows the engine, and takes back the sessions whose route is still in a retry (it survived a restart). */
  async start(): Promise<void> {
    this.unsubscribe = this.options.engine.subscribe((event) => this.onEngineEvent(event));
    for (const session of await this.options.sessions.list()) {
      this.sessionsByRoute.set(session.routeId, session);
      const route = await this.options.store.readRoute(session.routeId);
      if (route !== null && inRetry(route)) {
        await this.guards.with(session.sessionId, (entry) => Promise.resolve(this.guards.own(entry, true)));
      }
    }
  }

  subscribe(listener: (event: SessionEvent) => void): () => void {
    return this.listeners.add(listener);
  }

  /** Opens a task session on a concrete profile and dispatches its first prompt. */
  async open(input: SessionRef & { readonly profileId: string; readonly owner: string }): Promise<Route> {
    checkSession(input);
    const routeId = `session:${input.sessionId}`;
    const session: TaskSession = {
      taskId: input.taskId,
      sessionId: input.sessionId,
      owner: input.owner,
      routeId,
      createdAtMs: this.options.clock.now(),
    };
    return this.guards.with(input.sessionId, async (entry) => {
      await this.options.sessions.create(session);
      this.sessionsByRoute.set(routeId, session);
      const route = await this.options.engine.startRoute({
        routeId,
        profileId: input.profileId,
        mode: 'interactive',
      });
      this.guards.own(entry, false);
      return route;
    });
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
   * CancelTransientRetry: authorize the pair first; then always retire the notices; with a live retry loop also
   * disarm it and write the manual recovery message; with none it is an idempotent cleanup.
   */
  async cancel(principal: string, ref: SessionRef): Promise<CancelResult> {
    const session = await this.options.sessions.read(ref.sessionId);
    if (session === null || session.taskId !== ref.taskId || session.owner !== principal) {
      return { outcome: 'refused', reason: 'not_found' };
    }
    return this.guards.with(ref.sessionId, async (entry) => {
      this.emitOps(await this.notices.retireAll(ref));
      const route = await this.options.store.readRoute(session.routeId);
      let active = false;
      if (route !== null && (route.state === 'retry_wait' || route.state === 'waiting_for_reset')) {
        const outcome = await this.options.engine.act({
          routeId: route.id,
          action: 'cancel',
          expectedGeneration: route.generation,
          expectedState: route.state,
        });
        active = outcome.outcome === 'changed';
        if (active) await this.writeRecovery(ref, 'Retrying was cancelled');
      }
      this.guards.retire(entry);
      this.emit({ type: 'cancel', atMs: this.options.clock.now(), sessionId: ref.sessionId, active });
      return { outcome: 'cancelled', active };
    });
  }

  /** An ordinary session stop: the retry (if waiting) stops and every notice is retired. */
  async stop(ref: SessionRef): Promise<void> {
    const session = await this.sessionOf(ref);
    await this.guards.with(ref.sessionId, (entry) => this.endOwnership(session, entry));
  }

  /** Deleting a task session retires its retry and notices first, then removes the session row. */
  async deleteSession(ref: SessionRef): Promise<void> {
    const session = await this.sessionOf(ref);
    await this.guards.with(ref.sessionId, async (entry) => {
      await this.endOwnership(session, entry);
      await this.options.sessions.delete(ref.sessionId);
      this.sessionsByRoute.delete(session.routeId);
    });
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
   * down does not end retry ownership and leaves the notices of live retries in place.
   */
  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    await Promise.all([...this.pending]);
    this.guards.close();
  }

  private onEngineEvent(event: EngineEvent): void {
    if (event.type !== 'transition' && event.type !== 'dispatch') return;
    const routeId = event.type === 'transition' ? event.route.id : event.intent.routeId;
    const session = this.sessionsByRoute.get(routeId);
    if (session === undefined) return;
    const work = this.guards
      .with(session.sessionId, (entry) =>
        event.type === 'transition'
          ? this.onTransition(session, entry, event)
          : this.onPrompt(entry, event.intent.kind),
      )
      .catch((error: unknown) => {
        this.options.log?.({
          level: 'warn',
          message: `notice work failed: ${String(error)}`,
          sessionId: session.sessionId,
        });
      })
      .finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  /** An accepted prompt with its complete identity (every dispatch has one): owned, and any fence lifted. */
  private onPrompt(entry: GuardEntry, kind: string): Promise<void> {
    this.guards.own(entry, kind === 'retry' || kind === 'reset_retry');
    return Promise.resolve();
  }

  private async onTransition(
    session: SessionRef,
    entry: GuardEntry,
    event: Extract<EngineEvent, { type: 'transition' }>,
  ): Promise<void> {
    const route = event.route;
    if (route.state === 'retry_wait') {
      // Event order is kept by the guard; the route is re-read so a superseded attempt never writes.
      const current = await this.options.store.readRoute(route.id);
      if (current?.state !== 'retry_wait' || current.generation !== route.generation) return;
      if (current.retryOrdinal !== route.retryOrdinal) return;
      this.guards.own(entry, true);
      const body = retryNotice({
        routeId: route.id,
        code: route.lastFailure?.code ?? null,
        provider: route.lastFailure?.provider_id ?? null,
        profileId: route.candidate,
        attempt: route.retryOrdinal,
        maxAttempts: route.maxRetries,
        deadlineMs: route.deadlineMs,
      });
      this.emitOps(await this.notices.writeAttempt(session, body, route.dispatch?.intentId ?? null));
      return;
    }
    if (route.state === 'active' && event.decision === 'success') {
      // A normal successful turn looks for notices only when a retry entry was owned (NOT-34).
      const hadRetry = entry.retry || event.from === 'retrying';
      if (hadRetry) {
        this.emitOps(await this.notices.retireAll(session));
        this.guards.retire(entry);
      } else {
        this.guards.release(entry);
      }
      return;
    }
    if (route.state === 'action_required') {
      // A terminal outcome always looks (NOT-35): the notice may outlive its timer or its process.
      this.emitOps(await this.notices.retireAll(session));
      this.guards.retire(entry);
      if (manualRecoveryReasons.has(route.reason)) {
        const why =
          route.reason === 'exhausted'
            ? 'Retries are exhausted'
            : `${safeReason(route.lastFailure?.code ?? null)}`;
        await this.writeRecovery(session, why);
      }
    }
  }

  private async endOwnership(session: TaskSession, entry: GuardEntry): Promise<void> {
    this.emitOps(await this.notices.retireAll(session));
    const route = await this.options.store.readRoute(session.routeId);
    if (route !== null && (route.state === 'retry_wait' || route.state === 'waiting_for_reset')) {
      await this.options.engine.act({
        routeId: route.id,
        action: 'stop',
        expectedGeneration: route.generation,
        expectedState: route.state,
      });
    }
    this.guards.retire(entry);
  }

  private async writeRecovery(session: SessionRef, reason: string): Promise<void> {
    try {
      const body = manualRecoveryMessage(reason);
      const message = await this.options.transcript.create(session, {
        kind: 'recovery',
        turnId: null,
        ...body,
      });
      this.emit({ type: 'recovery_message', atMs: this.options.clock.now(), message });
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
    return session;
  }

  private async routeOf(session: TaskSession): Promise<Route> {
    const route = await this.options.store.readRoute(session.routeId);
    if (route === null) throw new Error(`session ${session.sessionId} has no route`);
    return route;
  }

  private emitOps(ops: readonly NoticeOp[]): void {
    const atMs = this.options.clock.now();
    for (const op of ops) this.emit({ type: 'notice', atMs, op: op.op, message: op.message });
  }

  private emit(event: SessionEvent): void {
    this.listeners.emit(event);
  }
}

function inRetry(route: Route): boolean {
  return route.state === 'retry_wait' || route.state === 'waiting_for_reset' || route.state === 'retrying';
}
