import { candidatesOf, changed, refused, type Decision, type RouteWorld } from './decision.js';
import { attemptOf, delivered, staleness, summarize } from './failure-record.js';
import { interactiveRecoveryRules } from './interactive-retry.js';
import { runningAttempt, type Route, type RouteCommon } from './route.js';
import type { AttemptRecord, RouteEffect } from './route-effect.js';
import type { FailureFacts } from './route-event.js';
import {
  actionRequired,
  base,
  circuitEffects,
  finished,
  proveDelivery,
  replayKeyOf,
  retryNoticeWrite,
  stoppedNotices,
  successorActive,
  switchToNext,
  touched,
  withWrites,
} from './route-moves.js';
import { circuitsAfterFailure } from '../circuit/circuit.js';
import { descriptorsOf } from '../circuit/route-circuits.js';
import { classifyEvidenceDetailed } from '../classify/classify.js';
import type { Evidence } from '../evidence/evidence.js';
import { evidenceMessage } from '../evidence/evidence-message.js';
import { evaluateRules, type PolicyDecision } from '../policy/evaluate.js';
import type { PolicyDocument } from '../policy/policy-document.js';
import { rulesOfPolicy, type RecoveryRules } from '../policy/recovery-rules.js';
import { replayEvidenceOf } from '../safety/replay-progress.js';
import { assessReplaySafety } from '../safety/safety-gate.js';

/**
 * The evidence as the failure of the call the route's current candidate made, when it names no provider or agent
 * itself (a thrown \`fetch failed\` an embedding's \`run\` passed on as it was): the candidate's provider, else its
 * profile id as the agent. The classifier reads evidence of no named source more cautiously
 * (src/core/catalogue/model-call-anchor.ts); an attempt's own failure has a source. A report of another generation
 * is left as it came: which candidate ran it is not guessed.
 */
function asTheAttempts(report: FailureFacts, route: Route, world: RouteWorld): Evidence {
  const evidence = report.evidence;
  if (evidence.providerId !== null || evidence.agentId !== null || report.generation !== route.generation) {
    return evidence;
  }
  const candidate = candidatesOf(world).find((c) => c.profile_id === route.candidate);
  return candidate?.provider !== undefined
    ? { ...evidence, providerId: candidate.provider }
    : { ...evidence, agentId: route.candidate };
}

/**
 * A provider failure of the route's attempt, decided whole: classified, correlated to the attempt (EVD-03),
 * gated for replay safety, evaluated against the candidate's rules (the concrete-profile entry for interactive
 * routes), with the circuits it opens and the notices it implies.
 *
 * Refused, with the failure kept as history: a report or evidence that names another generation, attempt or
 * phase (`stale_*`, EVL-01), and a failure of an attempt that ran on after the route was cancelled or stopped
 * (`route_stopped`: it schedules nothing, NOT-41). Refused with nothing kept: the agent's prompt call is still
 * open (`prompt_open`, CUR-34), or no attempt of the route is running (`not_allowed`).
 */
export function decideFailure(route: Route, report: FailureFacts, world: RouteWorld): Decision {
  const { classification, timingOrigin } = classifyEvidenceDetailed(asTheAttempts(report, route, world), {
    now: world.nowMs,
  });
  const history = (r: RouteCommon, decision: string, extra: Partial<AttemptRecord> = {}): RouteEffect => ({
    kind: 'record_attempt',
    attempt: attemptOf(r, classification, timingOrigin, decision, world.nowMs, extra),
  });
  const stale = staleness(route, report);
  if (stale !== null) {
    // A report of another generation ran on a candidate this route no longer names: it is not guessed.
    const candidate = report.generation === route.generation ? route.candidate : '-';
    const row = history(route, `stale: ${stale.detail}`, { generation: report.generation, candidate });
    return refused(route, stale.reason, stale.detail, [row], classification);
  }
  const attempt = runningAttempt(route);
  if (report.promptOpen) {
    // Nothing is decided while the agent owns its retry, but its answer proves the attempt reached it.
    return refused(
      delivered(route, world.nowMs),
      'prompt_open',
      'the agent still owns its prompt call',
      proveDelivery(attempt),
      classification,
    );
  }
  if (route.state === 'action_required' && attempt !== null) {
    // The attempt answered: it is finished, so a later success or failure of it is stale.
    return refused(
      { ...route, dispatch: finished(attempt), revision: route.revision + 1, updatedAtMs: world.nowMs },
      'route_stopped',
      `the route was ${route.reason} while this attempt ran: nothing is scheduled`,
      [history(route, 'after_stop'), ...proveDelivery(attempt)],
      classification,
    );
  }
  if (
    attempt === null ||
    (route.state !== 'active' && route.state !== 'retrying' && route.state !== 'switching')
  ) {
    return refused(
      route,
      'not_allowed',
      `no attempt of the route is running (${route.state})`,
      [],
      classification,
    );
  }
  // A successor that answers before its acknowledgement arrived is the route's candidate from now on.
  const current = route.state === 'switching' ? successorActive(route) : base(route);
  // Plain progress facts are the replay evidence of the attempt the report is about (it passed the checks above).
  const replay =
    report.replay ??
    (report.progress === undefined || report.progress === null
      ? null
      : replayEvidenceOf(replayKeyOf(current), report.progress));
  const safety = assessReplaySafety(replay, {
    current: replayKeyOf(current),
    failure: classification,
    failureMessage: evidenceMessage(report.evidence),
  });
  if (!safety.safe && safety.reason === 'stale') {
    const detail = 'the replay evidence belongs to another attempt';
    return refused(route, 'stale_evidence', detail, [history(route, `stale: ${detail}`)], classification);
  }

  const candidates = candidatesOf(world);
  const opened = circuitsAfterFailure(
    world.circuits,
    classification,
    descriptorsOf(candidates, current.candidate),
    route.id,
    world.nowMs,
  );
  const withFailure: RouteCommon = {
    ...current,
    lastFailure: summarize(classification),
    dispatch: finished(current.dispatch),
  };
  const facts: RouteEffect[] = [
    ...proveDelivery(attempt),
    ...(replay === null
      ? []
      : [
          { kind: 'keep_replay' as const, routeId: route.id, generation: route.generation, snapshot: replay },
        ]),
  ];
  const rules = rulesOf(current, world);
  if ('invalid' in rules) {
    const next = actionRequired(withFailure, route, 'invalid_configuration', rules.invalid, world.nowMs);
    return changed(
      next,
      'invalid_configuration',
      [
        history(withFailure, 'reject: invalid_configuration'),
        ...circuitEffects(world, opened),
        ...facts,
        ...stoppedNotices(next),
      ],
      classification,
    );
  }
  const decision: PolicyDecision =
    'removed' in rules
      ? { kind: 'reject', reason: 'unsafe', detail: 'candidate_removed' }
      : evaluateRules({ classification, safety }, current.usage, rules.rules, world.nowMs);
  const policy =
    'removed' in rules || classification.class === 'unclassified'
      ? null
      : (rules.policy?.[classification.class] ?? null);
  const exhaustedOutcome = (cls: 'transient' | 'hard') =>
    'removed' in rules ? 'stop' : rules.rules[cls].onExhausted;
  const record = (extra: Partial<AttemptRecord>) =>
    history(withFailure, decisionText(decision), { policySnapshot: policy, ...extra });

  switch (decision.kind) {
    case 'reject': {
      const next = actionRequired(
        withFailure,
        route,
        decision.reason === 'unclassified' ? 'unclassified' : 'unsafe',
        decision.detail,
        world.nowMs,
      );
      const effects = [record({}), ...circuitEffects(world, opened), ...facts, ...stoppedNotices(next)];
      return changed(
        next,
        `reject_${decision.reason === 'unclassified' ? 'unclassified' : 'unsafe'}`,
        effects,
        classification,
      );
    }
    case 'wait_for_reset': {
      const pendingOutcome = exhaustedOutcome(decision.class);
      const next: Route = touched(
        {
          ...withFailure,
          state: 'waiting_for_reset',
          deadlineMs: decision.deadlineMs,
          failureClass: decision.class,
          pendingOutcome,
          usage: {
            ...current.usage,
            resetWaitUsed: { ...current.usage.resetWaitUsed, [decision.class]: true },
          },
          dispatch: null,
        },
        route,
        world.nowMs,
      );
      return changed(
        next,
        'wait_for_reset',
        [
          record({ deadlineMs: decision.deadlineMs, delaySource: decision.delaySource, pendingOutcome }),
          ...circuitEffects(world, opened),
          ...facts,
          { kind: 'arm_timer', routeId: route.id, generation: next.generation, dueAtMs: decision.deadlineMs },
        ],
        classification,
      );
    }
    case 'retry': {
      const pendingOutcome = exhaustedOutcome(decision.class);
      const next: Route = touched(
        {
          ...withFailure,
          state: 'retry_wait',
          deadlineMs: decision.deadlineMs,
          failureClass: decision.class,
          retryOrdinal: decision.ordinal,
          maxRetries: decision.maxRetries,
          pendingOutcome,
          usage: {
            ...current.usage,
            retriesUsed: { ...current.usage.retriesUsed, [decision.class]: decision.ordinal },
          },
          dispatch: null,
        },
        route,
        world.nowMs,
      );
      return changed(
        next,
        'retry',
        [
          record({
            retryOrdinal: decision.ordinal,
            deadlineMs: decision.deadlineMs,
            delaySource: decision.delaySource,
            pendingOutcome,
          }),
          ...circuitEffects(world, opened),
          ...facts,
          { kind: 'arm_timer', routeId: route.id, generation: next.generation, dueAtMs: decision.deadlineMs },
          ...retryNoticeWrite(next),
        ],
        classification,
      );
    }
    case 'skip': {
      // The circuit this failure opens counts already when a successor is chosen.
      const switched = switchToNext(
        { ...withFailure, excluded: [...current.excluded, current.candidate] },
        route,
        world,
        withWrites(world.circuits, opened),
      );
      return changed(
        switched.route,
        'skip',
        [
          record({ pendingOutcome: 'skip' }),
          ...circuitEffects(world, [...opened, ...switched.circuitWrites]),
          ...facts,
          ...switched.effects,
        ],
        classification,
      );
    }
    case 'stop': {
      const next = actionRequired(withFailure, route, decision.reason, decision.detail, world.nowMs);
      return changed(
        next,
        'stop',
        [
          record({ pendingOutcome: 'stop' }),
          ...circuitEffects(world, opened),
          ...facts,
          ...stoppedNotices(next),
        ],
        classification,
      );
    }
  }
}

type RulesOf =
  | { readonly rules: RecoveryRules; readonly policy: PolicyDocument | null }
  | { readonly invalid: string }
  | { readonly removed: true };

/** The rules the failure is evaluated with: the candidate's policy, the built-in entry, or why there are none. */
function rulesOf(route: RouteCommon, world: RouteWorld): RulesOf {
  const profile = world.profile;
  switch (profile.kind) {
    case 'concrete':
      return { rules: interactiveRecoveryRules, policy: null };
    case 'invalid':
      return { invalid: profile.message };
    case 'missing':
    case 'not_loaded':
      return { invalid: `dynamic profile ${JSON.stringify(route.profileId)} no longer exists` };
    case 'dynamic': {
      const candidate = profile.candidates.find((c) => c.profile_id === route.candidate);
      // The candidate left the profile: nothing authorizes automatic work for it.
      if (candidate === undefined) return { removed: true };
      return { rules: rulesOfPolicy(candidate.policy), policy: candidate.policy };
    }
  }
}

function decisionText(d: PolicyDecision): string {
  return d.kind === 'reject' ? `reject:${d.reason}:${d.detail}` : d.kind;
}
