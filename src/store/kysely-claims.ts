import type { Kysely } from 'kysely';
import type { DueClaim, ScheduledRoute } from '../core/index.js';
import type { Database } from './schema.js';

/**
 * Claims due routes in one UPDATE: the subquery picks the earliest due routes whose lease is free or expired, the
 * UPDATE leases them to the owner and returns them. On PostgreSQL the subquery locks its rows FOR UPDATE SKIP
 * LOCKED, so a concurrent claimer passes over them instead of waiting, and a row another claimer leased meanwhile
 * is re-checked against the lease condition and dropped. SQLite has one writer at a time and needs no row locks.
 */
export async function claimDueRoutes(
  db: Kysely<Database>,
  claim: DueClaim,
  rowLocks: boolean,
): Promise<readonly ScheduledRoute[]> {
  const { owner, nowMs, leaseMs, limit } = claim;
  let due = db
    .selectFrom('routes')
    .select('id')
    .where('deadline_ms', 'is not', null)
    .where('deadline_ms', '<=', nowMs)
    .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<=', nowMs)]))
    .orderBy('deadline_ms')
    .orderBy('id')
    .limit(limit);
  if (rowLocks) due = due.forUpdate().skipLocked();
  const rows = await db
    .updateTable('routes')
    .set({ lease_owner: owner, lease_until_ms: nowMs + leaseMs })
    .where('id', 'in', due)
    .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<=', nowMs)]))
    .returning(['id', 'generation', 'deadline_ms'])
    .execute();
  // RETURNING follows no order: give the due order back.
  return rows
    .map((r) => ({ id: r.id, generation: r.generation, deadlineMs: r.deadline_ms! }))
    .sort((a, b) => a.deadlineMs - b.deadlineMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
