import { runningAttempt, type FailureSummary, type Route, type RouteCommon } from './route.js';
import type { AttemptRecord } from './route-effect.js';
import type { FailureFacts, RefusalReason } from './route-event.js';
import type { Classification } from '../classify/classification.js';
import type { TimingOrigin } from '../classify/classify.js';
import { phaseFailsAttempt } from '../evidence/phases.js';
import { formatIsoUtc } from '../time/iso-time.js';
import { describe } from '../validation/field-issue.js';

/*
 * What a failure report says about the route's attempt, and the attempt row it leaves: the correlation checks of
 * EVD-03, the proof of delivery, and the sanitized history every failure is kept as.
 */

/** The route with its running attempt's delivery proven (a new revision), or the route itself when nothing changes. */
export function delivered(route: Route, nowMs: number): Route {
  const attempt = runningAttempt(route);
  if (attempt === null || attempt.acknowledged) return route;
  return {
    ...route,
    dispatch: { ...attempt, acknowledged: true },
    revision: route.revision + 1,
    updatedAtMs: nowMs,
  };
}

/**
 * Whether a report is about the route's current attempt (EVD-03): the generation and invocation the report names,
 * then the invocation, prompt generation and phase the evidence itself names. Evidence about an attempt that
 * already answered (a late failure after its success) is stale too: it never starts a new loop.
 */
export function staleness(
  route: Route,
  report: FailureFacts,
): { reason: RefusalReason; detail: string } | null {
  const attempt = route.dispatch;
  const e = report.evidence;
  if (report.generation !== route.generation) {
    return {
      reason: 'stale_generation',
      detail: `generation ${report.generation} is not the route's current generation ${route.generation}`,
    };
  }
  if (report.invocationId !== null && report.invocationId !== attempt?.intentId) {
    return { reason: 'stale_invocation', detail: 'the report names an earlier attempt of this generation' };
  }
  if (e.invocationId !== null && e.invocationId !== attempt?.intentId) {
    return {
      reason: 'stale_evidence',
      detail: "the evidence names another invocation than the route's attempt",
    };
  }
  if (e.promptGeneration !== null && e.promptGeneration !== route.generation) {
    return {
      reason: 'stale_evidence',
      detail: `the evidence names prompt generation ${e.promptGeneration}, not ${route.generation}`,
    };
  }
  if (e.phase !== null && !phaseFailsAttempt(e.phase.toLowerCase())) {
    return {
      reason: 'stale_evidence',
      // The phase is the adapter's text, and the detail goes into events and the next evidence: echoed as every
      // bad input is, short and with any credential redacted.
      detail: `evidence of phase ${describe(e.phase)} cannot fail an attempt`,
    };
  }
  if (attempt !== null && attempt.finished) {
    return { reason: 'stale_invocation', detail: 'the attempt already reported its outcome' };
  }
  return null;
}

export function attemptOf(
  route: RouteCommon,
  c: Classification,
  origin: TimingOrigin,
  decision: string,
  nowMs: number,
  extra: Partial<AttemptRecord>,
): AttemptRecord {
  return {
    routeId: route.id,
    candidate: route.candidate,
    generation: route.generation,
    code: c.code,
    failureClass: c.class,
    catalogueVersion: c.catalogue_version,
    rule: c.classifier_rule,
    policySnapshot: null,
    decision,
    retryOrdinal: null,
    deadlineMs: null,
    delaySource: null,
    pendingOutcome: null,
    safeExcerpt: c.safe_excerpt,
    note: originNote(origin),
    atMs: nowMs,
    ...extra,
  };
}

/** CLS-23: evidence observed far in the future is not the origin of relative hints; the row says so. */
function originNote(origin: TimingOrigin): string | null {
  if (!origin.corrected || origin.observedAtMs === null) return null;
  const ahead = Math.round((origin.observedAtMs - origin.originMs) / 1000);
  return `observed_at ${formatIsoUtc(origin.observedAtMs)} was ${ahead} s ahead of the engine clock: relative timing hints were counted from ${formatIsoUtc(origin.originMs)}`;
}

export function summarize(c: Classification): FailureSummary {
  return {
    code: c.code,
    provider_id: c.provider_id,
    model_id: c.model_id,
    scope: c.scope,
    class: c.class,
    reason: c.reason ?? null,
    catalogue_version: c.catalogue_version,
    classifier_rule: c.classifier_rule,
    safe_excerpt: c.safe_excerpt,
    retry_after: c.retry_after,
    reset_at: c.reset_at,
  };
}
