import type { DispatchIntent } from '../core/index.js';

/**
 * The Dispatcher port: sends one prompt attempt (an intent already committed with its transition) to a candidate.
 * Resolving is the acknowledgement: the agent accepted the attempt. Rejecting means delivery is uncertain: the
 * route stops for a person and the intent is never sent again (a restart treats a missing acknowledgement the
 * same way). The replay evidence of the attempt is keyed by the intent: session = route id, execution = intent id,
 * prompt generation = the intent's generation.
 */
export interface Dispatcher {
  dispatch(intent: DispatchIntent): Promise<void>;
}
