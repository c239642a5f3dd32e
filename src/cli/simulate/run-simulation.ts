import type { CancelCaller, Progress, Scenario, ScenarioRoute, Step } from './scenario.js';
import {
  circuitLine,
  dispatchLine,
  noticeLine,
  secondsFrom,
  stateLine,
  transcriptLine,
  type SimulationLine,
} from './simulation-lines.js';
import { openRecourse, type Recourse } from '../../app/index.js';
import {
  replayEvidenceOf,
  replayKeyOf,
  type DispatchIntent,
  type ReplayEvidence,
  type Route,
  type SessionRef,
} from '../../core/index.js';
import {
  advanceManualClock,
  ManualClock,
  type Dispatcher,
  type EngineEvent,
  type ProviderEventResult,
  type SessionEvent,
} from '../../engine/index.js';
import type { TranscriptClock } from '../../store/index.js';

/** A runaway guard: no sensible scenario fires this many timers. */
const maxTimerFirings = 100_000;
/** The principal that owns an interactive route's session; `denied` Cancels come from another one. */
const owner = 'owner';

/** Acknowledges every dispatch at once, except each route's next one after `lose_next_ack`: that answer never comes. */
class SimulatedDispatcher implements Dispatcher {
  readonly loseNext = new Set<string>();
  dispatch(intent: DispatchIntent): Promise<void> {
    if (!this.loseNext.delete(intent.routeId)) return Promise.resolve();
    return new Promise<void>(() => undefined);
  }
}

/**
 * Runs a scenario through the real engine and store (and, for interactive routes, the real notice orchestrator
 * and transcript) with a manual clock, writing one line per transition, dispatch, circuit change (with routes),
 * notice operation, refusal and restart. Each `restart` opens the same database file again.
 */
export async function runSimulation(
  scenario: Scenario,
  database: string,
  write: (line: SimulationLine) => void,
): Promise<void> {
  const { startMs } = scenario;
  const clock = new ManualClock(startMs);
  const dispatcher = new SimulatedDispatcher();
  const routesById = new Map(scenario.routes.map((r) => [r.id, r]));
  const routeOfSession = new Map(
    scenario.routes.flatMap((r) =>
      r.target.mode === 'interactive' ? [[r.target.session.sessionId, r.id]] : [],
    ),
  );
  // With routes, every line names its route; a scenario with one profile prints exactly as before.
  const named = (route: string | null, line: SimulationLine): SimulationLine => {
    if (!scenario.multiRoute || route === null) return line;
    const { at, ...rest } = line;
    return at === undefined ? { route, ...rest } : { at, route, ...rest };
  };
  let messages = 0;
  const transcriptClock: TranscriptClock = { now: () => clock.now(), newId: () => `m${++messages}` };
  const onEvent = (event: EngineEvent): void => {
    const line = engineLine(startMs, event, scenario.multiRoute);
    if (line !== null) write(named(line.route, line.line));
  };
  const onSessionEvent = (event: SessionEvent): void => {
    const at = secondsFrom(startMs, event.atMs);
    const route = routeOfSession.get(event.sessionId) ?? null;
    if (event.type === 'notice') write(named(route, noticeLine(startMs, event)));
    else if (event.type === 'cancel') write(named(route, { at, cancel: { active: event.active } }));
    else if (event.type === 'recovery_message') {
      write(
        named(route, {
          at,
          recovery_message: { message_id: event.message.id, actions: event.message.metadata.actions },
        }),
      );
    }
  };
  const boot = async (restart: boolean): Promise<Recourse> => {
    const recourse = await openRecourse({
      database,
      clock,
      dispatcher,
      transcriptClock,
      onEvent,
      onSessionEvent,
    });
    if (restart) {
      const report = recourse.report;
      write({
        at: secondsFrom(startMs, clock.now()),
        restart: {
          rearmed: report.rearmed.length,
          stopped: report.stopped.length,
          superseded: report.superseded,
          orphaned: report.orphaned.length,
        },
      });
    }
    await recourse.sessions.idle();
    return recourse;
  };
  let recourse = await boot(false);
  try {
    for (const route of scenario.routes) await begin(recourse, route);
    await recourse.sessions.idle();
    // One budget of firings for the whole run: a scenario that never settles stops with an error.
    let firings = 0;
    const advanceTo = async (targetMs: number | null): Promise<void> => {
      firings += await advanceManualClock(
        clock,
        { idle: () => recourse.sessions.idle() },
        targetMs,
        maxTimerFirings - firings,
      );
    };
    for (const step of scenario.steps) {
      await advanceTo(startMs + step.at * 1000);
      if (step.event === 'restart') {
        await recourse.close();
        recourse = await boot(true);
        continue;
      }
      if (step.event === 'lose_next_ack') {
        dispatcher.loseNext.add(step.route);
        continue;
      }
      const reason = refusalOf(await applyStep(recourse, routesById.get(step.route)!, step));
      if (reason !== null) {
        const action = step.event === 'action' ? step.action : step.event;
        write(named(step.route, { at: secondsFrom(startMs, clock.now()), refused: { action, reason } }));
      }
      await recourse.sessions.idle();
    }
    await advanceTo(scenario.until === null ? null : startMs + scenario.until * 1000);
    for (const route of scenario.routes) {
      if (route.target.mode !== 'interactive') continue;
      const messagesOf = await recourse.transcript.list(route.target.session);
      write(named(route.id, transcriptLine(startMs, messagesOf)));
    }
  } finally {
    await recourse.close();
  }
}

/** The line an engine event prints, and the route it is about (null: none printed). */
function engineLine(
  startMs: number,
  event: EngineEvent,
  circuits: boolean,
): { readonly route: string | null; readonly line: SimulationLine } | null {
  switch (event.type) {
    case 'transition':
      return { route: event.route.id, line: stateLine(startMs, event) };
    case 'dispatch':
      if (event.intent.kind === 'prompt') return null;
      return { route: event.intent.routeId, line: dispatchLine(startMs, event) };
    case 'circuit':
      return circuits ? { route: event.routeId, line: circuitLine(startMs, event) } : null;
    case 'error':
      return { route: null, line: { at: secondsFrom(startMs, event.atMs), error: event.message } };
    default:
      return null;
  }
}

async function begin(recourse: Recourse, route: ScenarioRoute): Promise<void> {
  const target = route.target;
  if (target.mode === 'dynamic') {
    await recourse.engine.saveProfile(target.profile);
    await recourse.engine.startRoute({
      routeId: route.id,
      profileId: target.profile.id,
      caller: route.caller,
    });
  } else {
    await recourse.sessions.open({
      ...target.session,
      profileId: target.profileId,
      owner,
      routeId: route.id,
    });
  }
}

type RouteStep = Exclude<Step, { event: 'restart' | 'lose_next_ack' }>;
/** What a step came to: an engine outcome, a fenced event, a refused Cancel, or nothing to report. */
type StepResult = ProviderEventResult | { readonly outcome: 'cancel_refused' } | null;

function refusalOf(result: StepResult): string | null {
  if (result === null) return null;
  if (result.outcome === 'refused' || result.outcome === 'ignored') return result.reason;
  // A denied and a foreign pair print the same line (NOT-43).
  return result.outcome === 'cancel_refused' ? 'not_found' : null;
}

async function applyStep(
  recourse: Recourse,
  scenarioRoute: ScenarioRoute,
  step: RouteStep,
): Promise<StepResult> {
  const routeId = scenarioRoute.id;
  const engine = recourse.engine;
  let route = await readRoute(recourse, routeId);
  if (step.event === 'action') {
    return engine.act({
      routeId,
      action: step.action,
      expectedGeneration: step.expectedGeneration,
      ...(step.expectedState === null ? {} : { expectedState: step.expectedState }),
    });
  }
  if (step.event === 'prompt') return engine.beginPrompt({ routeId });
  if ((step.event === 'failure' || step.event === 'success') && nextTurn(route)) {
    // A failure or success after a turn that already ended is the next turn's: the user's next prompt.
    route = (await engine.beginPrompt({ routeId })).route;
  }
  const target = scenarioRoute.target;
  if (target.mode === 'interactive') return applySessionStep(recourse, target.session, route, step);
  switch (step.event) {
    case 'failure':
      return engine.reportFailure({
        routeId,
        generation: route.generation,
        ...invocationOf(route),
        evidence: step.evidence,
        replay: replayOf(route, step.progress),
        promptOpen: step.promptOpen,
      });
    case 'success':
      return engine.reportSuccess({ routeId, generation: route.generation, ...invocationOf(route) });
    default:
      throw new Error(`${step.event} is a step of an interactive route`);
  }
}

async function applySessionStep(
  recourse: Recourse,
  session: SessionRef,
  route: Route,
  step: Exclude<RouteStep, { event: 'action' | 'prompt' }>,
): Promise<StepResult> {
  const sessions = recourse.sessions;
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

async function readRoute(recourse: Recourse, routeId: string): Promise<Route> {
  const route = await recourse.store.readRoute(routeId);
  if (route === null) throw new Error(`the simulated route ${routeId} disappeared`);
  return route;
}

/** An active route whose attempt already answered: a new report is about the user's next prompt. */
function nextTurn(route: Route): boolean {
  return route.state === 'active' && route.dispatch !== null && route.dispatch.finished;
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
  return replayEvidenceOf(replayKeyOf(route), {
    assistant_output: progress.assistantOutput,
    tool_activity: progress.toolActivity,
    thought: progress.thought,
    assistant_text: progress.assistantText,
  });
}
