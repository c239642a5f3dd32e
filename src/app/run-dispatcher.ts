import type { Dispatcher } from '../engine/dispatcher.js';
import type { Engine } from '../engine/engine.js';
import { EngineInputError } from '../engine/engine-errors.js';
import { ReplayRecorder } from '../engine/replay-recorder.js';
import {
  evidenceOfError,
  type DispatchIntent,
  type EvidenceEnvelope,
  type JsonValue,
  type ReplayEvent,
  type ReplayKey,
  type ReplayProgress,
} from '../core/index.js';

/** One attempt Recourse asks the caller to run. */
export interface RunAttempt {
  /** The route, generation, candidate to run on, kind (`initial`, `retry`, ...) and id of the attempt. */
  readonly intent: DispatchIntent;
  /** The route's caller payload, as given to `startRoute`: what to send (the prompt, say). */
  readonly payload: JsonValue | null;
  /**
   * Records what the agent does while it runs (output, thoughts, tool calls, a partial result): the safety gate
   * decides on it whether the attempt may be repeated automatically. Record every such event you observe; an
   * attempt that recorded nothing is taken to have produced nothing.
   */
  record(event: ReplayEvent): void;
}

/**
 * How an attempt ended. Return `{status: 'success'}` (or nothing) when the turn succeeded; return a failure, or
 * throw, when it failed: a thrown error becomes its evidence (`evidenceOfError`). `progress` states what the
 * attempt did before failing, when that is easier than recording events.
 */
export type RunResult =
  | { readonly status: 'success' }
  | { readonly status: 'failure'; readonly evidence: EvidenceEnvelope; readonly progress?: ReplayProgress };

/** Runs one attempt to its end: the caller's agent, model call or workflow step. */
export type RunAttemptFunction = (attempt: RunAttempt) => Promise<RunResult | void> | RunResult | void;

/**
 * A Dispatcher built from a plain `run` function (`openRecourse({ run })`). An attempt counts as **accepted** as
 * soon as `run` has been called with it: it is then in the caller's own process, so delivery is certain; if the
 * process dies before `run` finishes, the next start reports the attempt orphaned. When `run` settles, its outcome
 * is reported to the engine with the attempt's identity and replay evidence: a success, or a failure with its
 * evidence (what `run` returned, or what it threw).
 */
export function runDispatcher(
  run: RunAttemptFunction,
  engineOf: () => Engine,
  onError: (error: unknown) => void,
): Dispatcher {
  const recorder = new ReplayRecorder();
  // The caller's error sink must not take the process down from inside a promise chain.
  const tell = (error: unknown) => {
    try {
      onError(error);
    } catch {
      // Nowhere left to report to.
    }
  };
  return {
    dispatch(intent, payload) {
      const key: ReplayKey = {
        sessionId: intent.routeId,
        executionId: intent.id,
        promptGeneration: intent.generation,
      };
      recorder.begin(key);
      const attempt: RunAttempt = { intent, payload, record: (event) => void recorder.record(key, event) };
      // Started, not awaited: acceptance is immediate, the outcome is reported when the run ends.
      void Promise.resolve()
        .then(() => run(attempt))
        .then(
          (result) => report(engineOf(), intent, key, recorder, checkedResult(result)),
          (error: unknown) =>
            report(engineOf(), intent, key, recorder, {
              status: 'failure',
              evidence: evidenceOfError(error),
            }),
        )
        .catch(tell)
        .finally(() => recorder.end(key));
      return Promise.resolve();
    },
  };
}

/**
 * What `run` settled with, as a result: nothing is a success; anything that is not a result is a failure whose
 * evidence says so (it classifies as nothing a policy retries: a person looks at it).
 */
function checkedResult(result: unknown): RunResult {
  if (result === undefined) return { status: 'success' };
  try {
    if (typeof result === 'object' && result !== null) {
      const r = result as { status?: unknown; evidence?: unknown; progress?: unknown };
      if (r.status === 'success') return { status: 'success' };
      if (r.status === 'failure' && typeof r.evidence === 'object' && r.evidence !== null) {
        return result as RunResult;
      }
    }
  } catch {
    // A result whose fields cannot be read is as good as none.
  }
  return invalidRun(
    'run settled with something that is not a result ({status: "success"} or {status: "failure", evidence})',
  );
}

function invalidRun(message: string): RunResult {
  return { status: 'failure', evidence: invalidRunEvidence(message) };
}

function invalidRunEvidence(message: string): EvidenceEnvelope {
  return { kind: 'sdk_exception', name: 'InvalidRunResult', message };
}

async function report(
  engine: Engine,
  intent: DispatchIntent,
  key: ReplayKey,
  recorder: ReplayRecorder,
  result: RunResult,
): Promise<void> {
  const identity = { routeId: intent.routeId, generation: intent.generation, invocationId: intent.id };
  if (result.status === 'success') {
    await engine.reportSuccess(identity);
    return;
  }
  // The helper knows whose evidence this is: the attempt it ran. Identity fields in it could only contradict that.
  const failure = (evidence: EvidenceEnvelope, progress: ReplayProgress | undefined) =>
    engine.reportFailure({
      ...identity,
      evidence: { ...evidence, invocation_id: intent.id, prompt_generation: intent.generation },
      ...(progress === undefined ? { replay: recorder.snapshot(key) } : { progress }),
    });
  let outcome;
  try {
    outcome = await failure(result.evidence, result.progress);
  } catch (error) {
    if (!(error instanceof EngineInputError)) throw error;
    // Evidence or progress that does not validate: the attempt still ended, and a person must look at it.
    const fields = error.issues.map((i) => i.path || '/').join(', ');
    await failure(invalidRunEvidence(`run reported a failure that does not validate (${fields})`), undefined);
    return;
  }
  if (outcome.outcome === 'refused' && outcome.reason === 'stale_evidence') {
    // Evidence that cannot fail this attempt (a cancel or shutdown phase, an unknown phase): the attempt ended all
    // the same, so the route must not wait for it forever.
    await failure(
      invalidRunEvidence(`run reported evidence that cannot fail its attempt: ${outcome.detail}`),
      undefined,
    );
  }
}
