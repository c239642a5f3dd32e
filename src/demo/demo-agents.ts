import type { Engine } from '../engine/index.js';
import type { DemoAttempt } from './demo-dispatcher.js';
import { demoFaults } from './demo-faults.js';
import type { DemoOutcome } from './demo-script.js';
import { taskOf, type DemoSession } from './demo-session.js';
import type { DemoTimers } from './demo-timers.js';

/** The identity an attempt reports with: the generation and intent id the engine gave it. */
export interface AttemptIdentity {
  readonly routeId: string;
  readonly generation: number;
  readonly invocationId: string;
}

/**
 * The simulated agents: each attempt starts after a short delay (a successor's agent takes longer: a cold start,
 * which is also what keeps `switching` on screen), works for a second or two, and reports what its session's
 * provider did, through the engine's public reports, exactly as an orchestrator would.
 */
export class DemoAgents {
  constructor(
    private readonly engine: Engine,
    private readonly timers: DemoTimers,
    private readonly sessions: readonly DemoSession[],
  ) {}

  /** An attempt the engine dispatched: accept it, then run it. */
  onDispatch(attempt: DemoAttempt): void {
    const task = taskOf(attempt.payload);
    const session = task === null ? undefined : this.sessions[task.session];
    const { intent } = attempt;
    const identity = { routeId: intent.routeId, generation: intent.generation, invocationId: intent.id };
    const acceptAfterMs =
      session === undefined
        ? 200
        : intent.kind === 'successor'
          ? session.random.between(1500, 2500)
          : session.random.between(200, 600);
    this.timers.after(acceptAfterMs, () => {
      attempt.accept();
      // A route the fleet has no session for (a larger fleet ran on this database before) just finishes its turn.
      this.run(identity, session?.script.next() ?? 'success', session);
    });
  }

  /** A prompt the fleet sent itself (`beginPrompt`): already delivered, so it only runs. */
  onPrompt(identity: AttemptIdentity, session: DemoSession): void {
    this.run(identity, session.script.next(), session);
  }

  private run(identity: AttemptIdentity, outcome: DemoOutcome, session: DemoSession | undefined): void {
    const workMs = session === undefined ? 500 : session.random.between(1000, 2500);
    this.timers.after(workMs, () => this.report(identity, outcome));
  }

  private async report(identity: AttemptIdentity, outcome: DemoOutcome): Promise<void> {
    if (outcome === 'success') {
      await this.engine.reportSuccess(identity);
      return;
    }
    const fault = demoFaults[outcome];
    await this.engine.reportFailure({
      ...identity,
      evidence: {
        ...fault.evidence,
        invocation_id: identity.invocationId,
        prompt_generation: identity.generation,
      },
      progress: fault.progress,
    });
  }
}
