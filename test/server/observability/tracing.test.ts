import { SpanStatusCode, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { createTracing } from '../../../src/server/observability/index.js';
import { t0 } from '../../core/route/route-fixtures.js';
import { failRoute, fireAt, openTestRecourse, overloadedFrom, retries } from './observability-harness.js';
import { RecordingTracerProvider, type RecordedSpan } from './recording-tracer.js';

const profile = {
  id: 'p',
  name: 'P',
  candidates: [
    { profile_id: 'a', provider: 'acme', policy: retries },
    { profile_id: 'b', policy: retries },
  ],
};

// The global provider is process state: never leave one registered for the next test file.
afterEach(() => trace.disable());

const attemptsOf = (spans: readonly RecordedSpan[], routeId: string) =>
  spans.filter((s) => s.name === 'recourse.attempt' && s.attributes['recourse.route.id'] === routeId);
const decisionsOf = (spans: readonly RecordedSpan[], routeId: string) =>
  spans.filter((s) => s.name === 'recourse.decision' && s.attributes['recourse.route.id'] === routeId);

describe('tracing', () => {
  it('records one span per attempt, dispatch to outcome, and one per decision, with error.type the semantic code', async () => {
    const provider = new RecordingTracerProvider();
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    const { recourse, clock } = await openTestRecourse(profile);
    const tracing = createTracing({ recourse, version: '0.1.0' });
    try {
      await recourse.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await recourse.engine.idle();
      await failRoute(recourse, 'r1', overloadedFrom('acme'));
      await fireAt(recourse, clock, t0 + 5_000);
      clock.set(t0 + 6_000);
      const retrying = (await recourse.store.readRoute('r1'))!;
      await recourse.engine.reportSuccess({
        routeId: 'r1',
        generation: retrying.generation,
        invocationId: retrying.dispatch!.intentId,
      });
      await recourse.engine.idle();

      const [first, second, ...more] = attemptsOf(provider.started, 'r1');
      expect(more).toEqual([]);
      expect(first).toMatchObject({
        startTime: t0,
        endTime: t0,
        ended: true,
        status: { code: SpanStatusCode.ERROR, message: 'provider_overloaded' },
        attributes: {
          'recourse.attempt.kind': 'initial',
          'recourse.attempt.outcome': 'failed',
          'recourse.candidate': 'a',
          'error.type': 'provider_overloaded',
        },
        events: ['acknowledged'],
      });
      expect(second).toMatchObject({
        startTime: t0 + 5_000,
        endTime: t0 + 6_000,
        ended: true,
        status: null,
        attributes: { 'recourse.attempt.kind': 'retry', 'recourse.attempt.outcome': 'succeeded' },
      });
      expect(second!.attributes['error.type']).toBeUndefined();

      const decisions = decisionsOf(provider.started, 'r1');
      expect(decisions.map((d) => d.attributes['recourse.decision'])).toEqual([
        'start',
        'dispatch_acknowledged',
        'retry',
        'deadline',
        'dispatch_acknowledged',
        'success',
      ]);
      expect(decisions.every((d) => d.ended && d.startTime === d.endTime)).toBe(true);
      // The failure's decision answers the first attempt: its child, marked with the semantic code.
      const retry = decisions[2]!;
      expect(retry.parentSpanId).toBe(first!.spanId);
      expect(retry.traceId).toBe(first!.traceId);
      expect(retry.attributes).toMatchObject({
        'recourse.route.state': 'retry_wait',
        'recourse.route.previous_state': 'active',
        'recourse.failure.class': 'transient',
        'error.type': 'provider_overloaded',
      });
      // The deadline fired with no attempt running: a decision of its own, which dispatched the second attempt.
      expect(decisions[3]!.parentSpanId).toBeNull();
      expect(decisions[5]!.parentSpanId).toBe(second!.spanId);
    } finally {
      tracing.close();
      await recourse.close();
    }
  });

  it('ends an attempt as failed with error.type unclassified when the classifier recognizes nothing, and as ambiguous when delivery is uncertain', async () => {
    const provider = new RecordingTracerProvider();
    trace.setGlobalTracerProvider(provider);
    const { recourse, dispatcher } = await openTestRecourse(profile);
    const tracing = createTracing({ recourse, version: '0.1.0' });
    try {
      await recourse.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await recourse.engine.idle();
      await failRoute(recourse, 'r1', { kind: 'stderr', text: 'weird gibberish' });
      dispatcher.mode = 'reject';
      await recourse.engine.startRoute({ routeId: 'r2', profileId: 'p' });
      await recourse.engine.idle();

      expect(attemptsOf(provider.finished, 'r1')).toMatchObject([
        {
          attributes: { 'recourse.attempt.outcome': 'failed', 'error.type': 'unclassified' },
          status: { code: SpanStatusCode.ERROR },
        },
      ]);
      expect(attemptsOf(provider.finished, 'r2')).toMatchObject([
        { attributes: { 'recourse.attempt.outcome': 'ambiguous', 'error.type': 'ambiguous_dispatch' } },
      ]);
      expect(decisionsOf(provider.finished, 'r1').at(-1)!.attributes).toMatchObject({
        'recourse.decision': 'reject_unclassified',
        'error.type': 'unclassified',
      });
    } finally {
      tracing.close();
      await recourse.close();
    }
  });

  it('is a no-op until the host registers a provider, and ends the attempts still running on close', async () => {
    const { recourse } = await openTestRecourse(profile);
    const tracing = createTracing({ recourse, version: '0.1.0' });
    try {
      await recourse.engine.startRoute({ routeId: 'before', profileId: 'p' });
      await recourse.engine.idle();
      // Registered after the tracing was created: the API's proxy tracer starts delegating to it.
      const provider = new RecordingTracerProvider();
      trace.setGlobalTracerProvider(provider);
      await recourse.engine.startRoute({ routeId: 'after', profileId: 'p' });
      await recourse.engine.idle();
      expect(provider.started.filter((s) => s.attributes['recourse.route.id'] === 'before')).toEqual([]);
      const [running] = attemptsOf(provider.started, 'after');
      expect(running!.ended).toBe(false);
      tracing.close();
      expect(running).toMatchObject({
        ended: true,
        attributes: { 'recourse.attempt.outcome': 'unfinished' },
      });
      // After close, nothing more is traced.
      await recourse.engine.startRoute({ routeId: 'closed', profileId: 'p' });
      await recourse.engine.idle();
      expect(provider.started.filter((s) => s.attributes['recourse.route.id'] === 'closed')).toEqual([]);
    } finally {
      tracing.close();
      await recourse.close();
    }
  });
});
