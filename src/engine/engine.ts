import { BatchQueue, type AfterCommit, type QueuedWork, type Work } from './batch-queue.js';
import type { CancelTimer, Clock } from './clock.js';
import type { Dispatcher } from './dispatcher.js';
import {
  EngineClosedError,
  EngineInputError,
  ProfileNotFoundError,
  RouteExistsError,
  RouteNotFoundError,
  VersionConflictError,
} from './engine-errors.js';
import type { EngineEvent, EngineListener } from './engine-events.js';
import { uuidv7 } from '../support/ids.js';
import { Listeners } from '../support/listeners.js';
import {
  checkAcknowledgement,
  checkFailure,
  checkAction,
  checkListQuery,
  checkPrompt,
  checkSuccess,
  checkStart,
  requireObject,
  type AcknowledgementReport,
  type FailureReport,
  type ManualActionRequest,
  type PromptRequest,
  type StartRequest,
  type SuccessReport,
} from './engine-input.js';
import { reconcile } from './reconcile.js';
import type { ReconciliationReport } from './reconciliation-report.js';
import {
  acknowledgementWork,
  routeWork,
  startWork,
  type RouteOutcome,
  type WorkResult,
} from './route-work.js';
import { claimAndFireWork } from './claim-work.js';
import {
  ConfigurationError,
  describeValue,
  RecourseError,
  runningAttempt,
  snapshotOf,
  validateDynamicProfile,
  type DispatchIntent,
  type DynamicProfile,
  type DynamicProfileInput,
  type ProfileSummary,
  type JsonValue,
  type Route,
  type RouteEvent,
  type RouteSnapshot,
  type RouteState,
  type ClusterTimers,
  type Store,
} from '../core/index.js';

export interface EngineOptions {
  readonly store: Store;
  readonly clock: Clock;
  readonly dispatcher: Dispatcher;
  /** Route and intent ids (UUIDv7 by default). */
  readonly newId?: () => string;
  /** The most pieces of work committed in one transaction (group commit). */
  readonly maxBatch?: number;
  /** Subscribed before anything runs, so `Engine.open`'s reconciliation reaches it too. */
  readonly onEvent?: EngineListener;
  /**
   * How long `close` waits for the dispatcher to answer attempts already sent (5 s by default), so that their
   * acceptance is recorded: a clean shutdown then leaves orphans at worst, never ambiguous dispatches.
   */
  readonly closeGraceMs?: number;
  /** Several nodes on one database: timers fire only through the cluster's claims (see `SharedNodes`). */
  readonly shared?: SharedNodes;
}

/** How a node shares its database with other nodes (`docs/operations.md`, "Several nodes"). */
export interface SharedNodes {
  readonly cluster: ClusterTimers;
  /**
   * How long a claim and a heartbeat hold (by the database's clock): a node silent this long is dead, its claims
   * pass to another node and its unanswered dispatches are stopped.
   */
  readonly leaseMs: number;
  /** The fallback poll: how often a node claims due routes without being told, and says it is alive. */
  readonly pollMs: number;
}

export interface SaveProfileOptions {
  /**
   * The version the caller edited: saving fails with `VersionConflictError` (code `version_conflict`, carrying the
   * current document) unless it is still the latest; 0 means the profile must not exist yet.
   */
  readonly expectedVersion?: number;
}

export interface ListRoutesQuery {
  readonly state?: RouteState;
  readonly profileId?: string;
  /** Continue after this route id: the `next` of the previous page. */
  readonly after?: string;
  /** 1 to 1,000 (default 100). */
  readonly limit?: number;
}

/** Due routes read per query when a timer fires. */
const dueBatch = 512;
/**
 * Due routes one claim-and-fire transaction locks. None is sent before its transaction commits, so a smaller claim
 * sends its first routes sooner when a backlog built up (a cold start, a pause); a transaction's fixed cost is a
 * few round trips.
 */
const claimBatch = 128;
/** What one claim pass did: how many routes it claimed, each firing's outcome, and the next instant if it read it. */
interface ClaimPass {
  readonly claimed: number;
  /** It claimed as many as it may: more may be due at once. */
  readonly full: boolean;
  readonly outcomes: readonly WorkResult['outcome'][];
  readonly next: {
    readonly nowMs: number;
    readonly nextMs: number | null;
    readonly answeredAtMs: number;
  } | null;
  /** The database's now the claim judged routes due by. */
  readonly claimedAtMs: number;
}

/** After a claim-and-fire transaction failed, claim with leases (each route fired apart) this long. */
const claimCoolDownMs = 60_000;
/** After a failed timer pass, try again this much later. */
const timerRetryMs = 1_000;

/**
 * The durable route engine: the one transition owner of every route in its store. Each piece of work reads the
 * route and its world inside a transaction, makes the one pure decision for its event (`decide`), and commits it
 * fenced by the generation, state and revision it read, with every write the decision asks for; only after the
 * commit does it arm the timer, call the dispatcher and tell its listeners. One in-process timer is armed for
 * the earliest stored deadline.
 */
const defaultCloseGraceMs = 5000;

/**
 * How long a purged route's last generation is kept (30 days): a route started again under its id within that time
 * goes on from it, so an action a client still holds for the purged route is stale.
 */
const retiredRouteMemoryMs = 30 * 86_400_000;

/** A pending `waitFor`, as the engine sees it: ended from outside by close or purge. */
interface RouteWaiter {
  readonly routeId: string;
  fail(error: unknown): void;
}

export class Engine {
  private readonly queue: BatchQueue;
  private readonly newId: () => string;
  private readonly listeners = new Listeners<EngineEvent>();
  private armedAt = Number.POSITIVE_INFINITY;
  private cancelTimer: CancelTimer | null = null;
  private firing: Promise<void> | null = null;
  /**
   * Shared mode: claims lock and fire due routes in one transaction from this instant on (this clock); never once
   * the store says it cannot. A failed claim transaction puts it off by `claimCoolDownMs`: a route that cannot fire
   * stays due, and would fail every such claim before any other route fired. A lost connection does not, unless
   * it was dropped under two claims in a row (`droppedClaims`: those since the last claim that committed).
   */
  private claimsInTransactionFromMs = 0;
  private droppedClaims = 0;
  /**
   * Shared mode, while a claim pass runs: the dispatch answers that arrive wait here and are queued right behind the
   * next claim, in its transaction. Queued at once, the answers to one claim's firings took a transaction of their
   * own, and the next claim waited behind it (10-30 ms at full load, two commits a claim instead of one). Null when
   * no claim pass runs: answers are queued at once.
   */
  private answersForNextClaim: QueuedWork[] | null = null;
  private fireAgain = false;
  /** Background work idle() waits for: re-arming the timer, waking the routes a closed circuit held. */
  private readonly refreshing = new Set<Promise<void>>();
  /**
   * Timer refreshes whose read of the stored deadlines is under way, each with the earliest instant armed since it
   * began: a deadline committed during the read is armed then, and may be missing from what the read returns.
   */
  private readonly refreshReads = new Set<{ earliestArmedMs: number }>();
  private closed = false;
  /** Set when `close` has finished: answers that arrive later are dropped (the store is about to close). */
  private shut = false;
  /** The answers of sent dispatches still to be recorded. */
  private readonly answering = new Set<Promise<unknown>>();
  /**
   * Sent intents still waiting for the dispatcher's answer, each with how to end that wait when the answer is
   * recorded without it (an acknowledgement another node received, a report that proved delivery).
   */
  private readonly awaited = new Map<string, () => void>();
  /** Pending `waitFor` calls: closing the engine or purging their route ends them. */
  private readonly waiters = new Set<RouteWaiter>();
  /** Shared mode: the fallback poll, and how to stop listening for written deadlines. */
  private cancelPoll: CancelTimer | null = null;
  private cancelBeat: CancelTimer | null = null;
  private stopListening: (() => Promise<void>) | null = null;
  private polling: Promise<void> | null = null;

  constructor(private readonly options: EngineOptions) {
    this.newId = options.newId ?? (() => uuidv7(options.clock.now()));
    if (options.onEvent !== undefined) this.listeners.add(options.onEvent);
    this.queue = new BatchQueue(
      options.store,
      options.clock,
      options.maxBatch ?? 256,
      (after) => this.onCommitted(after),
      () => this.refreshSoon(),
    );
  }

  /** A new engine on `store` with restart reconciliation already run and the earliest deadline armed. */
  static async open(options: EngineOptions): Promise<{ engine: Engine; report: ReconciliationReport }> {
    const engine = new Engine(options);
    const report = await engine.reconcile();
    return { engine, report };
  }

  subscribe(listener: EngineListener): () => void {
    return this.listeners.add(listener);
  }

  /**
   * Stores a dynamic profile (version 1 or legacy policies in, normalized version 1 out). The store numbers
   * versions: 1 for a new profile (one more than the last version of a deleted one of that id), one more on each
   * change; saving an unchanged document returns the latest version as it is. With `expectedVersion`, an edit of a
   * version that is no longer the latest is a conflict.
   */
  async saveProfile(input: DynamicProfileInput, options: SaveProfileOptions = {}): Promise<DynamicProfile> {
    requireObject(options, 'the save options');
    const checked = validateDynamicProfile(input);
    const expected: unknown = options.expectedVersion;
    const issues = checked.ok ? [] : [...checked.issues];
    if (expected !== undefined && (!Number.isSafeInteger(expected) || (expected as number) < 0)) {
      issues.push({
        path: '/expected_version',
        message: `must be 0 or a positive integer (got ${describeValue(expected)})`,
      });
    }
    if (!checked.ok || issues.length > 0) throw new EngineInputError(issues);
    const profile = checked.value;
    const expectedVersion = expected as number | undefined;
    return this.submit(async (tx, nowMs) => {
      // Another node's save or delete of it waits until this one commits: the version checked stays the latest.
      await tx.lockProfiles();
      const latest = await readLatest(tx, profile.id);
      if (expectedVersion !== undefined && (latest?.version ?? 0) !== expectedVersion) {
        throw new VersionConflictError(
          profile.id,
          expectedVersion,
          latest !== null && 'candidates' in latest ? latest : null,
        );
      }
      if (latest !== null && 'candidates' in latest && sameDocument(latest, profile)) return latest;
      // A profile created again under a deleted one's id goes on from its last version: an edit still holding a
      // version of the deleted profile (`If-Match: "1"`) must not apply to the new one.
      const base = latest?.version ?? (await tx.retiredProfileVersion(profile.id));
      const stored = { ...profile, version: base + 1 };
      await tx.saveProfile(stored, nowMs);
      return stored;
    });
  }

  /** The latest version of every stored dynamic profile (id, name, version), by id. */
  async listProfiles(): Promise<readonly ProfileSummary[]> {
    if (this.closed) throw new EngineClosedError();
    return this.options.store.listProfiles();
  }

  /**
   * Deletes a dynamic profile with every version, unless a stored route still names it (code `in_use`: purge
   * or finish those routes first), so no route's next decision meets a profile that is gone. With
   * `expectedVersion`, only while that version is the latest (`VersionConflictError` otherwise): a delete decided
   * on an older version must not take an edit made since.
   */
  async deleteProfile(profileId: string, options: SaveProfileOptions = {}): Promise<void> {
    if (typeof profileId !== 'string' || profileId === '') {
      throw new EngineInputError([{ path: '/id', message: 'a profile id is a non-empty string' }]);
    }
    requireObject(options, 'the delete options');
    const expected: unknown = options.expectedVersion;
    if (expected !== undefined && (!Number.isSafeInteger(expected) || (expected as number) < 0)) {
      throw new EngineInputError([
        {
          path: '/expected_version',
          message: `must be 0 or a positive integer (got ${describeValue(expected)})`,
        },
      ]);
    }
    const outcome = await this.submit(async (tx, nowMs) => {
      await tx.lockProfiles();
      if (expected !== undefined) {
        const latest = await readLatest(tx, profileId);
        if (latest !== null && latest.version !== expected) {
          throw new VersionConflictError(
            profileId,
            expected as number,
            'candidates' in latest ? latest : null,
          );
        }
      }
      const routes = await tx.countProfileRoutes(profileId);
      if (routes > 0) return routes;
      return (await tx.deleteProfile(profileId, nowMs)) ? 0 : -1;
    });
    if (outcome < 0) throw new ProfileNotFoundError(profileId);
    if (outcome > 0) {
      throw new RecourseError(
        'in_use',
        `dynamic profile ${JSON.stringify(profileId)} is named by ${outcome} stored route${outcome === 1 ? '' : 's'}: finish them, then purge them (POST /v1/routes/purge, recourse routes purge)`,
      );
    }
  }

  /**
   * Starts a route on its first candidate (generation 1, or one above a purged route of that id still remembered)
   * and dispatches the initial attempt.
   */
  async startRoute(request: StartRequest): Promise<Route> {
    const input = checkStart(request, () => this.newId());
    const result = await this.submit(startWork(input, this.newId));
    switch (result.outcome) {
      case 'started':
        return result.route;
      case 'exists':
        throw new RouteExistsError(input.routeId);
      case 'no_profile':
        throw new ProfileNotFoundError(input.profileId);
      case 'no_candidate':
        throw new EngineInputError([{ path: '/profile_id', message: result.message }]);
      case 'invalid_configuration':
        throw new RecourseError('invalid_configuration', result.message);
    }
  }

  /** A failure of the route's current attempt: classified, gated for replay safety, decided and committed. */
  async reportFailure(report: FailureReport): Promise<RouteOutcome> {
    const { routeId, ...facts } = checkFailure(report);
    return this.onRoute(routeId, { type: 'failure', ...facts });
  }

  /** The route's attempt succeeded: the turn is done (see `docs/engine.md` for where a success counts). */
  async reportSuccess(report: SuccessReport): Promise<RouteOutcome> {
    const input = checkSuccess(report);
    return this.onRoute(input.routeId, {
      type: 'success',
      generation: input.generation,
      invocationId: input.invocationId ?? null,
    });
  }

  /**
   * The orchestrator accepted the route's dispatch `intentId` (its delivery is proven). Any engine of a shared
   * schema records it, whichever sent the dispatch: once, fenced like every route write, and the engine that sent
   * it stops waiting (told through the database). `changed` when recorded now; `refused` (`stale_dispatch`) when
   * the intent is not the route's unacknowledged attempt: acknowledged already, answered as ambiguous (its wait
   * ended first), replaced by a later transition, or never sent.
   */
  async acknowledgeDispatch(report: AcknowledgementReport): Promise<RouteOutcome> {
    const { routeId, intentId } = checkAcknowledgement(report);
    const result = await this.submit(acknowledgementWork(routeId, intentId, this.newId));
    if (result.outcome === 'not_found') throw new RouteNotFoundError(result.routeId);
    return result;
  }

  /**
   * A new user prompt begins on the route (the caller sent it): it becomes the route's attempt, so its failure or
   * success is told from late reports of the attempt before. Returns the route, whose `dispatch.intentId` is the
   * invocation id to report with.
   */
  async beginPrompt(request: PromptRequest): Promise<RouteOutcome> {
    const input = checkPrompt(request);
    return this.onRoute(input.routeId, {
      type: 'prompt',
      ...(input.expectedGeneration === undefined ? {} : { expectedGeneration: input.expectedGeneration }),
    });
  }

  /** Retry now, skip now, cancel or stop; refused (with the authoritative snapshot) for a stale generation. */
  async act(request: ManualActionRequest): Promise<RouteOutcome> {
    const input = checkAction(request);
    return this.onRoute(input.routeId, {
      type: 'action',
      action: input.action,
      expectedGeneration: input.expectedGeneration,
      ...(input.expectedState === undefined ? {} : { expectedState: input.expectedState }),
    });
  }

  /** The route as it is now (with where its turn stands), or null. */
  async route(routeId: string): Promise<RouteSnapshot | null> {
    if (this.closed) throw new EngineClosedError();
    const route = await this.options.store.readRoute(routeId);
    return route === null ? null : snapshotOf(route);
  }

  /** Routes by state and dynamic profile, in id order, a page at a time (`next` is the cursor of the next page). */
  async listRoutes(
    query: ListRoutesQuery = {},
  ): Promise<{ readonly routes: readonly RouteSnapshot[]; readonly next: string | null }> {
    const checked = checkListQuery(query);
    if (this.closed) throw new EngineClosedError();
    const routes = await this.options.store.listRoutes(checked);
    const next = routes.length === checked.limit ? routes.at(-1)!.id : null;
    return { routes: routes.map(snapshotOf), next };
  }

  /**
   * Deletes routes that wait for nothing (`action_required`, or `active` after a turn that answered), with their
   * attempt history, intents and replay snapshots, when they last changed before `beforeMs`. An attempt still
   * running keeps its route (a stopped route's attempt runs on, and its answer still counts), unless the route
   * stopped and a restart reported the attempt orphaned, or it stopped because its dispatch was ambiguous. A task session's route stays (delete the session first). Each is re-read and fenced:
   * one that moved since is kept.
   */
  async purgeRoutes(options: { readonly beforeMs: number; readonly limit?: number }): Promise<number> {
    requireObject(options, 'the purge options');
    if (this.closed) throw new EngineClosedError();
    const limit = options.limit ?? 1000;
    if (!Number.isFinite(options.beforeMs) || !Number.isSafeInteger(limit) || limit < 1 || limit > 100_000) {
      throw new EngineInputError([
        { path: '/before_ms', message: 'beforeMs must be a time (epoch ms) and limit 1 to 100,000' },
      ]);
    }
    const ids = await this.options.store.finishedRoutes(options.beforeMs, limit);
    // Told as each batch commits, not once at the end: a purge spans batches, and a route started again with a
    // purged id (in a later batch of the same purge) must not be told purged, nor its waiters failed, after it.
    let committed: string[] = [];
    const tell = () => {
      const routeIds = committed;
      committed = [];
      this.failWaitersOf(new Set(routeIds));
      this.emit({ type: 'purged', atMs: this.options.clock.now(), routeIds });
    };
    const purged = await Promise.all(
      ids.map(async (id) => {
        const gone = await this.submit(purgeIdleWork(id, options.beforeMs));
        if (gone) {
          // The pieces of one batch resolve together: one event for them, before anything later is told.
          if (committed.length === 0) queueMicrotask(tell);
          committed.push(id);
        }
        return gone;
      }),
    );
    // A purged route's generation is kept so a stale action cannot reach a route started again under its id; after
    // `retiredRouteMemoryMs` no client still holds one, and retention must not leave a row per route for good.
    await this.submit((tx, nowMs) => tx.forgetRetiredRoutes(nowMs - retiredRouteMemoryMs));
    return purged.filter(Boolean).length;
  }

  /**
   * Deletes one route that waits for nothing, as `purgeRoutes` does but whatever its age (a task session's route
   * when the session is deleted): true when it was deleted, false when it waits for something or is gone.
   */
  async purgeRoute(routeId: string): Promise<boolean> {
    if (this.closed) throw new EngineClosedError();
    const gone = await this.submit(purgeIdleWork(routeId, Number.POSITIVE_INFINITY));
    if (gone) {
      this.failWaitersOf(new Set([routeId]));
      this.emit({ type: 'purged', atMs: this.options.clock.now(), routeIds: [routeId] });
    }
    return gone;
  }

  private failWaitersOf(gone: ReadonlySet<string>): void {
    for (const waiter of [...this.waiters]) {
      if (gone.has(waiter.routeId)) waiter.fail(new RouteNotFoundError(waiter.routeId));
    }
  }

  /**
   * Resolves with the route once `predicate` holds for it (checked now, then after each change), or rejects:
   * `timeout` after `timeoutMs` of the engine's clock (never, by default), `not_found` when the route does not
   * exist or is purged meanwhile, `closed` when the engine closes first, or the predicate's own error.
   */
  waitFor(
    routeId: string,
    predicate: (route: RouteSnapshot) => boolean,
    options: { readonly timeoutMs?: number } = {},
  ): Promise<RouteSnapshot> {
    if (typeof options !== 'object' || options === null) {
      return Promise.reject(
        new EngineInputError([{ path: '', message: 'the wait options must be an object' }]),
      );
    }
    const timeoutMs: unknown = options.timeoutMs;
    if (
      typeof predicate !== 'function' ||
      (timeoutMs !== undefined &&
        !(typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs >= 0))
    ) {
      return Promise.reject(
        new EngineInputError([
          typeof predicate !== 'function'
            ? { path: '/predicate', message: 'must be a function of the route snapshot' }
            : {
                path: '/timeout_ms',
                message: `must be 0 or more milliseconds (got ${describeValue(timeoutMs)})`,
              },
        ]),
      );
    }
    if (this.closed) return Promise.reject(new EngineClosedError());
    return new Promise((resolve, reject) => {
      let done = false;
      let cancel: CancelTimer | null = null;
      const finish = (outcome: () => void) => {
        if (done) return;
        done = true;
        unsubscribe();
        this.waiters.delete(waiter);
        cancel?.();
        outcome();
      };
      const fail = (error: unknown) =>
        finish(() => reject(error instanceof Error ? error : new Error(String(error))));
      const waiter: RouteWaiter = { routeId, fail };
      const check = (route: Route | null) => {
        if (done) return;
        if (route === null) return fail(new RouteNotFoundError(routeId));
        const snapshot = snapshotOf(route);
        let holds: boolean;
        try {
          holds = predicate(snapshot);
        } catch (error) {
          return fail(error);
        }
        if (holds) finish(() => resolve(snapshot));
      };
      // Subscribe before the first read: a change in between is seen either way.
      const unsubscribe = this.subscribe((event) => {
        const route = routeOfEvent(event);
        if (route !== null && route.id === routeId) check(route);
      });
      this.waiters.add(waiter);
      // The clock is armed after the first look: a predicate that holds now resolves even with a zero timeout.
      this.options.store.readRoute(routeId).then((route) => {
        check(route);
        if (done || typeof timeoutMs !== 'number') return;
        cancel = this.options.clock.schedule(this.options.clock.now() + timeoutMs, () =>
          fail(new RecourseError('timeout', `route ${JSON.stringify(routeId)} did not get there in time`)),
        );
      }, fail);
    });
  }

  /** Restart reconciliation; then arms the timer for the earliest deadline. */
  async reconcile(): Promise<ReconciliationReport> {
    if (this.closed) throw new EngineClosedError();
    const shared = this.options.shared;
    if (shared !== undefined) await shared.cluster.heartbeat(shared.leaseMs);
    const report = await reconcile(
      this.options.store,
      this.queue,
      this.newId,
      () => performance.now(),
      shared === undefined ? undefined : () => shared.cluster.strandedIntents(),
    );
    if (shared !== undefined) this.startSharing(shared);
    const earliest = report.rearmed.reduce((min, r) => Math.min(min, r.deadlineMs), Number.POSITIVE_INFINITY);
    // Shared mode: one claim pass now; it arms for the next instant by the database's clock.
    if (shared !== undefined) this.arm(this.options.clock.now());
    else if (Number.isFinite(earliest)) this.arm(earliest);
    this.emit({ type: 'reconciled', atMs: this.options.clock.now(), report });
    return report;
  }

  /** Resolves when no work is queued and no timer pass runs (dispatches that never answer do not count). */
  async idle(): Promise<void> {
    do {
      await this.queue.drained();
      if (this.polling !== null) await this.polling;
      if (this.firing !== null) await this.firing;
      await Promise.all([...this.refreshing]);
      // Let answered dispatches queue their acknowledgement before looking again.
      await new Promise((resolve) => setImmediate(resolve));
    } while (this.queue.busy() || this.firing !== null || this.polling !== null);
  }

  /**
   * Stops the timer, ends pending `waitFor`s, waits for queued work, then for the dispatcher's answers to attempts
   * already sent (at most `closeGraceMs`) so their acceptance is recorded; answers later than that are dropped.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.cancelPoll?.();
    this.cancelPoll = null;
    this.cancelBeat?.();
    this.cancelBeat = null;
    await this.stopListening?.();
    if (this.polling !== null) await this.polling;
    for (const waiter of [...this.waiters]) waiter.fail(new EngineClosedError());
    await this.queue.drained();
    if (this.firing !== null) await this.firing;
    // Work committed while closing may have sent attempts: record their acceptance before the store closes.
    if (this.answering.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.options.closeGraceMs ?? defaultCloseGraceMs);
      });
      await Promise.race([Promise.allSettled([...this.answering]), grace]);
      clearTimeout(timer);
      await this.queue.drained();
    }
    this.shut = true;
    // Gone: what this node left unanswered is stranded at once, for the other nodes to stop.
    await this.options.shared?.cluster.leave().catch(() => undefined);
  }

  /** The instant the engine's timer is armed for, or null. */
  armedFor(): number | null {
    return Number.isFinite(this.armedAt) ? this.armedAt : null;
  }

  private arm(atMs: number): void {
    for (const read of this.refreshReads) read.earliestArmedMs = Math.min(read.earliestArmedMs, atMs);
    if (this.closed || atMs >= this.armedAt) return;
    this.cancelTimer?.();
    this.armedAt = atMs;
    this.cancelTimer = this.options.clock.schedule(atMs, () => {
      this.armedAt = Number.POSITIVE_INFINITY;
      this.cancelTimer = null;
      void this.fireDue();
    });
  }

  private fireDue(): Promise<void> {
    if (this.firing !== null) {
      this.fireAgain = true;
      return this.firing;
    }
    this.firing = (async () => {
      do {
        this.fireAgain = false;
        try {
          await this.processDue();
        } catch (error) {
          this.emit({
            type: 'error',
            atMs: this.options.clock.now(),
            message: `timer pass failed: ${(error as Error).message}`,
          });
          this.arm(this.options.clock.now() + timerRetryMs);
        }
      } while (this.fireAgain && !this.closed);
      this.firing = null;
    })();
    return this.firing;
  }

  /**
   * Shared mode: listens for deadlines any node writes and polls as a fallback (a lost notification costs at most
   * one poll); each poll also says this node is alive and stops the dispatches dead nodes left unanswered.
   */
  private startSharing(shared: SharedNodes): void {
    const clock = this.options.clock;
    // The database's clock is the authority: a deadline is armed after the delay it has by that clock.
    const stopTimers = shared.cluster.listen((dueAtMs, databaseNowMs) =>
      this.arm(clock.now() + Math.max(0, dueAtMs - databaseNowMs)),
    );
    // Another node recorded the answer of a dispatch this node sent: stop waiting for it here.
    const stopAnswers = shared.cluster.listenAnswers((intentId) => {
      if (intentId !== null) this.awaited.get(intentId)?.();
      else void this.endAnsweredWaits(shared);
    });
    this.stopListening = async () => {
      await stopTimers();
      await stopAnswers();
    };
    const schedulePoll = (): void => {
      if (this.closed) return;
      this.cancelPoll = clock.schedule(clock.now() + shared.pollMs, () => {
        this.polling = this.poll(shared).finally(() => {
          this.polling = null;
          schedulePoll();
        });
      });
    };
    schedulePoll();
    // The heartbeat runs on its own: a poll waits for queued work, and a busy node must not look dead.
    const beat = (): void => {
      if (this.closed) return;
      this.cancelBeat = clock.schedule(clock.now() + shared.pollMs, () => {
        shared.cluster.heartbeat(shared.leaseMs).then(beat, (error: unknown) => {
          if (!this.closed) {
            this.emit({
              type: 'error',
              atMs: clock.now(),
              message: `node heartbeat failed: ${(error as Error).message}`,
            });
          }
          beat();
        });
      });
    };
    beat();
  }

  private async poll(shared: SharedNodes): Promise<void> {
    await this.endAnsweredWaits(shared);
    try {
      const stranded = await shared.cluster.strandedIntents();
      await Promise.all(
        stranded.map((intent) =>
          this.submit(
            routeWork(
              intent.routeId,
              { type: 'dispatch_result', intentId: intent.id, result: 'ambiguous' },
              this.newId,
            ),
          ),
        ),
      );
    } catch (error) {
      if (this.closed) return;
      this.emit({
        type: 'error',
        atMs: this.options.clock.now(),
        message: `stopping stranded dispatches failed: ${(error as Error).message}`,
      });
    }
    if (!this.closed) await this.fireDue();
  }

  /** Shared mode: ends the waits whose answer another node recorded (the fallback for a lost notification). */
  private async endAnsweredWaits(shared: SharedNodes): Promise<void> {
    if (this.awaited.size === 0) return;
    try {
      for (const id of await shared.cluster.answeredIntents([...this.awaited.keys()]))
        this.awaited.get(id)?.();
    } catch (error) {
      if (this.closed) return;
      this.emit({
        type: 'error',
        atMs: this.options.clock.now(),
        message: `looking for answers recorded elsewhere failed: ${(error as Error).message}`,
      });
    }
  }

  /**
   * Shared mode: fires the routes due by the database's clock, claiming again while claims come back full; then
   * arms for the next claimable instant, translated to this clock. A claim locks and fires its routes in one
   * transaction (`claimAndFireWork`); when that fails, the pass claims with leases instead, each route fired apart,
   * so one route that cannot fire never holds the others back. (Claiming the next batch beside a firing one was
   * tried: the batches came out smaller and the node fired 15 % fewer routes a second.)
   */
  private async processClaims(shared: SharedNodes): Promise<void> {
    this.answersForNextClaim = [];
    try {
      await this.claimUntilDone(shared);
    } finally {
      // The pass is over: answers still held are queued now, not held for a claim that may not come.
      const held = this.answersForNextClaim;
      this.answersForNextClaim = null;
      this.queue.enqueue(held);
    }
  }

  private async claimUntilDone(shared: SharedNodes): Promise<void> {
    const clock = this.options.clock;
    for (;;) {
      if (this.closed) return;
      const pass = (await this.claimInTransaction(shared)) ?? (await this.claimWithLeases(shared));
      const { claimed, full, outcomes } = pass;
      if (!outcomes.includes('changed') && outcomes.includes('unchanged')) {
        // Early by this clock, which is behind the database's: nothing moved, so wait a poll rather than spin.
        this.arm(clock.now() + shared.pollMs);
        return;
      }
      // Full: more is due at once. Refused as stale (a person or another node moved those routes first): what came
      // due meanwhile is this node's to claim now, not after a poll.
      if (full || (claimed > 0 && !outcomes.includes('changed'))) continue;
      const next = pass.next ?? {
        ...(await shared.cluster.nextClaimable([], pass.claimedAtMs)),
        answeredAtMs: clock.now(),
      };
      // A delay from when the database answered, not from when the batch has fired.
      if (next.nextMs !== null) this.arm(next.answeredAtMs + Math.max(0, next.nextMs - next.nowMs));
      return;
    }
  }

  /** One claim-and-fire transaction; null when the store cannot, or when it failed (then said, and leases do it). */
  private async claimInTransaction(shared: SharedNodes): Promise<ClaimPass | null> {
    const clock = this.options.clock;
    if (clock.now() < this.claimsInTransactionFromMs) return null;
    try {
      const fired = await this.queue.submitWith(
        claimAndFireWork({ owner: shared.cluster.nodeId, limit: claimBatch }, this.newId),
        this.takeHeldAnswers(),
      );
      if (fired === null) {
        this.claimsInTransactionFromMs = Number.POSITIVE_INFINITY;
        return null;
      }
      this.droppedClaims = 0;
      return {
        claimed: fired.due.length,
        full: fired.due.length === claimBatch,
        outcomes: fired.outcomes,
        next: null,
        claimedAtMs: fired.nowMs,
      };
    } catch (error) {
      // A database that cannot be reached says nothing against the routes: the pass fails, and the next one (a
      // second later, or the poll) claims in a transaction again; leases would only be slower meanwhile. So does one
      // connection dropped under the claim (a restart). Dropped again with no claim between, the claim itself may be
      // the cause (a batch stalling past the idle limit, a watchdog ending long transactions): leases.
      const loss = this.options.store.connectionLoss?.(error) ?? null;
      if (this.closed || loss === 'unreachable') throw error;
      if (loss === 'dropped' && this.droppedClaims++ === 0) throw error;
      this.droppedClaims = 0;
      this.claimsInTransactionFromMs = clock.now() + claimCoolDownMs;
      this.emit({
        type: 'error',
        atMs: clock.now(),
        message: `firing due routes in one transaction failed (claiming them with leases for ${claimCoolDownMs / 1000} s): ${(error as Error).message}`,
      });
      return null;
    }
  }

  /**
   * Leases due routes by the database's clock (owner this node) and fires each in a piece of its own, fenced by
   * its generation; the next claimable instant is read with the claim.
   */
  private async claimWithLeases(shared: SharedNodes): Promise<ClaimPass> {
    // Leased firings are pieces of their own: the answers held so far go first, as they came.
    this.queue.enqueue(this.takeHeldAnswers());
    const claim = await shared.cluster.claimDue(shared.leaseMs, dueBatch);
    const answeredAtMs = this.options.clock.now();
    const results = await Promise.allSettled(
      claim.due.map((d) =>
        this.queue.submit(routeWork(d.id, { type: 'deadline', generation: d.generation }, this.newId)),
      ),
    );
    const failed = results.find((r) => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    return {
      claimed: claim.due.length,
      full: claim.due.length === dueBatch,
      outcomes: results.map((r) => (r.status === 'fulfilled' ? r.value.outcome : 'not_found')),
      next: { nowMs: claim.nowMs, nextMs: claim.nextMs, answeredAtMs },
      claimedAtMs: claim.nowMs,
    };
  }

  /** The answers held for the next claim, which takes them along; answers arriving later wait for the one after. */
  private takeHeldAnswers(): QueuedWork[] {
    const held = this.answersForNextClaim ?? [];
    if (this.answersForNextClaim !== null) this.answersForNextClaim = [];
    return held;
  }

  /** Queues a dispatch answer, or holds it for the next claim's transaction while a claim pass runs. */
  private submitAnswer(work: Work<unknown>): Promise<unknown> {
    const held = this.answersForNextClaim;
    if (held === null) return this.queue.submit(work);
    return new Promise((resolve, reject) => held.push({ work, resolve, reject }));
  }

  /** Fires every due route (each fenced by the generation that armed it), then arms the next deadline. */
  private async processDue(): Promise<void> {
    if (this.options.shared !== undefined) return this.processClaims(this.options.shared);
    const store = this.options.store;
    for (;;) {
      if (this.closed) return;
      const due = await store.dueRoutes(this.options.clock.now(), dueBatch);
      const results = await Promise.all(
        due.map((d) =>
          this.queue.submit(routeWork(d.id, { type: 'deadline', generation: d.generation }, this.newId)),
        ),
      );
      // A pass that moved nothing (the clock stepped back under it) must not spin: the next deadline re-arms.
      if (due.length < dueBatch || !results.some((r) => r.outcome === 'changed')) break;
    }
    const next = await store.earliestDeadline();
    if (next !== null) this.arm(next);
  }

  private onCommitted(after: AfterCommit): void {
    // An answer recorded by this commit (an acknowledgement told to this engine, a report proving delivery) ends
    // the dispatcher's wait for it: nothing is left to record.
    for (const id of after.answered) this.awaited.get(id)?.();
    for (const event of after.events) this.emit(event);
    for (const at of after.arm) this.arm(at);
    for (const { intent, payload } of after.dispatch) this.send(intent, payload);
    for (const wake of after.wake) this.wakeHeld(wake);
    // A wait that ended early (Cancel, Stop, Skip now, Retry now) may have been the one the timer is armed for.
    if (after.waitsEnded) this.refreshSoon();
  }

  /** Arms the timer from the stored deadlines in the background, unless a timer pass (which re-arms) runs. */
  private refreshSoon(): void {
    if (this.firing !== null) return;
    const refresh = this.refreshTimer().finally(() => this.refreshing.delete(refresh));
    this.refreshing.add(refresh);
  }

  /**
   * A circuit closed: every route still held behind it (waiting until one of the instants it held routes to) is
   * told, and one whose candidate sits behind it has its deadline brought to now, so it goes at once rather than
   * when the hold would have ended. On shared nodes the routes may be any node's: the new deadlines are announced
   * like any other, and whichever node claims them fires them.
   */
  private wakeHeld(wake: AfterCommit['wake'][number]): void {
    const woken = (async () => {
      const held = await this.options.store.routesWaitingUntil(wake.heldUntilMs);
      await Promise.all(
        held.map((route) =>
          this.submit(routeWork(route.id, { type: 'circuit_closed', ...wake }, this.newId)),
        ),
      );
    })()
      .catch((error: unknown) => {
        // Not woken: the routes go when their hold ends, as they would have.
        if (this.closed) return;
        this.emit({
          type: 'error',
          atMs: this.options.clock.now(),
          message: `waking the routes circuit ${wake.circuitKey} held failed: ${(error as Error).message}`,
        });
      })
      .finally(() => this.refreshing.delete(woken));
    this.refreshing.add(woken);
  }

  /** Arms the timer for the earliest stored deadline again, or disarms it when nothing waits. */
  private async refreshTimer(): Promise<void> {
    // Shared mode: an early firing claims nothing and arms from the database, so a stale timer costs one claim.
    if (this.options.shared !== undefined) return;
    const read = { earliestArmedMs: Number.POSITIVE_INFINITY };
    this.refreshReads.add(read);
    try {
      const stored = await this.options.store.earliestDeadline();
      // A wait committed while the read ran (another route's retry) was armed meanwhile and may be missing from
      // what the read saw: replacing the timer with the read alone would lose it until the next restart.
      const next = Math.min(stored ?? Number.POSITIVE_INFINITY, read.earliestArmedMs);
      if (next === this.armedAt || this.firing !== null || this.closed) return;
      this.cancelTimer?.();
      this.cancelTimer = null;
      this.armedAt = Number.POSITIVE_INFINITY;
      if (Number.isFinite(next)) this.arm(next);
    } catch (error) {
      this.emit({
        type: 'error',
        atMs: this.options.clock.now(),
        message: `re-arming the timer failed: ${(error as Error).message}`,
      });
    } finally {
      this.refreshReads.delete(read);
    }
  }

  /**
   * Sends a committed intent (its `dispatch` event was told with the commit) and records the dispatcher's answer,
   * unless the answer is recorded without it first (then the dispatcher's wait is aborted and its answer ignored).
   */
  private send(intent: DispatchIntent, payload: JsonValue | null): void {
    const abort = new AbortController();
    let waiting = true;
    let ended!: () => void;
    const recordedElsewhere = new Promise<void>((resolve) => (ended = resolve));
    this.awaited.set(intent.id, () => {
      if (!waiting) return;
      waiting = false;
      this.awaited.delete(intent.id);
      ended();
      abort.abort();
    });
    const answer = (result: 'acknowledged' | 'ambiguous'): Promise<void> | undefined => {
      // The answer was recorded without the dispatcher: what it says now is ignored.
      if (!waiting) return undefined;
      waiting = false;
      this.awaited.delete(intent.id);
      return this.recordAnswer(intent, result);
    };
    let sent: Promise<void>;
    try {
      sent = this.options.dispatcher.dispatch(intent, payload, { signal: abort.signal });
    } catch (error) {
      sent = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const answered = Promise.race([
      sent.then(
        () => answer('acknowledged'),
        () => answer('ambiguous'),
      ),
      recordedElsewhere,
    ]).finally(() => this.answering.delete(answered));
    this.answering.add(answered);
  }

  /**
   * Records a dispatch's answer. Recorded while closing too (close waits for it): an attempt sent is then accepted,
   * never ambiguous. A transaction that fails (the database restarting) is tried again a second later until the
   * engine shuts: an answer lost here would leave a live node's intent unanswered for good, and its route waiting.
   */
  private async recordAnswer(intent: DispatchIntent, result: 'acknowledged' | 'ambiguous'): Promise<void> {
    while (!this.shut) {
      try {
        await this.submitAnswer(
          routeWork(intent.routeId, { type: 'dispatch_result', intentId: intent.id, result }, this.newId),
        );
        return;
      } catch (error) {
        this.emit({
          type: 'error',
          atMs: this.options.clock.now(),
          message: `recording the dispatch answer failed (trying again): ${(error as Error).message}`,
        });
        await new Promise<void>((resolve) => {
          this.options.clock.schedule(this.options.clock.now() + timerRetryMs, resolve);
        });
      }
    }
  }

  private emit(event: EngineEvent): void {
    this.listeners.emit(event);
  }

  private async onRoute(routeId: string, event: RouteEvent): Promise<RouteOutcome> {
    const result = await this.submit(routeWork(routeId, event, this.newId));
    if (result.outcome === 'not_found') throw new RouteNotFoundError(result.routeId);
    return result;
  }

  /** Queues work unless the engine is closed (then nothing is done: `EngineClosedError`, code `closed`). */
  private submit<R>(work: Work<R>): Promise<R> {
    if (this.closed) return Promise.reject(new EngineClosedError());
    // Answers held for the next claim go first, in the order things came: a report of the retried attempt's failure
    // a moment after the dispatcher accepted it must find the acceptance recorded, or the acceptance is refused as
    // stale (the report proved delivery first).
    this.queue.enqueue(this.takeHeldAnswers());
    return this.queue.submit(work);
  }
}

/** The latest stored version, or, when it no longer validates, just its version (saving a valid one repairs it). */
async function readLatest(
  tx: Parameters<Work<unknown>>[0],
  id: string,
): Promise<DynamicProfile | { readonly version: number } | null> {
  try {
    return await tx.readProfile(id);
  } catch (error) {
    if (error instanceof ConfigurationError) return { version: error.version ?? 0 };
    throw error;
  }
}

/** The route an event carries, when it carries one. */
function routeOfEvent(event: EngineEvent): Route | null {
  switch (event.type) {
    case 'transition':
    case 'dispatch_acknowledged':
    case 'prompt':
      return event.route;
    default:
      return null;
  }
}

function sameDocument(a: DynamicProfile, b: DynamicProfile): boolean {
  return JSON.stringify({ ...a, version: 0 }) === JSON.stringify({ ...b, version: 0 });
}

/**
 * Deletes a route that waits for nothing (`action_required`, or `active` after a turn that answered) and last
 * changed before `beforeMs`, re-read and fenced in the transaction: one that moved since is kept. An attempt still
 * running keeps its route (its answer still counts), unless the route stopped and a restart reported it orphaned, or
 * it stopped because its dispatch was ambiguous (`ambiguous_dispatch`: never sent again, waited for no more).
 */
function purgeIdleWork(routeId: string, beforeMs: number): Work<boolean> {
  const work = async (tx: Parameters<Work<unknown>>[0], nowMs: number): Promise<boolean> => {
    const route = await tx.readRoute(routeId);
    if (route === null || route.updatedAtMs >= beforeMs) return false;
    const attempt = runningAttempt(route);
    // An attempt stopped as ambiguous (its delivery was never confirmed) is waited for no more: it is never sent
    // again, and kept for it the route could never be purged, nor its profile deleted.
    const waitsForNothing =
      route.state === 'active'
        ? attempt === null
        : route.state === 'action_required' &&
          (attempt === null || attempt.orphaned || route.reason === 'ambiguous_dispatch');
    if (!waitsForNothing) return false;
    return tx.deleteRoute(routeId, route, nowMs);
  };
  return Object.assign(work, { routeId });
}
