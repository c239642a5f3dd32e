import type { Plan, PlanErrorRecord, PlanPhase, PlanRefusalReason } from '../core/index.js';
import type { PlanErrorReport } from './plan-input.js';
import type { PlanLifecycle } from './plan-lifecycle.js';
import type { PlanService } from './plan-service.js';

/** The work of one phase (the seed's stub actors over a tool runner): resolves on success, throws on failure. */
export interface PlanActor {
  /** Recorded as the error's `error_actor`. */
  readonly name: string;
  run(planId: string): Promise<void>;
}

export interface PlanExecutorOptions {
  readonly lifecycle: PlanLifecycle;
  readonly actors: { readonly strategize: PlanActor; readonly execute: PlanActor };
  /** Records errors and drives automatic retries; without it a failure is one attempt, then ERRORED (PLN-34). */
  readonly errorRecovery?: PlanService;
}

/** How a phase run ended: the plan as stored afterwards, and how many times the actor ran. */
export type PhaseRun =
  | { readonly status: 'completed'; readonly plan: Plan; readonly attempts: number }
  | {
      readonly status: 'errored';
      readonly plan: Plan;
      readonly attempts: number;
      /** The last error recorded, or null without an error-recovery service. */
      readonly record: PlanErrorRecord | null;
    }
  /** The plan was not running in this phase: the actor did not run; nothing changed. */
  | {
      readonly status: 'refused';
      readonly plan: Plan;
      readonly reason: PlanRefusalReason;
      readonly message: string;
    };

/**
 * The plan executor (seed 004, "Execute Phase Integration"): `runExecute` wraps the execute actor in the retry
 * loop (run; on failure record the error; run again while the decision is an automatic retry; otherwise the plan
 * is ERRORED), `runStrategize` records a failure but never retries it (strategize is read-only and its failures
 * deterministic). Phase transitions go through the lifecycle service.
 */
export class PlanExecutor {
  constructor(private readonly options: PlanExecutorOptions) {}

  runStrategize(planId: string): Promise<PhaseRun> {
    return this.run(planId, 'strategize', this.options.actors.strategize, false);
  }

  runExecute(planId: string): Promise<PhaseRun> {
    return this.run(planId, 'execute', this.options.actors.execute, true);
  }

  private async run(planId: string, phase: PlanPhase, actor: PlanActor, retries: boolean): Promise<PhaseRun> {
    const { lifecycle, errorRecovery } = this.options;
    const before = await lifecycle.read(planId);
    if (before.state !== 'running' || before.phase !== phase) {
      return {
        status: 'refused',
        plan: before,
        reason:
          before.state === 'running' ? 'wrong_phase' : before.state === 'errored' ? 'errored' : 'finished',
        message: `plan ${before.id} is ${before.state} in ${before.phase}: ${phase} does not run`,
      };
    }
    for (let attempts = 1; ; attempts++) {
      let failure: unknown;
      try {
        await actor.run(planId);
      } catch (error) {
        // `throw undefined` is a failure too: undefined below means the actor succeeded.
        failure = error ?? new Error('the actor failed without a reason');
      }
      if (failure === undefined) {
        const done = await lifecycle.completePhase(planId, phase);
        return done.status === 'refused' ? done : { status: 'completed', plan: done.plan, attempts };
      }
      if (errorRecovery === undefined) {
        const failed = await lifecycle.fail(planId, phase);
        return failed.status === 'refused'
          ? failed
          : { status: 'errored', plan: failed.plan, attempts, record: null };
      }
      const answer = await errorRecovery.recordError(planId, reportOf(phase, actor.name, failure));
      if (answer.status === 'refused') return { ...answer, plan: await lifecycle.read(planId) };
      // recordError made the plan ERRORED unless the decision is an automatic retry (the seed's fail_execute).
      if (retries && answer.decision.should_retry) continue;
      return { status: 'errored', plan: await lifecycle.read(planId), attempts, record: answer.record };
    }
  }
}

/** What an actor threw, as an error report: type, message and stack, bounded (records keep excerpts anyway). */
function reportOf(phase: PlanPhase, actor: string, failure: unknown): PlanErrorReport {
  const error = failure instanceof Error ? failure : null;
  const message = (error?.message ?? String(failure)).slice(0, 16_384);
  const toolCall = (failure as { toolCall?: unknown } | null)?.toolCall;
  return {
    phase,
    message: message.trim() === '' ? `${error?.name ?? 'Error'} without a message` : message,
    exception_type: error?.name.slice(0, 256) ?? null,
    stack: error?.stack?.slice(-16_384) ?? null,
    actor: actor.slice(0, 256),
    tool_call: typeof toolCall === 'string' ? toolCall.slice(0, 256) : null,
  };
}
