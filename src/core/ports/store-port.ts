import type { Circuit, CircuitState } from '../circuit/circuit.js';
import type { PlanErrorRecord } from '../plan/error-record.js';
import type { Plan } from '../plan/plan.js';
import type { DynamicProfile } from '../policy/policy-document.js';
import type { Route, RouteState } from '../route/route.js';
import type { AttemptRecord, DispatchIntent, IntentOutcome } from '../route/route-effect.js';
import type { ReplayEvidence } from '../safety/replay-evidence.js';

/**
 * The Store port, owned by the core: what the engine needs durably, and nothing about how. Adapters
 * (SQLite now, PostgreSQL next) implement it with the same contract test suite. Times are epoch ms, UTC.
 */
/** How a store lost its database connection (`Store.connectionLoss`). */
export type ConnectionLoss = 'unreachable' | 'dropped';

export interface Store {
  /** Applies pending numbered migrations; returns the names applied now (empty when up to date). */
  migrate(): Promise<readonly string[]>;
  close(): Promise<void>;
  /**
   * Runs `work` in one transaction: all of its writes commit together, or none does. `plan` names what the work
   * will touch, so an adapter may read it up front (one round trip for the batch); the work must not depend on it.
   */
  transact<T>(work: (tx: StoreTransaction) => Promise<T>, plan?: TransactionPlan): Promise<T>;
  /**
   * Whether an error this store threw says its connection to the database was lost rather than that the database
   * refused the work (null): `unreachable` when none could be made, `dropped` when one ended under the work. Stores
   * with no connection to lose (SQLite's file) leave it out.
   */
  connectionLoss?(error: unknown): ConnectionLoss | null;
  /**
   * Whether an error this store threw says another writer of a shared database took a key this work wrote (a route
   * id started on two nodes at once: both read it free, one INSERT meets the other's row). Nothing of the work
   * landed; done again, it reads the winner's row. Stores with one writer (SQLite's file) leave it out.
   */
  lostKeyRace?(error: unknown): boolean;

  readRoute(id: string): Promise<Route | null>;
  /**
   * The latest version of a dynamic profile, validated on the way in; null when none is stored. A stored document
   * that no longer validates throws `ConfigurationError` (code `invalid_configuration`, POL-20).
   */
  readProfile(id: string): Promise<DynamicProfile | null>;
  /** The earliest stored deadline of a waiting route, or null. */
  earliestDeadline(): Promise<number | null>;
  /** Waiting routes whose deadline is at or before `nowMs`, earliest first (then by route id). */
  dueRoutes(nowMs: number, limit: number): Promise<readonly ScheduledRoute[]>;
  /** Waiting routes whose deadline is exactly one of `instantsMs` (those a closed circuit held), by route id. */
  routesWaitingUntil(instantsMs: readonly number[]): Promise<readonly ScheduledRoute[]>;
  /**
   * Claims due waiting routes for `owner` until `nowMs + leaseMs`: those whose deadline is at or before `nowMs` and
   * whose lease is free or expired, earliest first (then by route id), at most `limit`. Two claimers never get the
   * same route while its lease holds; a claimer that dies loses its lease when it expires. A claim fences nothing
   * itself: the firing's write still names the generation it read (any route write frees the lease).
   */
  claimDueRoutes(claim: DueClaim): Promise<readonly ScheduledRoute[]>;
  /** Every waiting route (reconciliation re-arms these). */
  scheduledRoutes(): Promise<readonly ScheduledRoute[]>;
  /** Routes in id order after the cursor `after`, by state and dynamic profile when given, at most `limit`. */
  listRoutes(query: RouteQuery): Promise<readonly Route[]>;
  /**
   * Routes that wait for nothing (`action_required` with no attempt that may still run, or stopped as
   * `ambiguous_dispatch`; `active` after a turn that answered), last changed before `beforeMs`, and no task session's: the candidates of a purge. At most
   * `limit`, oldest first.
   */
  finishedRoutes(beforeMs: number, limit: number): Promise<readonly string[]>;
  /**
   * Routes that wait for an attempt (`active`, `retrying`, `switching`), and routes stopped (`action_required`) while
   * an accepted attempt still ran: reconciliation looks for orphans there.
   */
  awaitingRoutes(): Promise<readonly { readonly id: string; readonly generation: number }[]>;
  /** Dispatch intents that were neither acknowledged nor resolved (reconciliation stops these routes). */
  unresolvedIntents(): Promise<readonly DispatchIntent[]>;
  /**
   * Those of `intentIds` that are stored. An intent is written in the transaction of the decision that asked for
   * it, so a stored one proves that transaction committed (when the answer to its COMMIT was lost).
   */
  storedIntents(intentIds: readonly string[]): Promise<readonly string[]>;
  listIntents(routeId: string): Promise<readonly StoredIntent[]>;
  listAttempts(routeId: string): Promise<readonly StoredAttempt[]>;
  readCircuit(key: string): Promise<Circuit | null>;
  /** A plan's error history, oldest first (append-only, PLN-50 decision). */
  listPlanErrors(planId: string): Promise<readonly PlanErrorRecord[]>;
  /** A plan as stored (phase, state, recovery config, `error_details`), or null. */
  readPlan(id: string): Promise<Plan | null>;
  /**
   * One page of plans, newest first (last changed first, then id descending), each with how many errors it has
   * recorded and when the last was recorded; at most `limit`.
   */
  listPlans(query: PlanPageQuery): Promise<readonly PlanSummary[]>;
  countRoutes(): Promise<Readonly<Record<RouteState, number>>>;
  /** Stored circuits by state, every state present (0 when none): read at scrape time by the metrics. */
  countCircuits(): Promise<Readonly<Record<CircuitState, number>>>;
  /** The latest version of every stored dynamic profile, by id (not validated: a list must not fail on one). */
  listProfiles(): Promise<readonly ProfileSummary[]>;
}

export interface ProfileSummary {
  readonly id: string;
  readonly name: string;
  readonly version: number;
}

export interface RouteQuery {
  readonly state?: RouteState;
  readonly profileId?: string;
  /** The last id of the previous page. */
  readonly after?: string;
  readonly limit: number;
}

export interface PlanPageQuery {
  /** The previous page's last plan: the page holds the plans strictly after it in newest-first order. */
  readonly before?: { readonly updatedAtMs: number; readonly id: string };
  readonly limit: number;
}

export interface PlanSummary {
  readonly plan: Plan;
  readonly errorCount: number;
  /** When its latest error was recorded (epoch ms), null when it has none. */
  readonly lastErrorAtMs: number | null;
}

export interface DueClaim {
  readonly owner: string;
  readonly nowMs: number;
  readonly leaseMs: number;
  readonly limit: number;
}

export interface ScheduledRoute {
  readonly id: string;
  readonly generation: number;
  readonly deadlineMs: number;
}

export interface StoredAttempt extends AttemptRecord {
  readonly seq: number;
}

export interface StoredIntent extends DispatchIntent {
  readonly outcome: IntentOutcome | null;
  readonly resolvedAtMs: number | null;
}

/** What a fenced write expects to find: the generation, the state and the revision it read. */
export interface RouteFence {
  readonly generation: number;
  readonly state: RouteState;
  readonly revision: number;
}

/** What a transaction is about to touch: a hint, never a limit (other routes may still be read and written). */
export interface TransactionPlan {
  /** The routes the work reads and writes, in any order, each once or more. */
  readonly routeIds: readonly string[];
}

export interface StoreTransaction {
  readRoute(id: string): Promise<Route | null>;
  insertRoute(route: Route): Promise<void>;
  /**
   * Writes `next` only where the stored route still has the fence's generation, state and revision. False means
   * another writer won: a stale outcome, not an error.
   */
  updateRoute(next: Route, fence: RouteFence): Promise<boolean>;
  appendAttempt(attempt: AttemptRecord): Promise<void>;
  /**
   * Deletes the route and its history (attempts, intents, replay snapshots) where the fence holds, and keeps its
   * generation (`retiredRouteGeneration`): a route started again under the id goes on from it.
   */
  deleteRoute(id: string, fence: RouteFence, atMs: number): Promise<boolean>;
  /** The last generation of the purged routes of this id (0 when none was ever purged or it was forgotten). */
  retiredRouteGeneration(id: string): Promise<number>;
  /** Forgets the generations of routes purged before `beforeMs`; how many. */
  forgetRetiredRoutes(beforeMs: number): Promise<number>;
  insertIntent(intent: DispatchIntent): Promise<void>;
  /** Records how an unresolved intent ended; false when it was already resolved or does not exist. */
  resolveIntent(id: string, outcome: IntentOutcome, atMs: number): Promise<boolean>;
  saveProfile(profile: DynamicProfile, atMs: number): Promise<void>;
  /**
   * Holds the profiles' write lock until the transaction ends, taken before a profile is read for a save or a delete:
   * another node's save or delete (PostgreSQL, several nodes on one schema) waits for it, so a version checked here
   * is still the latest when it is written. SQLite has one writer: nothing to take.
   */
  lockProfiles(): Promise<void>;
  /**
   * Holds the profiles' lock shared until the transaction ends, taken before a route is started on a profile: a
   * delete on another node (which holds it whole) waits for the start to commit and then counts its route, or the
   * start waits for the delete and finds no profile, so no route is left naming a deleted profile. Starts do not
   * wait for one another. SQLite has one writer: nothing to take.
   */
  shareProfiles(): Promise<void>;
  /** As `Store.readProfile`, inside the transaction. */
  readProfile(id: string): Promise<DynamicProfile | null>;
  /**
   * Deletes every version of the profile and keeps its last version (`retiredProfileVersion`), so a profile created
   * again under the id goes on numbering from it; false when none was stored.
   */
  deleteProfile(id: string, atMs: number): Promise<boolean>;
  /** The last version of the deleted profiles of this id (0 when none was ever deleted). */
  retiredProfileVersion(id: string): Promise<number>;
  /** How many stored routes name the profile. */
  countProfileRoutes(id: string): Promise<number>;
  readCircuits(keys: readonly string[]): Promise<ReadonlyMap<string, Circuit>>;
  /** Writes a circuit only if its stored version is `expectedVersion` (0 for a new circuit). */
  writeCircuit(circuit: Circuit, expectedVersion: number): Promise<boolean>;
  /**
   * The last call before COMMIT of a transaction whose decisions read circuits: true when every circuit it read and
   * did not write is still stored as it read it, and now stays so until the transaction ends; false when another
   * writer changed one, or is changing one now. False leaves the transaction unusable: the caller rolls it back and
   * decides again on the circuits as they are (a decision made on a circuit another node moved must not land).
   */
  confirmCircuitReads(): Promise<boolean>;
  /** Keeps counts and a sanitized excerpt only: replay text can echo secrets. */
  saveReplaySnapshot(
    routeId: string,
    generation: number,
    snapshot: ReplayEvidence,
    atMs: number,
  ): Promise<void>;
  appendPlanError(record: PlanErrorRecord): Promise<void>;
  /** As `Store.listPlanErrors`, inside the transaction. */
  listPlanErrors(planId: string): Promise<readonly PlanErrorRecord[]>;
  readPlan(id: string): Promise<Plan | null>;
  /** Stores a new plan; a plan with this id must not exist (the caller read it in the same transaction). */
  insertPlan(plan: Plan): Promise<void>;
  /**
   * Writes `next` only where the stored plan still has `expectedRevision`. False means another writer won: a stale
   * outcome, not an error.
   */
  updatePlan(next: Plan, expectedRevision: number): Promise<boolean>;
  /**
   * Stores several nodes share (PostgreSQL) only: locks, for the rest of this transaction, the waiting routes due by
   * the database's clock that no other transaction holds and whose lease is free, expired or `owner`'s, earliest
   * first (then by route id), at most `limit`, after sending this transaction's own writes. Fired in the same
   * transaction, they need no lease: another node passes over locked rows. A node that dies mid-fire loses its
   * locks with its connection; one that stalls (frozen, or its host cut off without closing the connection) loses
   * them when the store ends its idle transaction (a shared PostgreSQL store: after `holdMs`, every transaction).
   */
  lockDueRoutes?(lock: DueLock): Promise<LockedDueRoutes>;
}

/** Who locks due routes, and how many at most. */
export interface DueLock {
  readonly owner: string;
  readonly limit: number;
}

/** What `StoreTransaction.lockDueRoutes` locked, and the database's now it judged them due by. */
export interface LockedDueRoutes {
  readonly due: readonly ScheduledRoute[];
  readonly nowMs: number;
}
