import type { DispatchIntent, JsonValue } from '../core/index.js';
import type { Dispatcher } from '../engine/index.js';

/** An attempt the engine sent: the fleet's agent accepts it when it has started (at most once). */
export interface DemoAttempt {
  readonly intent: DispatchIntent;
  readonly payload: JsonValue | null;
  accept(): void;
}

/**
 * The Dispatcher the demo fleet runs on: give it to `openRecourse({ dispatcher })`, then to `startDemoFleet`.
 * Recourse exists before the fleet does (the fleet needs the engine, the engine needs a dispatcher), so attempts
 * sent before the fleet starts (a wait that fell due while Recourse was down fires at once) are held until it does.
 */
export interface DemoDispatcher extends Dispatcher {
  /** The fleet takes the attempts, the held ones first. */
  attach(run: (attempt: DemoAttempt) => void): void;
  /**
   * The fleet stopped: every attempt not yet accepted is accepted now, and later ones at once, so that closing
   * Recourse records them as delivered (the next start reports them orphaned, never ambiguous).
   */
  detach(): void;
}

export function demoDispatcher(): DemoDispatcher {
  let run: ((attempt: DemoAttempt) => void) | null = null;
  let detached = false;
  const held: DemoAttempt[] = [];
  const unaccepted = new Set<DemoAttempt>();
  return {
    dispatch(intent, payload) {
      return new Promise<void>((resolve) => {
        const attempt: DemoAttempt = {
          intent,
          payload,
          accept() {
            if (unaccepted.delete(attempt)) resolve();
          },
        };
        unaccepted.add(attempt);
        if (detached) attempt.accept();
        else if (run === null) held.push(attempt);
        else run(attempt);
      });
    },
    attach(next) {
      run = next;
      detached = false;
      for (const attempt of held.splice(0)) next(attempt);
    },
    detach() {
      run = null;
      detached = true;
      for (const attempt of [...held.splice(0), ...unaccepted]) attempt.accept();
    },
  };
}
