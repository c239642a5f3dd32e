import type { DispatchIntent, JsonValue } from '../core/index.js';

/**
 * The Dispatcher port: sends one attempt (an intent already committed with its transition) to its candidate.
 *
 * - `intent` names the route, the generation, the candidate, the kind (`initial`, `retry`, `reset_retry`,
 *   `successor`, `manual`) and its id; `payload` is the route's caller data (what to send: the prompt, say).
 * - Resolve once the agent **accepted** the attempt (not when its turn finished): that is the acknowledgement.
 *   Reject when delivery is uncertain: the route stops for a person and the intent is never sent again (a restart
 *   treats a missing acknowledgement the same way).
 * - Report the attempt's outcome later with `engine.reportFailure` or `engine.reportSuccess`, passing
 *   `generation: intent.generation` and `invocationId: intent.id`; key its replay evidence by
 *   `replayKeyOf`'s (session = route id, execution = intent id, prompt generation = generation).
 *
 * `openRecourse({ run })` builds one from a plain function (`docs/embedding.md`).
 */
export interface Dispatcher {
  dispatch(intent: DispatchIntent, payload: JsonValue | null): Promise<void>;
}
