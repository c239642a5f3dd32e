import type { CancelCaller, Progress, Scenario, Step, Target } from './scenario.js';
import {
  dispatchLine,
  noticeLine,
  secondsFrom,
  stateLine,
  transcriptLine,
  type SimulationLine,
} from './simulation-lines.js';
import {
  appendReplayEvent,
  openReplayEvidence,
  snapshotReplayEvidence,
  type DispatchIntent,
  type ReplayEvidence,
  type Route,
  type SessionRef,
} from '../../core/index.js';
import {
  advanceManualClock,
  currentReplayKey,
  Engine,
  InteractiveSessions,
  ManualClock,
  type Dispatcher,
  type ProviderEventResult,
} from '../../engine/index.js';
import type { SqliteDatabase, TranscriptClock } from '../../store/index.js';

/** The route a dynamic scenario drives. */
export const simulatedRouteId = 'simulated-route';
/** A runaway guard: no sensible scenario fires this many timers. */
const maxTimerFirings = 100_000;
/** The principal that owns an interactive scenario's session; `denied` Cancels come from another one. */
const owner = 'owner';

/** Acknowledges every dispatch at once, except the one after `lose_next_ack`, whose answer never comes. */
class SimulatedDispatcher implements Dispatcher {
  loseNext = false;
  dispatch(_intent: DispatchIntent): Promise<void> {
    if (!this.loseNext) return Promise.resolve();
    this.loseNext = false;
    return new Promise<void>(() => undefined);
  }
}

interface Runtime {
  readonly db: SqliteDatabase;
  readonly engine: Engine;
  readonly sessions: InteractiveSessions | null;
}

/**
 * Runs a scenario through the real engine and store (and, for an interactive scenario, the real notice
 * orchestrator and transcript) with a manual clock, writing one line per transition, dispatch, notice operation,
 * refusal and restart. `open` opens the same database again for each `restart`.
 */
export async function runSimulation(
  scenario: Scenario,
  open: (clock: TranscriptClock) => Promise<SqliteDatabase>,
  write: (line: SimulationLine) => void,
): Promise<void> {
  const { startMs, target } = scenario;
  const clock = new ManualClock(startMs);
  const dispatcher = new SimulatedDispatcher();
  let messages = 0;
  const transcriptClock: TranscriptClock = { now: () => clock.now(), newId: () => `m${++messages}` };
  const boot = async (restart: boolean): Promise<Runtime> => {
    const db = await open(transcriptClock);
    const engine = new Engine({ store: db.store, clock, dispatcher });
    engine.subscribe((event) => {
      if (event.type === 'transition') {
        const line = stateLine(startMs, event);
        if (line !== null) write(line);
      } else if (event.type === 'dispatch') write(dispatchLine(startMs, event));
      else if (event.type === 'error') write({ at: secondsFrom(startMs, event.atMs), error: event.message });
    });
    let sessions: InteractiveSessions | null = null;
    if (target.mode === 'interactive') {
      sessions = new InteractiveSessions({
        engine,
        store: db.store,
        transcript: db.transcript,
        sessions: db.sessions,
        clock,
      });
      sessions.subscribe((event) => {
        const at = secondsFrom(startMs, event.atMs);
        if (event.type === 'notice') write(noticeLine(startMs, event));
        else if (event.type === 'cancel') write({ at, cancel: { active: event.active } });
        else if (event.type === 'recovery_message') {
          write({
            at,
            recovery_message: { message_id: event.message.id, actions: event.message.metadata.actions },
          });
        }
      });
      await sessions.start();
    }
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
    const runtime = { db, engine, sessions };
    await settle(runtime);
    return runtime;
  };
  let runtime = await boot(false);
  try {
    await begin(runtime, scenario);
    await settle(runtime);
    // One budget of firings for the whole run: a scenario that never settles stops with an error.
    let firings = 0;
    const advanceTo = async (targetMs: number | null): Promise<void> => {
      firings += await advanceManualClock(
        clock,
        { idle: () => settle(runtime) },
        targetMs,
        maxTimerFirings - firings,
      );
    };
    for (const step of scenario.steps) {
      await advanceTo(startMs + step.at * 1000);
      if (step.event === 'restart') {
        await shutdown(runtime);
        runtime = await boot(true);
        continue;
      }
      if (step.event === 'lose_next_ack') {
        dispatcher.loseNext = true;
        continue;
      }
      const reason = refusalOf(await applyStep(runtime, target, step));
      if (reason !== null) {
        const action = step.event === 'action' ? step.action : step.event;
        write({ at: secondsFrom(startMs, clock.now()), refused: { action, reason } });
      }
      await settle(runtime);
    }
    await advanceTo(scenario.until === null ? null : startMs + scenario.until * 1000);
    if (target.mode === 'interactive') {
      write(transcriptLine(startMs, await runtime.db.transcript.list(target.session)));
    }
  } finally {
    await shutdown(runtime);
  }
}

async function begin(runtime: Runtime, scenario: Scenario): Promise<void> {
  const target = scenario.target;
  if (target.mode === 'dynamic') {
    await runtime.engine.saveProfile(target.profile);
    await runtime.engine.startRoute({
      routeId: simulatedRouteId,
      profileId: target.profile.id,
      caller: scenario.caller,
    });
  } else {
    await runtime.sessions!.open({ ...target.session, profileId: target.profileId, owner });
  }
}

async function settle(runtime: Runtime): Promise<void> {
  await (runtime.sessions ?? runtime.engine).idle();
}

async function shutdown(runtime: Runtime): Promise<void> {
  await runtime.sessions?.close();
  await runtime.engine.close();
  await runtime.db.store.close();
}

type ScenarioStep = Exclude<Step, { event: 'restart' | 'lose_next_ack' }>;
/** What a step came to: an engine outcome, a fenced event, a refused Cancel, or nothing to report. */
type StepResult = ProviderEventResult | { readonly outcome: 'cancel_refused' } | null;

function refusalOf(result: StepResult): string | null {
  if (result === null) return null;
  if (result.outcome === 'refused' || result.outcome === 'ignored') return result.reason;
  // A denied and a foreign pair print the same line (NOT-43).
  return result.outcome === 'cancel_refused' ? 'not_found' : null;
}

async function applyStep(runtime: Runtime, target: Target, step: ScenarioStep): Promise<StepResult> {
  const routeId = target.mode === 'dynamic' ? simulatedRouteId : `session:${target.session.sessionId}`;
  const route = await runtime.db.store.readRoute(routeId);
  if (route === null) throw new Error('the simulated route disappeared');
  if (step.event === 'action') {
    return runtime.engine.act({
      routeId,
      action: step.action,
      expectedGeneration: step.expectedGeneration,
      ...(step.expectedState === null ? {} : { expectedState: step.expectedState }),
    });
  }
  if (target.mode === 'interactive') return applySessionStep(runtime.sessions!, target.session, route, step);
  switch (step.event) {
    case 'failure':
      return runtime.engine.reportFailure({
        routeId,
        generation: route.generation,
        ...invocationOf(route),
        evidence: step.evidence,
        replay: replayOf(route, step.progress),
        promptOpen: step.promptOpen,
      });
    case 'success':
      return runtime.engine.reportSuccess({ routeId, generation: route.generation, ...invocationOf(route) });
    default:
      throw new Error(`${step.event} is a step of an interactive scenario`);
  }
}

async function applySessionStep(
  sessions: InteractiveSessions,
  session: SessionRef,
  route: Route,
  step: Exclude<ScenarioStep, { event: 'action' }>,
): Promise<StepResult> {
  switch (step.event) {
    case 'failure':
      return sessions.reportFailure(session, {
        ...invocationOf(route),
        evidence: step.evidence,
        replay: replayOf(route, step.progress),
        promptOpen: step.promptOpen,
      });
    case 'late_failure':
      // A late provider event of a retired loop carries no complete execution identity.
      return sessions.reportFailure(session, {
        evidence: step.evidence,
        replay: replayOf(route, step.progress),
      });
    case 'success':
      return sessions.reportSuccess(session, route.dispatch?.intentId);
    case 'cancel': {
      const result = await sessions.cancel(...cancelCaller(step.by, session));
      return result.outcome === 'refused' ? { outcome: 'cancel_refused' } : null;
    }
    case 'stop':
      await sessions.stop(session);
      return null;
  }
}

/** The principal and pair a Cancel names: the owner; another principal; the owner naming another task. */
function cancelCaller(by: CancelCaller, session: SessionRef): [string, SessionRef] {
  if (by === 'denied') return ['someone-else', session];
  if (by === 'foreign') return [owner, { ...session, taskId: `${session.taskId}-other` }];
  return [owner, session];
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
