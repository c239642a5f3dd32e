import { systemClock, type Clock } from '../engine/clock.js';
import type { Dispatcher } from '../engine/dispatcher.js';
import { Engine } from '../engine/engine.js';
import { EngineInputError } from '../engine/engine-errors.js';
import type { EngineListener } from '../engine/engine-events.js';
import { InteractiveSessions, type SessionEvent } from '../engine/interactive/interactive-sessions.js';
import type { NoticeLog } from '../engine/interactive/retry-notices.js';
import type { ReconciliationReport } from '../engine/reconciliation-report.js';
import type { Store, TaskSessions, Transcript } from '../core/index.js';
import { openSqliteDatabase } from '../store/sqlite/sqlite-store.js';
import type { TranscriptClock } from '../store/sqlite/sqlite-transcript.js';
import { runDispatcher, type RunAttemptFunction } from './run-dispatcher.js';

export interface RecourseOptions {
  /** The SQLite database file, created with its folder; `.recourse/recourse.db` under the working folder by default. */
  readonly database?: string;
  /** SQLite durability: FULL (default) syncs every commit. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** The engine's only source of time (the wall clock by default). */
  readonly clock?: Clock;
  /**
   * Runs each attempt the engine decides on, to its end; its outcome is reported for you (`RunAttempt`,
   * `docs/embedding.md`). Give `run`, or a lower-level `dispatcher`, not both.
   */
  readonly run?: RunAttemptFunction;
  /** Sends the attempts the engine decides on and reports their outcomes yourself (`docs/engine.md`). */
  readonly dispatcher?: Dispatcher;
  /** Where a report that could not be made after a run ends goes (the engine closed meanwhile, say). */
  readonly onError?: (error: unknown) => void;
  /** Route and intent ids (UUIDv7 by default). */
  readonly newId?: () => string;
  /** Transcript message times and ids (the clock and UUIDv7 by default). */
  readonly transcriptClock?: TranscriptClock;
  /** Subscribed before reconciliation runs, so the reconciliation and everything after it reach it. */
  readonly onEvent?: EngineListener;
  readonly onSessionEvent?: (event: SessionEvent) => void;
  /** Where swallowed transcript failures are logged. */
  readonly log?: NoticeLog;
  /** How long late provider events of a retired retry are ignored (five minutes by default, NOT-20). */
  readonly fenceMs?: number;
}

/** An open Recourse: the store, the engine, the task-session orchestrator, and what reconciliation found. */
export interface Recourse {
  readonly store: Store;
  readonly transcript: Transcript;
  readonly taskSessions: TaskSessions;
  readonly clock: Clock;
  readonly engine: Engine;
  readonly sessions: InteractiveSessions;
  readonly report: ReconciliationReport;
  /**
   * Graceful shutdown: stops the timer (durable waits stay stored and are re-armed at the next start), waits for the
   * work already queued to commit, closes the store. Attempts still running are not waited for: their reports
   * after this are dropped, and the next start reports them orphaned.
   */
  close(): Promise<void>;
}

/**
 * The composition root: opens the embedded database (migrating it), builds the engine and the task-session
 * orchestrator on it, subscribes the caller's listeners, and only then runs restart reconciliation, so the
 * re-armed waits, stopped dispatches and orphaned attempts it reports reach them. Every entry point (`simulate`,
 * `serve`, an embedding orchestrator) opens Recourse through here.
 */
export async function openRecourse(options: RecourseOptions): Promise<Recourse> {
  if ((options.run === undefined) === (options.dispatcher === undefined)) {
    throw new EngineInputError([
      {
        path: '/run',
        message: 'give either run (a function that runs an attempt) or a dispatcher, exactly one',
      },
    ]);
  }
  const clock = options.clock ?? systemClock();
  const database = openSqliteDatabase({
    ...(options.database === undefined ? {} : { file: options.database }),
    ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
    ...(options.transcriptClock === undefined ? {} : { transcriptClock: options.transcriptClock }),
  });
  try {
    await database.store.migrate();
    // The run dispatcher reports to the engine it is part of: bound once the engine exists.
    const dispatcher =
      options.dispatcher ?? runDispatcher(options.run!, () => engine, options.onError ?? (() => undefined));
    const engine: Engine = new Engine({
      store: database.store,
      clock,
      dispatcher,
      ...(options.newId === undefined ? {} : { newId: options.newId }),
      ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
    });
    const sessions = new InteractiveSessions({
      engine,
      store: database.store,
      transcript: database.transcript,
      sessions: database.sessions,
      clock,
      ...(options.log === undefined ? {} : { log: options.log }),
      ...(options.fenceMs === undefined ? {} : { fenceMs: options.fenceMs }),
    });
    if (options.onSessionEvent !== undefined) sessions.subscribe(options.onSessionEvent);
    await sessions.start();
    const report = await engine.reconcile();
    return {
      store: database.store,
      transcript: database.transcript,
      taskSessions: database.sessions,
      clock,
      engine,
      sessions,
      report,
      async close() {
        await sessions.close();
        await engine.close();
        await database.store.close();
      },
    };
  } catch (error) {
    await database.store.close().catch(() => undefined);
    throw error;
  }
}
