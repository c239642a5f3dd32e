import type { BatchQueue } from './batch-queue.js';
import { dispatchResultWork } from './route-work.js';
import type { DispatchKind, ScheduledRoute, Store } from '../core/index.js';

/** A route restart reconciliation stopped: its dispatch may or may not have reached the agent. */
export interface StoppedDispatch {
  readonly routeId: string;
  readonly generation: number;
  readonly intentId: string;
  readonly kind: DispatchKind;
  readonly candidate: string;
}

export interface ReconciliationReport {
  /** Waiting routes whose schedule never reached an intent: their deadlines are armed again. */
  readonly rearmed: readonly ScheduledRoute[];
  /** Routes whose dispatch had no acknowledgement: now `action_required` (ambiguous dispatch), never repeated. */
  readonly stopped: readonly StoppedDispatch[];
  /** Unacknowledged intents a later transition had already replaced (only marked). */
  readonly superseded: number;
  readonly durationMs: number;
}

/**
 * Restart reconciliation (REQUIREMENTS DUR-05, DUR-06). A waiting route's row holds its deadline and no intent
 * (leaving the wait writes the intent in the same transaction), so it provably never dispatched: it is re-armed.
 * An intent without an acknowledgement may have been delivered: its route stops for a person.
 */
export async function reconcile(
  store: Store,
  queue: BatchQueue,
  newId: () => string,
  elapsed: () => number,
): Promise<ReconciliationReport> {
  const started = elapsed();
  const intents = await store.unresolvedIntents();
  const results = await Promise.all(
    intents.map((intent) => queue.submit(dispatchResultWork(intent.routeId, intent.id, 'ambiguous', newId))),
  );
  const stopped: StoppedDispatch[] = [];
  let superseded = 0;
  results.forEach((result, i) => {
    const intent = intents[i]!;
    if (result.outcome === 'changed' && result.route.state === 'action_required') {
      stopped.push({
        routeId: intent.routeId,
        generation: intent.generation,
        intentId: intent.id,
        kind: intent.kind,
        candidate: intent.candidate,
      });
    } else {
      superseded += 1;
    }
  });
  const rearmed = await store.scheduledRoutes();
  return { rearmed, stopped, superseded, durationMs: elapsed() - started };
}
