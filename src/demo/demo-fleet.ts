import type { Recourse } from '../app/index.js';
import { RecourseError } from '../core/index.js';
import { allRoutes } from './all-routes.js';
import { DemoAgents } from './demo-agents.js';
import type { DemoLog } from './demo-log.js';
import type { DemoDispatcher } from './demo-dispatcher.js';
import { demoProfiles } from './demo-profiles.js';
import { demoSessions, type DemoSession } from './demo-session.js';
import { DemoTimers } from './demo-timers.js';
import { DemoWorkflow } from './demo-workflow.js';
import { countByState, type FleetSummary } from './fleet-summary.js';

export interface DemoFleetOptions {
  /** An open Recourse whose dispatcher is `dispatcher` (`openRecourse({ dispatcher: demoDispatcher() })`). */
  readonly recourse: Pick<Recourse, 'engine' | 'clock'>;
  readonly dispatcher: DemoDispatcher;
  /** How many simulated sessions run at once (12 by default, 1 to 100). */
  readonly sessions?: number;
  /** Seeds every session's story and timing (1 by default): the same seed and clock give the same fleet. */
  readonly seed?: number;
  readonly log?: DemoLog;
  /** How long a route waits for the scripted operator, in ms (10 s by default). */
  readonly operatorDelayMs?: number;
}

/** A running fleet. */
export interface DemoFleet {
  /**
   * Stops cleanly: cancels every timer, accepts the attempts not yet accepted, and waits for reports already on
   * their way, so nothing reaches the engine afterwards. Call it before `recourse.close()`. Idempotent.
   */
  stop(): Promise<void>;
  /** The routes now, by state, and what happened since the start (`formatFleetSummary` makes it a line). */
  summary(): Promise<FleetSummary>;
  /** Resolves when none of the fleet's own work is running (a manual clock's test waits on it between steps). */
  settled(): Promise<void>;
}

const defaults = { sessions: 12, seed: 1, operatorDelayMs: 10_000 } as const;

/** How often the fleet looks at its routes, in ms. */
const sweepEveryMs = 500;

/**
 * Starts the built-in simulated fleet on a real engine: saves the three demo profiles, then keeps a dozen sessions
 * busy forever. Each session works through tasks (a route each, a few prompts per task); its simulated provider
 * fails on a script (overload, rate limit with a reset, exhausted quota, expired login, cut stream, a failure after
 * tool activity, an unknown error) and the engine recovers. A scripted operator answers routes that stop for a
 * person after `operatorDelayMs`; finished tasks are purged after a minute, so the database stays small.
 * Everything runs on `recourse.clock`, through the engine's public methods only.
 */
export async function startDemoFleet(options: DemoFleetOptions): Promise<DemoFleet> {
  const count = options.sessions ?? defaults.sessions;
  if (!Number.isSafeInteger(count) || count < 1 || count > 100) {
    throw new RecourseError('invalid_input', `sessions must be 1 to 100 (got ${String(count)})`);
  }
  const { engine, clock } = options.recourse;
  const log = options.log ?? (() => undefined);
  let stopping: Promise<void> | null = null;
  const report = (error: unknown): void => {
    // Engine calls racing the shutdown end with `closed`, and a purged route with `not_found`: nothing to tell.
    if (isRecourseError(error, 'closed') || isRecourseError(error, 'not_found')) return;
    log({ level: 'warn', message: `demo fleet: ${error instanceof Error ? error.message : String(error)}` });
  };
  const timers = new DemoTimers(clock, report);
  for (const profile of demoProfiles) await engine.saveProfile(profile);

  const sessions: DemoSession[] = demoSessions(count, options.seed ?? defaults.seed);
  const agents = new DemoAgents(engine, timers, sessions);
  const stats = { recovered: 0, switched: 0, stopped: 0, operatorActions: 0 };
  const unsubscribe = engine.subscribe((event) => {
    if (event.type !== 'transition') return;
    const to = event.route.state;
    if (to === 'switching') stats.switched += 1;
    else if (to === 'action_required' && event.from !== 'action_required') stats.stopped += 1;
    else if (to === 'active' && event.from !== null && event.from !== 'active') stats.recovered += 1;
  });
  const workflow = new DemoWorkflow({
    engine,
    timers,
    agents,
    sessions,
    operatorDelayMs: options.operatorDelayMs ?? defaults.operatorDelayMs,
    startMs: clock.now(),
    log,
    onOperatorAction: () => {
      stats.operatorActions += 1;
    },
  });
  options.dispatcher.attach((attempt) => agents.onDispatch(attempt));

  const sweepThenAgain = async (): Promise<void> => {
    try {
      await workflow.sweep();
    } catch (error) {
      // Recourse was closed under the fleet: there is nothing left to sweep (stop() still cleans up).
      if (isRecourseError(error, 'closed')) return;
      report(error);
    }
    timers.after(sweepEveryMs, sweepThenAgain);
  };
  timers.run(sweepThenAgain);

  return {
    stop() {
      stopping ??= (async () => {
        workflow.stop();
        timers.stop();
        options.dispatcher.detach();
        unsubscribe();
        await timers.settled();
      })();
      return stopping;
    },
    async summary() {
      const routes = await allRoutes(engine);
      return { routes: routes.length, byState: countByState(routes), ...stats };
    },
    settled: () => timers.settled(),
  };
}

function isRecourseError(error: unknown, code: RecourseError['code']): boolean {
  return error instanceof RecourseError && error.code === code;
}
