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
 * - `options.signal` aborts when the answer was recorded without the dispatcher: stop waiting for it.
 *
 * `openRecourse({ run })` builds one from a plain function (`docs/embedding.md`).
 */
export interface Dispatcher {
  dispatch(intent: DispatchIntent, payload: JsonValue | null, options?: DispatchOptions): Promise<void>;
}

export interface DispatchOptions {
  /**
   * Aborted when the attempt's answer was recorded without this dispatcher: its acknowledgement reached another
   * node of a shared schema (or `Engine.acknowledgeDispatch`), a report proved its delivery, or another node stopped
   * it. Stop waiting: whatever the promise does afterwards is ignored.
   */
  readonly signal: AbortSignal;
}
