import { decideAction } from './decide-action.js';
import { decideCircuitClosed } from './decide-circuit-closed.js';
import { decideDeadline } from './decide-deadline.js';
import { decideDispatchResult } from './decide-dispatch-result.js';
import { decideFailure } from './decide-failure.js';
import { decidePrompt } from './decide-prompt.js';
import { decideRestart } from './decide-restart.js';
import { decideSuccess } from './decide-success.js';
import type { Decision, RouteWorld } from './decision.js';
import type { Route } from './route.js';
import type { RouteEvent } from './route-event.js';

/**
 * The route state machine as one pure call per event: `(route, event, world) -> decision`, where the decision
 * holds the next route and every write and action as data (attempt rows, circuit writes and probe leases, the
 * timer `{routeId, generation, dueAt}`, dispatch intents, notice operations, a wait that ended). The engine
 * loads the world, calls this once, commits, and executes the effects: nothing else. `docs/engine.md` has the
 * table; each event's function documents its rows.
 */
export function decide(route: Route, event: RouteEvent, world: RouteWorld): Decision {
  switch (event.type) {
    case 'failure':
      return decideFailure(route, event, world);
    case 'success':
      return decideSuccess(route, event, world);
    case 'deadline':
      return decideDeadline(route, event, world);
    case 'dispatch_result':
      return decideDispatchResult(route, event, world);
    case 'action':
      return decideAction(route, event, world);
    case 'prompt':
      return decidePrompt(route, event, world);
    case 'restart':
      return decideRestart(route, world);
    case 'circuit_closed':
      return decideCircuitClosed(route, event, world);
  }
}
