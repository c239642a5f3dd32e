import type { DueLock, ScheduledRoute } from '../core/index.js';
import type { Work } from './batch-queue.js';
import { routeWork, type WorkResult } from './route-work.js';

/** What one claim-and-fire unit of work did: the due routes it locked, and each firing's outcome in that order. */
export interface FiredClaim {
  readonly due: readonly ScheduledRoute[];
  /** The database's now the routes were judged due by. */
  readonly nowMs: number;
  readonly outcomes: readonly WorkResult['outcome'][];
}

/**
 * Shared nodes: one unit of work that locks the routes due by the database's clock (passing over rows another
 * transaction holds) and fires each, fenced by its generation as if alone, in the same transaction. A lease written
 * by a claim of its own cost a statement rewriting every claimed row (a third of a firing's database time); the
 * row locks do its job while the firing runs, and vanish with a node that dies. Null when the store cannot lock
 * inside a transaction.
 */
export function claimAndFireWork(lock: DueLock, newId: () => string): Work<FiredClaim | null> {
  return async (tx, _nowMs, after, now) => {
    if (tx.lockDueRoutes === undefined) return null;
    const { due, nowMs } = await tx.lockDueRoutes(lock);
    const outcomes: WorkResult['outcome'][] = [];
    for (const d of due) {
      const fire = routeWork(d.id, { type: 'deadline', generation: d.generation }, newId);
      // Each at its own instant, as the batch gives every piece: a long batch's last firing reads late rows.
      outcomes.push((await fire(tx, now(), after, now)).outcome);
    }
    return { due, nowMs, outcomes };
  };
}
