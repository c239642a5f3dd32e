import { dispatchLine, secondsFrom, stateLine, type SimulationLine } from './simulation-lines.js';
import type { Progress, Scenario, Step } from './scenario.js';
import {
  appendReplayEvent,
  openReplayEvidence,
  snapshotReplayEvidence,
  type DispatchIntent,
  type ReplayEvidence,
  type Route,
  type Store,
} from '../../core/index.js';
import {
  advanceManualClock,
  currentReplayKey,
  Engine,
  ManualClock,
  type Dispatcher,
  type RouteOutcome,
} from '../../engine/index.js';

/** The route every scenario drives. */
export const simulatedRouteId = 'simulated-route';
/** A runaway guard: no sensible scenario fires this many timers. */
const maxTimerFirings = 100_000;

/** Acknowledges every dispatch at once, except the one after `lose_next_ack`, whose answer never comes. */
class SimulatedDispatcher implements Dispatcher {
  loseNext = false;
  dispatch(_intent: DispatchIntent): Promise<void> {
    if (!this.loseNext) return Promise.resolve();
    this.loseNext = false;
    return new Promise<void>(() => undefined);
  }
}

/**
 * Runs a scenario through the real engine and store with a manual clock, writing one line per transition,
 * dispatch, refusal and restart. `openStore` opens the same database again for each `restart`.
 */
export async function runSimulation(
  scenario: Scenario,
  openStore: () => Promise<Store>,
  write: (line: SimulationLine) => void,
): Promise<void> {
  const { startMs } = scenario;
  const clock = new ManualClock(startMs);
  const dispatcher = new SimulatedDispatcher();
  let store = await openStore();
  let engine = await boot(store, clock, dispatcher, startMs, write, false);
  try {
    await engine.saveProfile(scenario.profile);
    await engine.startRoute({
      routeId: simulatedRouteId,
      profileId:
        scenario.mode === 'dynamic' ? scenario.profile.id : scenario.profile.candidates[0]!.profile_id,
      mode: scenario.mode,
      caller: scenario.caller,
    });
    await engine.idle();
    // One budget of firings for the whole run: a scenario that never settles stops with an error.
    let firings = 0;
    const advanceTo = async (targetMs: number | null): Promise<void> => {
      firings += await advanceManualClock(clock, engine, targetMs, maxTimerFirings - firings);
    };
    for (const step of scenario.steps) {
      await advanceTo(startMs + step.at * 1000);
      if (step.event === 'restart') {
        await engine.close();
        await store.close();
        store = await openStore();
        engine = await boot(store, clock, dispatcher, startMs, write, true);
        continue;
      }
      if (step.event === 'lose_next_ack') {
        dispatcher.loseNext = true;
        continue;
      }
      const outcome = await applyStep(engine, store, step);
      if (outcome.outcome === 'refused') {
        const trigger = step.event === 'action' ? step.action : step.event;
        write({
          at: secondsFrom(startMs, clock.now()),
          refused: { action: trigger, reason: outcome.reason },
        });
      }
      await engine.idle();
    }
    await advanceTo(scenario.until === null ? null : startMs + scenario.until * 1000);
  } finally {
    await engine.close();
    await store.close();
  }
}

async function boot(
  store: Store,
  clock: ManualClock,
  dispatcher: Dispatcher,
  startMs: number,
  write: (line: SimulationLine) => void,
  restart: boolean,
): Promise<Engine> {
  const engine = new Engine({ store, clock, dispatcher });
  engine.subscribe((event) => {
    if (event.type === 'transition') {
      const line = stateLine(startMs, event);
      if (line !== null) write(line);
    } else if (event.type === 'dispatch') {
      write(dispatchLine(startMs, event));
    } else if (event.type === 'error') {
      write({ at: secondsFrom(startMs, event.atMs), error: event.message });
    }
  });
  const report = await engine.reconcile();
  if (restart) {
    write({
      at: secondsFrom(startMs, clock.now()),
      restart: {
        rearmed: report.rearmed.length,
        stopped: report.stopped.length,
        superseded: report.superseded,
      },
    });
  }
  return engine;
}

async function applyStep(
  engine: Engine,
  store: Store,
  step: Exclude<Step, { event: 'restart' | 'lose_next_ack' }>,
): Promise<RouteOutcome> {
  const route = await store.readRoute(simulatedRouteId);
  if (route === null) throw new Error('the simulated route disappeared');
  switch (step.event) {
    case 'failure':
      return engine.reportFailure({
        routeId: route.id,
        generation: route.generation,
        ...invocationOf(route),
        evidence: step.evidence,
        replay: replayOf(route, step.progress),
        promptOpen: step.promptOpen,
      });
    case 'success':
      return engine.reportSuccess({
        routeId: route.id,
        generation: route.generation,
        ...invocationOf(route),
      });
    case 'action':
      return engine.act({
        routeId: route.id,
        action: step.action,
        expectedGeneration: step.expectedGeneration,
        ...(step.expectedState === null ? {} : { expectedState: step.expectedState }),
      });
  }
}

/** A scenario's failure or success belongs to the route's current attempt. */
function invocationOf(route: Route): { invocationId?: string } {
  return route.dispatch === null ? {} : { invocationId: route.dispatch.intentId };
}

/** The replay evidence the failed attempt would have recorded, keyed by the route's current attempt. */
function replayOf(route: Route, progress: Progress | null): ReplayEvidence | null {
  if (progress === null) return null;
  let evidence = openReplayEvidence(currentReplayKey(route));
  if (progress.assistantOutput || progress.assistantText !== null) {
    evidence = appendReplayEvent(evidence, {
      kind: 'assistant_output',
      text: progress.assistantText ?? 'output',
    });
  }
  if (progress.thought) evidence = appendReplayEvent(evidence, { kind: 'thought' });
  if (progress.toolActivity) evidence = appendReplayEvent(evidence, { kind: 'tool_call' });
  return snapshotReplayEvidence(evidence);
}
