import { openRecourse, type Recourse } from '../../src/app/index.js';
import type { RouteState } from '../../src/core/index.js';
import { demoDispatcher, startDemoFleet, type DemoFleet, type DemoLogEntry } from '../../src/demo/index.js';
import { ManualClock, type EngineEvent } from '../../src/engine/index.js';

/** The demo fleet on a real engine and SQLite file, driven by a manual clock that jumps from timer to timer. */
export interface DemoRun {
  readonly clock: ManualClock;
  readonly recourse: Recourse;
  readonly fleet: DemoFleet;
  readonly events: EngineEvent[];
  readonly logs: DemoLogEntry[];
  readonly errors: unknown[];
}

export async function openDemo(database: string, startMs: number, seed = 1): Promise<DemoRun> {
  const clock = new ManualClock(startMs);
  const dispatcher = demoDispatcher();
  const events: EngineEvent[] = [];
  const errors: unknown[] = [];
  const recourse = await openRecourse({
    database,
    clock,
    dispatcher,
    onEvent: (event) => events.push(event),
    onError: (error) => errors.push(error),
  });
  const logs: DemoLogEntry[] = [];
  const fleet = await startDemoFleet({ recourse, dispatcher, seed, log: (entry) => logs.push(entry) });
  await settle(recourse, fleet);
  return { clock, recourse, fleet, events, logs, errors };
}

/** Lets the engine and the fleet finish what the last firing started. */
async function settle(recourse: Recourse, fleet: DemoFleet): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await recourse.engine.idle();
    await fleet.settled();
  }
}

/** Moves the clock forward by `ms`, firing each timer (the engine's and the fleet's) at its own instant. */
export async function runFor(run: DemoRun, ms: number): Promise<void> {
  const end = run.clock.now() + ms;
  for (let next = run.clock.nextDue(); next !== null && next <= end; next = run.clock.nextDue()) {
    run.clock.set(Math.max(run.clock.now(), next));
    run.clock.fireDue();
    await settle(run.recourse, run.fleet);
  }
  run.clock.set(end);
}

/** The states routes entered, from the transition events. */
export function statesEntered(events: readonly EngineEvent[]): Set<RouteState> {
  return new Set(events.flatMap((e) => (e.type === 'transition' ? [e.route.state] : [])));
}
