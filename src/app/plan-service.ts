import {
  createErrorRecoveryPolicy,
  errorDetailsOf,
  failPhase,
  mergeErrorDetails,
  newPlan,
  planDecisionOf,
  type Plan,
  type PlanRecoveryConfig,
  planRetryLimits,
  recordPlanError,
  recourseCommandTemplates,
  retriesAttempted,
  summarizeHistory,
  type CommandTemplates,
  type ErrorRecoveryPolicy,
  type FieldIssue,
  type PlanDecision,
  type PlanErrorRecord,
  type PlanErrorSummary,
  type PlanRefusalReason,
} from '../core/index.js';
import { EngineInputError } from '../engine/engine-errors.js';
import { renderPlanErrorBlock } from '../cli/plan-error-block.js';
import { planErrorFormats, renderPlanErrors, type PlanErrorFormat } from '../cli/plan-errors-view.js';
import { Listeners } from '../support/listeners.js';
import { checkActionRequest, checkCompleteRequest, checkErrorReport, configFields } from './plan-input.js';
import { planJson, type PlanErrorsDocument, type PlanJson } from './plan-json.js';
import type { PlanChangeCause, PlanLifecycle } from './plan-lifecycle.js';

/**
 * What the plan service tells its observers (the server forwards them over SSE), after the commit: a recorded
 * error with its decision, or any other change of a plan (`plan.changed`, with what caused it).
 */
export type PlanEvent =
  | {
      readonly type: 'plan.error.recorded';
      readonly plan: PlanJson;
      readonly record: PlanErrorRecord;
      readonly decision: PlanDecision;
    }
  | {
      readonly type: 'plan.changed';
      readonly plan: PlanJson;
      readonly cause: Exclude<PlanChangeCause, 'error_recorded'>;
    };

/** A refused request: nothing changed; `reason` is stable, `message` says why in words. */
export interface PlanRefusal {
  readonly status: 'refused';
  readonly plan: PlanJson;
  readonly reason: PlanRefusalReason;
  readonly message: string;
}

export type RecordErrorAnswer =
  | {
      readonly status: 'recorded';
      readonly plan: PlanJson;
      readonly record: PlanErrorRecord;
      readonly decision: PlanDecision;
    }
  | PlanRefusal;

export type PlanActionAnswer = { readonly status: 'changed'; readonly plan: PlanJson } | PlanRefusal;

/** `PUT /v1/plans/{id}`: the plan created or its settings changed, or a refusal (finished, stale revision). */
export type PlanConfigureAnswer =
  { readonly status: 'created' | 'changed' | 'unchanged'; readonly plan: PlanJson } | PlanRefusal;

export interface PlanServiceOptions {
  readonly lifecycle: PlanLifecycle;
  /** The default threshold for plans configured without one: the automation profile's `modify_config` (0.0). */
  readonly autoRetryThreshold?: number;
  /** The default `max_retries` (3); a subplan's default is at most 5. */
  readonly maxRetries?: number;
  /** The commands hints show (Recourse's own by default). */
  readonly templates?: CommandTemplates;
}

/**
 * The plan error-recovery service (the seed's `ErrorRecoveryService`, PLN-40 to PLN-46): one method per HTTP
 * endpoint (`configure`, `recordError`, `errors`, `decision`, `act`) plus the seed's questions (`shouldRetry`,
 * `shouldEscalate`, `errorHistory`). Bad input throws `EngineInputError` (`invalid_input`, issues by JSON
 * pointer) and changes nothing; an unknown plan throws `PlanNotFoundError` (`not_found`); a request the plan's
 * state does not allow is a returned refusal. History is persisted in full (PLN-50 decision).
 */
export class PlanService {
  private readonly listeners = new Listeners<PlanEvent>();
  private readonly defaults: ErrorRecoveryPolicy;
  private readonly templates: CommandTemplates;
  readonly lifecycle: PlanLifecycle;

  constructor(options: PlanServiceOptions) {
    const policy = createErrorRecoveryPolicy({
      autoRetryThreshold: options.autoRetryThreshold,
      maxRetries: options.maxRetries,
    });
    if (!policy.ok) throw new EngineInputError(policy.issues);
    this.defaults = policy.value;
    this.lifecycle = options.lifecycle;
    this.templates = options.templates ?? recourseCommandTemplates;
    // Every write of a plan goes through the lifecycle, the executor's too: its changes become events here. A
    // recorded error has its own, richer event (below).
    this.lifecycle.onChange(({ plan, cause }) => {
      if (cause !== 'error_recorded')
        this.listeners.emit({ type: 'plan.changed', plan: planJson(plan), cause });
    });
  }

  /** Observes plan events; returns the unsubscribe function. A listener that throws is skipped over. */
  subscribe(listener: (event: PlanEvent) => void): () => void {
    return this.listeners.add(listener);
  }

  /**
   * `PUT /v1/plans/{id}` `{auto_retry_threshold?, max_retries?, subplan?}`: creates the plan (at strategize,
   * running) or changes its recovery config. Only the fields given change: an omitted field keeps the plan's
   * value (the service's default for a new plan), and the merged config is checked as a whole.
   * `expectedRevision` fences the write (0: only create; N: only while the plan is at revision N); a stale fence
   * or a finished plan is a refusal, nothing changed.
   */
  async configure(
    planId: string,
    body: unknown,
    options: { readonly expectedRevision?: number } = {},
  ): Promise<PlanConfigureAnswer> {
    const issues: FieldIssue[] = [];
    const raw = configFields(body, issues);
    if (issues.length > 0) {
      // Every problem at once: the values given are checked too, each on its own.
      const values = createErrorRecoveryPolicy({
        autoRetryThreshold: raw.autoRetryThreshold ?? 0,
        maxRetries: raw.maxRetries ?? 0,
        subplan: raw.subplan ?? false,
      });
      throw new EngineInputError(values.ok ? issues : [...issues, ...values.issues]);
    }
    const outcome = await this.lifecycle.configure(
      planId,
      (current) => this.mergedConfig(raw, current),
      (recovery, now) => newPlan(planId, recovery, now),
      options.expectedRevision,
    );
    return { ...outcome, plan: planJson(outcome.plan) };
  }

  /** The given fields over the plan's own config (or the defaults), checked as a whole. */
  private mergedConfig(raw: ReturnType<typeof configFields>, current: Plan | null): PlanRecoveryConfig {
    const subplan = raw.subplan ?? current?.recovery.subplan ?? false;
    const limit = subplan ? planRetryLimits.subplanMaxRetries : planRetryLimits.maxRetries;
    const policy = createErrorRecoveryPolicy({
      autoRetryThreshold:
        raw.autoRetryThreshold ?? current?.recovery.autoRetryThreshold ?? this.defaults.autoRetryThreshold,
      maxRetries: raw.maxRetries ?? current?.recovery.maxRetries ?? Math.min(this.defaults.maxRetries, limit),
      subplan,
    });
    if (!policy.ok) throw new EngineInputError(policy.issues);
    return { ...policy.value, subplan };
  }

  /**
   * `POST /v1/plans/{id}/complete` `{phase, revision?}`: the orchestrator reports that `phase` succeeded; the plan
   * moves to the next phase (apply completes it) and its retry budget restarts. Refused (nothing changed) unless
   * the plan is running in that phase and, with `revision`, still at it: a late or repeated report moves nothing.
   */
  async complete(planId: string, body: unknown): Promise<PlanActionAnswer> {
    const request = checkCompleteRequest(body);
    const outcome = await this.lifecycle.completePhase(planId, request.phase, request.revision);
    return { ...outcome, plan: planJson(outcome.plan) };
  }

  /**
   * `POST /v1/plans/{id}/errors` (the seed's `record_error`): classifies and appends the error, merges its
   * metadata into `error_details` and, unless the decision is an automatic retry, makes the plan ERRORED, all in
   * one commit. Refused for a plan that is not running, or in another phase.
   */
  async recordError(planId: string, body: unknown): Promise<RecordErrorAnswer> {
    const report = checkErrorReport(body);
    // What the transaction recorded, for the answer and the event after the commit.
    const recorded: { record?: PlanErrorRecord; history?: readonly PlanErrorRecord[] } = {};
    const now = this.lifecycle.now();
    const outcome = await this.lifecycle.change(
      planId,
      async (plan, errors, tx) => {
        // failPhase refuses exactly what a report may not reach (a finished or errored plan, another phase).
        const failed = failPhase(plan, report.phase, now);
        if (!failed.ok) return failed;
        const record = recordPlanError(
          {
            planId: plan.id,
            phase: report.phase,
            message: report.message,
            exceptionType: report.exception_type,
            stack: report.stack,
            actor: report.actor,
            toolCall: report.tool_call,
            retryCount: retriesAttempted(
              { plan_id: plan.id, records: errors },
              report.phase,
              plan.retrySince,
            ),
          },
          plan.recovery,
          now,
          this.templates,
        );
        await tx.appendPlanError(record);
        recorded.record = record;
        recorded.history = [...errors, record];
        // Persist the latest metadata with the plan (PLN-51): it is what survives when only the plan is read. One
        // write, one revision: the metadata and, unless retried, the ERRORED state together.
        const detailed = mergeErrorDetails(plan, errorDetailsOf(record), now);
        return { ok: true, plan: record.verdict === 'retry' ? detailed : { ...detailed, state: 'errored' } };
      },
      'error_recorded',
    );
    if (outcome.status === 'refused') return { ...outcome, plan: planJson(outcome.plan) };
    // A changed plan means the transaction recorded the error.
    const answer = {
      status: 'recorded' as const,
      plan: planJson(outcome.plan),
      record: recorded.record!,
      decision: planDecisionOf({ plan_id: outcome.plan.id, records: recorded.history! }),
    };
    this.listeners.emit({ type: 'plan.error.recorded', ...answer });
    return answer;
  }

  /** `GET /v1/plans/{id}/errors`: the plan, its history oldest first, a summary and the decision. */
  async errors(planId: string): Promise<PlanErrorsDocument> {
    const plan = await this.lifecycle.read(planId);
    const history = { plan_id: plan.id, records: await this.lifecycle.store.listPlanErrors(plan.id) };
    const { total_errors, by_category, retry_counts } = summarizeHistory(history);
    return {
      plan: planJson(plan),
      errors: history.records,
      summary: { total_errors, by_category, retry_counts },
      decision: planDecisionOf(history),
    };
  }

  /** `GET /v1/plans/{id}/decision`: retry or escalate the latest error (both false with none recorded). */
  async decision(planId: string): Promise<PlanDecision> {
    return (await this.errors(planId)).decision;
  }

  /**
   * `POST /v1/plans/{id}/actions` `{action, revision?}`: a person's recovery action (docs/plan-errors.md, the
   * table), refused when the plan is no longer at `revision`.
   */
  async act(planId: string, body: unknown): Promise<PlanActionAnswer> {
    const { action, revision } = checkActionRequest(body);
    const outcome = await this.lifecycle.act(planId, action, revision);
    return { ...outcome, plan: planJson(outcome.plan) };
  }

  /** The seed's `should_retry(plan_id)`: the latest error is retried automatically. */
  async shouldRetry(planId: string): Promise<boolean> {
    return (await this.decision(planId)).should_retry;
  }

  /** The seed's `should_escalate(plan_id)`: an error is recorded and is not retried. */
  async shouldEscalate(planId: string): Promise<boolean> {
    return (await this.decision(planId)).should_escalate;
  }

  /** The seed's `get_error_history(plan_id)`: total count, category breakdown, retry counts, records in order. */
  async errorHistory(planId: string): Promise<PlanErrorSummary> {
    const plan = await this.lifecycle.read(planId);
    return summarizeHistory({
      plan_id: plan.id,
      records: await this.lifecycle.store.listPlanErrors(plan.id),
    });
  }

  /**
   * The seed's `format_recovery_hints_for_cli(plan_id)`: the recovery block of the latest error (`Error
   * [<category>]: ...`, CLI-09 to CLI-11), without colour; a one-line confirmation when none is recorded.
   */
  async formatRecoveryHintsForCli(planId: string): Promise<string> {
    const doc = await this.errors(planId);
    const latest = doc.errors.at(-1);
    return latest === undefined
      ? renderPlanErrors(doc, 'plain', { color: false })
      : renderPlanErrorBlock(latest, doc.decision, { color: false });
  }

  /**
   * The seed's `format_error_output(plan_id, fmt)`: `rich`, `json` or `plain` (PLN-46 decision), without colour;
   * any other format throws `EngineInputError` at `/format`.
   */
  async formatErrorOutput(planId: string, format: unknown): Promise<string> {
    if (!planErrorFormats.includes(format as PlanErrorFormat)) {
      throw new EngineInputError([
        { path: '/format', message: `format must be one of ${planErrorFormats.join(', ')}` },
      ]);
    }
    return renderPlanErrors(await this.errors(planId), format as PlanErrorFormat, { color: false });
  }
}
