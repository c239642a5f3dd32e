import type { RouteSnapshot } from '../core/index.js';
import type { Engine } from '../engine/index.js';
import { allRoutes } from './all-routes.js';
import type { DemoAgents } from './demo-agents.js';
import type { DemoLog } from './demo-log.js';
import { hasLaterCandidate } from './demo-profiles.js';
import { taskOf, taskPayload, taskRouteId, type DemoSession, type DemoTask } from './demo-session.js';
import type { DemoTimers } from './demo-timers.js';

export interface DemoWorkflowOptions {
  readonly engine: Engine;
  readonly timers: DemoTimers;
  readonly agents: DemoAgents;
  readonly sessions: readonly DemoSession[];
  readonly operatorDelayMs: number;
  /** When the fleet started: sessions start their first task one after another from here. */
  readonly startMs: number;
  readonly log: DemoLog;
  readonly onOperatorAction: () => void;
}

/** Prompts per task: the first starts the route, the others are `beginPrompt` on it. */
const turnsPerTask = 3;
/** Sessions start this far apart, so their stories do not all fire in the same second. */
const staggerMs = 400;
/** Finished tasks (and stopped ones nobody answered) older than this are purged. */
const keepFinishedMs = 60_000;
const purgeEveryMs = 30_000;

/**
 * What the people around the agents do, decided by looking at the routes (so it works the same after a restart,
 * with nothing remembered): start a task, send the next prompt of a finished turn, answer a route that stopped for
 * a person (the scripted operator), take over an attempt a restart left orphaned, and purge old finished tasks.
 */
export class DemoWorkflow {
  /** Sessions with a call of ours in flight: never two at once for one session. */
  private readonly busy = new Set<number>();
  /** Prompts begun per route in this process; a route from before a restart counts as finished. */
  private readonly turns = new Map<string, number>();
  private readonly nextTask = new Map<number, number>();
  private sweeping = false;
  private stopped = false;
  private lastPurgeMs: number;

  constructor(private readonly o: DemoWorkflowOptions) {
    this.lastPurgeMs = o.startMs;
  }

  stop(): void {
    this.stopped = true;
  }

  /** One look at every route; each session gets at most one call. A sweep still running skips the next. */
  async sweep(): Promise<void> {
    if (this.sweeping || this.stopped) return;
    this.sweeping = true;
    try {
      const routes = await allRoutes(this.o.engine);
      const latest = this.latestRoutes(routes);
      const nowMs = this.o.timers.now();
      for (const session of this.o.sessions) {
        if (this.stopped) return;
        if (!this.busy.has(session.index)) this.tend(session, latest.get(session.index), nowMs);
      }
      if (nowMs - this.lastPurgeMs >= purgeEveryMs) {
        this.lastPurgeMs = nowMs;
        const purged = await this.purgeOwn(routes, nowMs - keepFinishedMs);
        if (purged > 0) this.o.log({ level: 'info', message: `purged ${purged} finished demo routes` });
      }
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * Deletes the fleet's own tasks that wait for nothing and last changed before `beforeMs`, and nothing else: the
   * database may hold routes of another caller (`serve --demo --db` on a file in use, a PostgreSQL URL from the
   * environment), and `purgeRoutes` would delete theirs too. The engine re-checks that each waits for nothing.
   */
  private async purgeOwn(routes: readonly RouteSnapshot[], beforeMs: number): Promise<number> {
    const own = routes.filter((r) => {
      const task = taskOf(r.payload);
      return (
        task !== null &&
        r.id === taskRouteId(task) &&
        r.updatedAtMs < beforeMs &&
        (r.outcome === 'succeeded' || r.outcome === 'needs_action')
      );
    });
    const gone = await Promise.all(own.map((r) => this.o.engine.purgeRoute(r.id)));
    return gone.filter(Boolean).length;
  }

  /** Each session's newest task route, and the task numbers seen so far. */
  private latestRoutes(routes: readonly RouteSnapshot[]): Map<number, RouteSnapshot> {
    const latest = new Map<number, { task: number; route: RouteSnapshot }>();
    for (const route of routes) {
      const task = taskOf(route.payload);
      if (task === null || task.session >= this.o.sessions.length) continue;
      const seen = latest.get(task.session);
      if (seen === undefined || task.task > seen.task) latest.set(task.session, { task: task.task, route });
      this.nextTask.set(task.session, Math.max(this.nextTask.get(task.session) ?? 1, task.task + 1));
    }
    return new Map([...latest].map(([session, { route }]) => [session, route]));
  }

  private tend(session: DemoSession, route: RouteSnapshot | undefined, nowMs: number): void {
    if (route === undefined) {
      if (nowMs >= this.o.startMs + session.index * staggerMs)
        this.call(session, () => this.startTask(session));
      return;
    }
    const idleMs = nowMs - route.updatedAtMs;
    switch (route.outcome) {
      case 'succeeded':
        if (idleMs < session.thinkMs) return;
        if ((this.turns.get(route.id) ?? turnsPerTask) < turnsPerTask)
          this.call(session, () => this.nextPrompt(session, route));
        else this.call(session, () => this.startTask(session));
        return;
      case 'needs_action':
        if (idleMs >= this.o.operatorDelayMs) this.call(session, () => this.operate(route));
        return;
      case 'running':
        // Accepted before a restart and never answered: nobody runs it now, so the operator takes it over.
        if (route.dispatch?.orphaned === true && !route.dispatch.finished)
          this.call(session, () => this.operate(route));
        return;
      case 'waiting':
        return;
    }
  }

  private call(session: DemoSession, work: () => Promise<void>): void {
    this.busy.add(session.index);
    this.o.timers.run(() => work().finally(() => this.busy.delete(session.index)));
  }

  private async startTask(session: DemoSession): Promise<void> {
    const task: DemoTask = { session: session.index, task: this.nextTask.get(session.index) ?? 1 };
    this.nextTask.set(session.index, task.task + 1);
    const routeId = taskRouteId(task);
    this.turns.set(routeId, 1);
    await this.o.engine.startRoute({
      routeId,
      profileId: session.profileId,
      caller: 'task',
      payload: taskPayload(task, 0),
    });
  }

  private async nextPrompt(session: DemoSession, route: RouteSnapshot): Promise<void> {
    const turn = this.turns.get(route.id) ?? turnsPerTask;
    const result = await this.o.engine.beginPrompt({
      routeId: route.id,
      expectedGeneration: route.generation,
    });
    const dispatch = result.route.dispatch;
    if (result.outcome !== 'changed' || dispatch === null) return;
    this.turns.set(route.id, turn + 1);
    this.o.agents.onPrompt(
      { routeId: route.id, generation: result.route.generation, invocationId: dispatch.intentId },
      session,
    );
  }

  /**
   * The scripted operator. A failure after tool activity is retried (a person checked the workspace); anything else
   * moves on to the next candidate while there is one, and is retried on the last.
   */
  private async operate(route: RouteSnapshot): Promise<void> {
    const unsafe = route.state === 'action_required' && route.reason === 'unsafe';
    const action =
      route.state === 'action_required' && !unsafe && hasLaterCandidate(route.profileId, route.candidate)
        ? 'skip_now'
        : 'retry_now';
    const result = await this.o.engine.act({
      routeId: route.id,
      action,
      expectedGeneration: route.generation,
      expectedState: route.state,
    });
    if (result.outcome !== 'changed') return;
    this.o.onOperatorAction();
    const why = route.state === 'action_required' ? route.reason : 'orphaned attempt';
    this.o.log({ level: 'info', message: `operator: ${action} (${why})`, routeId: route.id });
  }
}
