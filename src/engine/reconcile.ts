import type { BatchQueue } from './batch-queue.js';
import type { ReconciledAttempt, ReconciliationReport } from './reconciliation-report.js';
import { routeWork } from './route-work.js';
import {
  orphanedAttempt,
  runningAttempt,
  type DispatchIntent,
  type Route,
  type Store,
} from '../core/index.js';

/**
 * Restart reconciliation (REQUIREMENTS DUR-05, DUR-06). A waiting route's row holds its deadline and no intent
 * (leaving the wait writes the intent in the same transaction), so it provably never dispatched: it is re-armed.
 * An intent without an acknowledgement may have been delivered: its route stops for a person. An attempt that
 * was accepted and never answered is reported as orphaned (Stop and Retry now may take it over). With several
 * nodes on one database (`stranded` given) only the intents of dead nodes are stopped and no attempt is reported
 * orphaned: a running attempt may belong to a live node.
 */
export async function reconcile(
  store: Store,
  queue: BatchQueue,
  newId: () => string,
  elapsed: () => number,
  stranded?: () => Promise<readonly DispatchIntent[]>,
): Promise<ReconciliationReport> {
  const started = elapsed();
  // Shared by several nodes: only the intents no live node will answer any more; another node's attempts run on.
  const intents = await (stranded ?? (() => store.unresolvedIntents()))();
  const results = await Promise.all(
    intents.map((intent) =>
      queue.submit(
        routeWork(
          intent.routeId,
          { type: 'dispatch_result', intentId: intent.id, result: 'ambiguous' },
          newId,
        ),
      ),
    ),
  );
  const stopped: ReconciledAttempt[] = [];
  let superseded = 0;
  results.forEach((result, i) => {
    const intent = intents[i]!;
    if (result.outcome === 'changed' && result.route.state === 'action_required') {
      stopped.push(attemptOf(intent.routeId, intent.generation, intent.id, intent.kind, intent.candidate));
    } else if (result.outcome === 'refused') {
      superseded += 1;
    }
  });
  const awaiting = stranded === undefined ? await store.awaitingRoutes() : [];
  const marked = await Promise.all(
    awaiting.map((r) => queue.submit(routeWork(r.id, { type: 'restart' }, newId))),
  );
  // Every orphan is reported, also one an earlier restart marked already: the latest report is complete.
  const orphaned: ReconciledAttempt[] = [];
  for (const result of marked) {
    if (result.outcome === 'not_found') continue;
    const d = orphanedAttempt(result.route) ?? stoppedOrphan(result.route);
    if (d !== null)
      orphaned.push(attemptOf(result.route.id, result.route.generation, d.intentId, d.kind, d.candidate));
  }
  const rearmed = await store.scheduledRoutes();
  return { rearmed, stopped, orphaned, superseded, durationMs: elapsed() - started };
}

function attemptOf(
  routeId: string,
  generation: number,
  intentId: string,
  kind: ReconciledAttempt['kind'],
  candidate: string,
): ReconciledAttempt {
  return { routeId, generation, intentId, kind, candidate };
}

/** A route stopped while its accepted attempt ran, that attempt marked orphaned by a restart. */
function stoppedOrphan(route: Route) {
  const attempt = runningAttempt(route);
  return route.state === 'action_required' && attempt !== null && attempt.orphaned ? attempt : null;
}
