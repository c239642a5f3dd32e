import type { DispatchIntent } from '../route/route-effect.js';
import type { ScheduledRoute } from './store-port.js';

/** What one claim pass found, in the database's clock. */
export interface ClusterClaim {
  /** The due routes now leased to this node, earliest first (then by route id). */
  readonly due: readonly ScheduledRoute[];
  /** The database's now when it claimed them: the authority for due times. */
  readonly nowMs: number;
  /**
   * When the next waiting route may be claimed by the database's clock (its deadline, or a foreign lease's end),
   * leaving out the routes just claimed; null when none waits, and not asked when the claim was full (claim again).
   */
  readonly nextMs: number | null;
}

/**
 * The Cluster port: what a node needs when several engines share one database (PostgreSQL, `nodes: 'shared'`).
 * Timers fire only through claims decided by the database's clock; nodes announce that they are alive, so a
 * survivor can tell a dead node's unanswered dispatches from a live node's in-flight ones.
 */
export interface ClusterTimers {
  readonly nodeId: string;
  /** Leases due routes (deadline at or before the database's now, lease free, expired or ours) for `leaseMs`. */
  claimDue(leaseMs: number, limit: number): Promise<ClusterClaim>;
  /**
   * The next instant worth a claim by the database's clock (a deadline, or the end of another node's lease on an
   * overdue route), leaving out the routes `inHand`; `nextMs` null when none waits. `claimedAtMs`, the database's
   * now of a claim that locked every free due route it could: a route due by then that it did not get was held by
   * another transaction (firing it, or gone with its node), so it is left to that transaction and to the poll
   * rather than claimed again at once, which would spin while the other node fires.
   */
  nextClaimable(
    inHand: readonly string[],
    claimedAtMs?: number,
  ): Promise<{ readonly nowMs: number; readonly nextMs: number | null }>;
  /** Marks this node alive for `ttlMs` more of the database's clock. */
  heartbeat(ttlMs: number): Promise<void>;
  /** Unanswered intents whose node is not alive (or unknown): nobody will record their acceptance any more. */
  strandedIntents(): Promise<readonly DispatchIntent[]>;
  /**
   * Calls `onDeadline(dueAtMs, databaseNowMs)` whenever a waiting route's deadline is written by any node, on a
   * connection of its own that is opened again when it drops. Returns how to stop listening.
   */
  listen(onDeadline: (dueAtMs: number, databaseNowMs: number) => void): () => Promise<void>;
  /**
   * Calls `onAnswer(intentId)` when any node records the answer of an intent this node wrote (its acknowledgement,
   * a report that proves delivery, a stop), and `onAnswer(null)` when answers may have been missed (the listener
   * connected again). Returns how to stop listening.
   */
  listenAnswers(onAnswer: (intentId: string | null) => void): () => Promise<void>;
  /** Those of `intentIds` whose answer is recorded: what a lost notification would have said. */
  answeredIntents(intentIds: readonly string[]): Promise<readonly string[]>;
  /** This node leaves: it is no longer alive (its unanswered intents become stranded at once). */
  leave(): Promise<void>;
}
