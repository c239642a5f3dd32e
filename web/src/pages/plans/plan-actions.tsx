import { useRef, useState } from 'react';
import { api, ApiError } from '../../api.js';
import { pathOf } from '../../router.js';
import { useAnnounce } from '../../ui/announcer.js';
import { ConfirmDialog } from '../../ui/confirm.js';
import { refocusIfLost } from '../../ui/refocus.js';
import type { Plan } from '../../../../src/core/plan/plan.js';
import { applyPlanAction, planActions, type PlanAction } from '../../../../src/core/plan/plan-transitions.js';
import { planStateWords, refusalWords } from './plan-words.js';
import type { PlanDoc } from './plan-types.js';

const labels: Readonly<Record<PlanAction, string>> = {
  retry: 'Retry the phase',
  prompt: 'Resume with guidance',
  correct: 'Correct and run again',
  revert_strategize: 'Revert to strategize',
  cancel: 'Cancel the plan',
};

/** The wire plan as the core's value, so the core's own rules say which actions its state allows. */
function corePlan(plan: PlanDoc): Plan {
  return {
    id: plan.id,
    phase: plan.phase,
    state: plan.state,
    recovery: {
      autoRetryThreshold: plan.recovery.auto_retry_threshold,
      maxRetries: plan.recovery.max_retries,
      subplan: plan.recovery.subplan,
    },
    errorDetails: {},
    retrySince: 0,
    revision: plan.revision,
    createdAtMs: Date.parse(plan.created_at),
    updatedAtMs: Date.parse(plan.updated_at),
  };
}

/** Each action the plan's state allows now, with what it would do (from `applyPlanAction`, the service's rule). */
function allowedActions(plan: PlanDoc): { action: PlanAction; effect: string }[] {
  const core = corePlan(plan);
  return planActions.flatMap((action) => {
    const next = applyPlanAction(core, action, 0, core.updatedAtMs);
    if (!next.ok) return [];
    const effect =
      next.plan.state === 'cancelled'
        ? 'Ends the plan for good; it cannot be resumed.'
        : next.plan.phase !== plan.phase
          ? `Goes back to the ${next.plan.phase} phase and runs it, with a fresh retry budget.`
          : `Runs the ${next.plan.phase} phase again, with a fresh retry budget.`;
    return [{ action, effect }];
  });
}

type Sent = { readonly state: 'idle' } | { readonly state: 'requested'; readonly action: PlanAction };

/**
 * A person's recovery actions on a plan (operators only; the service refuses a viewer anyway). The hints advise;
 * the person decides, so every action the state allows is offered. Cancel asks first: it cannot be undone. A
 * `409 refused` says why in words and the page reloads the plan as it now is.
 */
export function PlanActions(props: { readonly plan: PlanDoc; readonly onChanged: () => void }) {
  const announce = useAnnounce();
  const [sent, setSent] = useState<Sent>({ state: 'idle' });
  const [outcome, setOutcome] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const allowed = allowedActions(props.plan);
  const title = useRef<HTMLHeadingElement>(null);

  const send = async (action: PlanAction) => {
    setConfirming(false);
    setSent({ state: 'requested', action });
    setOutcome(null);
    try {
      const { body } = await api<{ plan: PlanDoc }>(
        'POST',
        `${pathOf('v1', 'plans', props.plan.id)}/actions`,
        // The revision on screen: a plan that moved since (another tab, the orchestrator) refuses, stale_revision.
        { action, revision: props.plan.revision },
      );
      const text = `${labels[action]}: done. ${planStateWords(body.plan.state, body.plan.phase)}.`;
      setOutcome({ kind: 'ok', text });
      announce(text);
    } catch (error) {
      const text =
        error instanceof ApiError && error.status === 409
          ? `Not done: ${refusalWords((error.body.error as { reason?: unknown } | undefined)?.reason)} The page shows the plan as it is now.`
          : error instanceof ApiError && error.status === 403
            ? 'Not done: your role may not act on plans.'
            : `Not done: ${error instanceof Error ? error.message : 'the request failed.'}`;
      setOutcome({ kind: 'error', text });
      announce(text);
    } finally {
      setSent({ state: 'idle' });
      props.onChanged();
      // The pressed button was disabled while the request travelled and may be gone in the plan's new state.
      refocusIfLost(() => title.current);
    }
  };

  return (
    <section aria-labelledby="plan-actions-title">
      <h2 id="plan-actions-title" ref={title} tabIndex={-1}>
        What you can do
      </h2>
      {allowed.length === 0 ? (
        <p>Nothing: the plan is {props.plan.state}.</p>
      ) : (
        <ul className="plan-actions">
          {allowed.map(({ action, effect }) => (
            <li key={action}>
              <button
                type="button"
                className={action === 'cancel' ? 'danger' : undefined}
                disabled={sent.state === 'requested'}
                aria-describedby={`plan-action-${action}`}
                onClick={() => (action === 'cancel' ? setConfirming(true) : void send(action))}
              >
                {sent.state === 'requested' && sent.action === action
                  ? `${labels[action]}: requested…`
                  : labels[action]}
              </button>
              <p id={`plan-action-${action}`} className="field-hint">
                {effect}
              </p>
            </li>
          ))}
        </ul>
      )}
      {outcome !== null && (
        <p className={`banner ${outcome.kind === 'ok' ? 'ok' : 'error'}`} data-testid="plan-action-outcome">
          {outcome.text}
        </p>
      )}
      <ConfirmDialog
        open={confirming}
        title="Cancel this plan?"
        confirmLabel="Cancel the plan"
        onConfirm={() => void send('cancel')}
        onCancel={() => setConfirming(false)}
      >
        <p>The plan ends for good and cannot be resumed. Its error history stays.</p>
      </ConfirmDialog>
    </section>
  );
}
