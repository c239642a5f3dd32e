import { sql, type Kysely } from 'kysely';
import type { ClusterClaim, ClusterTimers, DispatchIntent } from '../../core/index.js';
import { intentOfRow } from '../row-codecs.js';
import type { Database, IntentRow } from '../schema.js';
import type { PostgresNotifications } from './postgres-notifications.js';
import { databaseNow } from './database-clock.js';

/** The channel the 0003 trigger announces written deadlines on (payload: "schema deadline_ms now_ms"). */
const channel = 'recourse_timers';
/** The channel the 0006 trigger announces recorded dispatch answers on (payload: "schema node_id intent_id"). */
const answersChannel = 'recourse_answers';

/**
 * The Cluster port on PostgreSQL. Due routes are claimed in one statement by the database's clock: the CTE locks
 * the earliest due rows FOR UPDATE SKIP LOCKED (a concurrent claimer passes over them; a row leased meanwhile is
 * re-checked and dropped) and the UPDATE leases them to this node.
 */
export class PostgresCluster implements ClusterTimers {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly notifications: PostgresNotifications,
    readonly nodeId: string,
  ) {}

  async claimDue(leaseMs: number, limit: number): Promise<ClusterClaim> {
    const owner = this.nodeId;
    // The clock is answered even when nothing is claimed (the outer row): the next instant is judged by it.
    const claimed = await sql<{
      id: string | null;
      generation: number;
      deadline_ms: number;
      now_ms: number;
    }>`
      WITH clock AS (SELECT ${databaseNow} AS ms),
      due AS (
        SELECT r.id FROM routes r, clock
        WHERE r.deadline_ms IS NOT NULL AND r.deadline_ms <= clock.ms
          AND (r.lease_until_ms IS NULL OR r.lease_until_ms <= clock.ms OR r.lease_owner = ${owner})
        ORDER BY r.deadline_ms, r.id
        LIMIT ${limit}
        FOR UPDATE OF r SKIP LOCKED
      ),
      leased AS (
        UPDATE routes SET lease_owner = ${owner}, lease_until_ms = clock.ms + ${leaseMs}
        FROM due, clock WHERE routes.id = due.id
        RETURNING routes.id, routes.generation, routes.deadline_ms)
      SELECT leased.*, clock.ms AS now_ms FROM clock LEFT JOIN leased ON true`.execute(this.db);
    const nowMs = Number(claimed.rows[0]!.now_ms);
    const due = claimed.rows
      .flatMap((r) =>
        r.id === null ? [] : [{ id: r.id, generation: r.generation, deadlineMs: r.deadline_ms }],
      )
      .sort((a, b) => a.deadlineMs - b.deadlineMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    // A full claim leaves more due at once: the caller claims again without asking when.
    if (due.length === limit) return { due, nowMs, nextMs: null };
    // The routes just claimed are not waiting: their firing writes their next deadline. An overdue route this claim
    // did not get is another transaction's: claimed again at once, it would spin while that one fires.
    return {
      due,
      ...(await this.nextClaimable(
        due.map((d) => d.id),
        nowMs,
      )),
    };
  }

  /**
   * The next instant worth a claim: the earliest future deadline, or the end of another node's lease on an overdue
   * route. Every write of a route frees its lease and only due routes are leased, so a future deadline is free:
   * the index on deadlines gives its first entry, and only the overdue rows are read whole.
   */
  async nextClaimable(
    inHand: readonly string[],
    claimedAtMs?: number,
  ): Promise<{ nowMs: number; nextMs: number | null }> {
    const owner = this.nodeId;
    // Overdue by the claim's clock and not taken: held by another transaction (no lease) or leased to another
    // node (then its lease's end). Without a claim's clock, every overdue route counts.
    const heldSince = claimedAtMs ?? null;
    const next = await sql<{ next_ms: number | null; now_ms: number }>`
      WITH clock AS (SELECT ${databaseNow} AS ms)
      SELECT least(
        (SELECT r.deadline_ms FROM routes r, clock WHERE r.deadline_ms > clock.ms ORDER BY r.deadline_ms LIMIT 1),
        (SELECT min(CASE
                      WHEN ${heldSince}::bigint IS NOT NULL AND r.deadline_ms <= ${heldSince}::bigint
                        THEN CASE WHEN r.lease_owner <> ${owner} AND r.lease_until_ms > ${heldSince}::bigint
                                  THEN r.lease_until_ms END
                      ELSE GREATEST(r.deadline_ms, CASE WHEN r.lease_owner = ${owner} THEN 0
                                                        ELSE coalesce(r.lease_until_ms, 0) END)
                    END)
           FROM routes r, clock WHERE r.deadline_ms <= clock.ms
             AND NOT (r.id = any(${[...inHand]}::text[])))) AS next_ms,
        (SELECT ms FROM clock) AS now_ms`.execute(this.db);
    const row = next.rows[0]!;
    return { nowMs: Number(row.now_ms), nextMs: row.next_ms === null ? null : Number(row.next_ms) };
  }

  async heartbeat(ttlMs: number): Promise<void> {
    await sql`
      INSERT INTO nodes (id, started_at_ms, alive_until_ms)
      VALUES (${this.nodeId}, ${databaseNow}, ${databaseNow} + ${ttlMs})
      ON CONFLICT (id) DO UPDATE SET alive_until_ms = EXCLUDED.alive_until_ms`.execute(this.db);
  }

  async strandedIntents(): Promise<readonly DispatchIntent[]> {
    const rows = await sql<IntentRow>`
      SELECT i.* FROM dispatch_intents i
      WHERE i.outcome IS NULL
        AND (i.node_id IS NULL OR NOT EXISTS (
          SELECT 1 FROM nodes n WHERE n.id = i.node_id AND n.alive_until_ms > ${databaseNow}))
      ORDER BY i.created_at_ms`.execute(this.db);
    return rows.rows.map(intentOfRow);
  }

  async leave(): Promise<void> {
    // Its claims go with it: routes it leased and did not fire (a claim that answered as it closed) are free at once,
    // and the other nodes hear of the earliest, as of any written deadline, rather than waiting out the lease.
    await sql`
      WITH freed AS (
        UPDATE routes SET lease_owner = NULL, lease_until_ms = NULL
        WHERE lease_owner = ${this.nodeId} AND deadline_ms IS NOT NULL
        RETURNING deadline_ms)
      SELECT pg_notify(${channel}, current_schema() || ' ' || min(deadline_ms) || ' ' || ${databaseNow})
      FROM freed HAVING count(*) > 0`.execute(this.db);
    await sql`DELETE FROM nodes WHERE id = ${this.nodeId}`.execute(this.db);
  }

  listen(onDeadline: (dueAtMs: number, databaseNowMs: number) => void): () => Promise<void> {
    // On the node's one listener connection, opened again when it drops (the fallback poll covers the gap).
    return this.notifications.subscribe(channel, (payload) => {
      const [due, now] = (payload ?? '').split(' ');
      const dueAtMs = Number(due);
      const nowMs = Number(now);
      if (payload !== null && Number.isFinite(dueAtMs) && Number.isFinite(nowMs)) onDeadline(dueAtMs, nowMs);
    });
  }

  listenAnswers(onAnswer: (intentId: string | null) => void): () => Promise<void> {
    return this.notifications.subscribe(answersChannel, (payload) => {
      if (payload === null) return onAnswer(null);
      const space = payload.indexOf(' ');
      // Only this node's intents: another node's answers are its own business.
      if (space > 0 && payload.slice(0, space) === this.nodeId) onAnswer(payload.slice(space + 1));
    });
  }

  async answeredIntents(intentIds: readonly string[]): Promise<readonly string[]> {
    if (intentIds.length === 0) return [];
    // One array parameter, not one parameter per id: a node may wait on more dispatches than a statement takes
    // parameters (65,535).
    const rows = await this.db
      .selectFrom('dispatch_intents')
      .select('id')
      .where('id', '=', sql<string>`any(${[...intentIds]}::text[])`)
      .where('outcome', 'is not', null)
      .execute();
    return rows.map((r) => r.id);
  }
}
