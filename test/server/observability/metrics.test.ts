import { register as globalRegistry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  catalogueVersion,
  circuitStates,
  classificationClasses,
  hardCodes,
  manualActions,
  nonProviderCodes,
  routeDecisions,
  routeStates,
  transientCodes,
} from '../../../src/core/index.js';
import { createMetrics } from '../../../src/server/observability/index.js';
import {
  httpRouteLabels,
  providerLabels,
  routeActionResults,
} from '../../../src/server/observability/metric-labels.js';
import { replayOf } from '../../engine/harness.js';
import { t0 } from '../../core/route/route-fixtures.js';
import { failRoute, fireAt, openTestRecourse, overloadedFrom, retries } from './observability-harness.js';

const buildInfo = { version: '0.1.0', catalogueVersion };

/** Route ids, session and task ids, profile ids, provider strings and payload text a hostile caller chooses. */
const hostile = {
  // A key-shaped id (AKIA…) is refused outright (test/server/credential-ids.test.ts), so none is used here.
  routeIds: ['route-HOSTILE-7f3a9c2e-4b1d', 'Tenant/4242:secret@route', 'HOSTILE-ROUTE-0001'],
  sessionId: 'sess-HOSTILE-c0ffee',
  taskId: 'task-HOSTILE-31337',
  profileId: 'fleet-HOSTILE-0042',
  candidate: 'cand-SECRET-5511',
  descriptor: 'tenant-secret-9911',
  providers: ['provider-TENANT-99887766', 'ops@tenantsecret.example', 'x'.repeat(200)],
  payload: 'payload-HOSTILE-free-text',
};
/** Fragments no label value may contain, whatever the case. */
const fragments = ['hostile', 'secret', 'tenant', '7f3a9c2e', '4242', '99887766', 'c0ffee', '31337', 'xxxxx'];

/** Every label value in the exposition text, by label name (`le` buckets left out). */
function labelValues(text: string): Map<string, Set<string>> {
  const values = new Map<string, Set<string>>();
  for (const [, name, value] of text.matchAll(/([a-z_]+)="([^"]*)"/g)) {
    if (name === 'le') continue;
    if (!values.has(name!)) values.set(name!, new Set());
    values.get(name!)!.add(value!);
  }
  return values;
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  it('keep caller-chosen ids and provider text out of every label, driving real routes on a real SQLite file', async () => {
    const { recourse, clock } = await openTestRecourse({
      id: hostile.profileId,
      name: 'Hostile',
      candidates: [
        { profile_id: hostile.candidate, provider: hostile.descriptor, policy: retries },
        { profile_id: 'spare', policy: retries },
      ],
    });
    const metrics = createMetrics({ recourse, buildInfo });
    try {
      // A legitimate provider name is a label value: the positive control. Its failure opens
      // the first candidate's provider circuit, so the hostile routes start on the spare.
      await recourse.engine.startRoute({ routeId: 'plain', profileId: hostile.profileId });
      await failRoute(recourse, 'plain', overloadedFrom('acme'));
      for (const [i, routeId] of hostile.routeIds.entries()) {
        await recourse.engine.startRoute({
          routeId,
          profileId: hostile.profileId,
          payload: { note: hostile.payload },
        });
        await failRoute(recourse, routeId, overloadedFrom(hostile.providers[i]!));
      }
      const ref = { taskId: hostile.taskId, sessionId: hostile.sessionId };
      await recourse.sessions.open({ ...ref, profileId: hostile.candidate, owner: 'owner-HOSTILE' });
      const session = (await recourse.store.readRoute(`session:${hostile.sessionId}`))!;
      await recourse.sessions.reportFailure(ref, {
        evidence: overloadedFrom(hostile.providers[0]!),
        invocationId: session.dispatch!.intentId,
        replay: replayOf(session),
      });
      await recourse.sessions.idle();
      // Skip now ends the plain route's wait: a switch to the spare candidate.
      await recourse.engine.act({ routeId: 'plain', action: 'skip_now', expectedGeneration: 1 });
      await recourse.engine.idle();
      // Every other wait was armed for t0 + 5 s: fire them 2.5 s late.
      await fireAt(recourse, clock, t0 + 7_500);
      const stopped = await recourse.engine.act({
        routeId: hostile.routeIds[0]!,
        action: 'stop',
        expectedGeneration: 1,
      });
      metrics.observeAction('stop', stopped.outcome === 'changed' ? 'applied' : 'refused');
      metrics.observeHttp('/v1/routes/:id', 'POST', 200, 0.012);
      // A concrete URL passed by mistake instead of the template.
      metrics.observeHttp(`/v1/routes/${hostile.routeIds[0]}`, 'GET', 404, 0.002);
      metrics.observeHttp(`/v1/routes/${hostile.routeIds[1]}`, hostile.sessionId, 999, 0.002);

      const text = await metrics.render();
      for (const id of [...hostile.routeIds, hostile.sessionId, hostile.taskId, hostile.profileId]) {
        expect(text).not.toContain(id);
      }
      for (const s of [hostile.candidate, hostile.descriptor, ...hostile.providers, hostile.payload]) {
        expect(text).not.toContain(s);
      }
      const lower = text.toLowerCase();
      for (const f of fragments) expect(lower).not.toContain(f);

      // Every label value comes from a closed set, or is one of the few legitimate values given above.
      const allowed: Record<string, readonly string[]> = {
        provider: ['acme', 'other', 'unknown'],
        code: [...transientCodes, ...hardCodes, ...nonProviderCodes, 'none', 'other'],
        class: [...classificationClasses, 'other'],
        outcome: [...routeDecisions, 'refused', 'other'],
        state: [...routeStates, ...circuitStates],
        action: [...manualActions, 'other'],
        result: [...routeActionResults, 'other'],
        route: ['/v1/routes/:id', 'other'],
        method: ['GET', 'POST', 'other'],
        status: ['200', '404', 'other'],
        version: ['0.1.0'],
        catalogue_version: [catalogueVersion],
      };
      for (const [name, values] of labelValues(text)) {
        expect(allowed[name], `label ${name}`).toBeDefined();
        for (const v of values) expect(allowed[name], `${name}="${v}"`).toContain(v);
      }

      expect(
        sample(text, 'recourse_build_info{version="0.1.0",catalogue_version="' + catalogueVersion + '"}'),
      ).toBe(1);
      expect(
        sample(
          text,
          'recourse_provider_failures_total{provider="acme",code="provider_overloaded",class="transient"}',
        ),
      ).toBe(1);
      expect(sample(text, 'recourse_candidate_switches_total')).toBe(1);
      // Four waits (three hostile routes and the session) armed 5 s ahead and fired 2.5 s late.
      expect(sample(text, 'recourse_retry_delay_seconds_count')).toBe(5);
      expect(sample(text, 'recourse_retry_delay_seconds_sum')).toBe(25);
      expect(sample(text, 'recourse_timer_lateness_seconds_count')).toBe(4);
      expect(sample(text, 'recourse_timer_lateness_seconds_sum')).toBe(10);
      expect(sample(text, 'recourse_routes{state="retrying"}')).toBe(3);
      // The switch was acknowledged at once: the plain route is active on the spare.
      expect(sample(text, 'recourse_routes{state="active"}')).toBe(1);
      expect(sample(text, 'recourse_routes{state="action_required"}')).toBe(1);
      // The plain route's failure opened its provider's circuit, and nothing probed it since.
      expect(sample(text, 'recourse_circuits{state="open"}')).toBe(1);
      expect(sample(text, 'recourse_route_actions_total{action="stop",result="applied"}')).toBe(1);
      expect(
        sample(text, 'recourse_http_request_duration_seconds_count{route="other",method="GET",status="404"}'),
      ).toBe(1);
    } finally {
      metrics.close();
      await recourse.close();
    }
  });

  it('own their registry: two servers in one process do not clash, and the global registry stays empty', async () => {
    const one = await openTestRecourse({
      id: 'p',
      name: 'P',
      candidates: [{ profile_id: 'a', policy: retries }],
    });
    const two = await openTestRecourse({
      id: 'p',
      name: 'P',
      candidates: [{ profile_id: 'a', policy: retries }],
    });
    const first = createMetrics({ recourse: one.recourse, buildInfo });
    const second = createMetrics({ recourse: two.recourse, buildInfo });
    try {
      await one.recourse.engine.startRoute({ routeId: 'r', profileId: 'p' });
      await one.recourse.engine.idle();
      expect(sample(await first.render(), 'recourse_decisions_total{outcome="start"}')).toBe(1);
      expect(sample(await second.render(), 'recourse_decisions_total{outcome="start"}')).toBeUndefined();
      expect(first.registry).not.toBe(second.registry);
      expect(await globalRegistry.metrics()).not.toContain('recourse_');
      expect(first.contentType).toMatch(/^text\/plain/);

      // After close, the engine's events are no longer counted.
      first.close();
      await one.recourse.engine.startRoute({ routeId: 'r2', profileId: 'p' });
      await one.recourse.engine.idle();
      expect(sample(await first.render(), 'recourse_decisions_total{outcome="start"}')).toBe(1);
    } finally {
      first.close();
      second.close();
      await one.recourse.close();
      await two.recourse.close();
    }
  });
});

describe('metric labels', () => {
  it('keep at most 32 provider names; more, ids, keys and odd characters are other', () => {
    const provider = providerLabels();
    const names = Array.from(
      { length: 40 },
      (_, i) => `prov${String.fromCharCode(97 + (i % 26))}${i < 26 ? '' : 'x'}`,
    );
    const labels = names.map(provider);
    expect(labels.slice(0, 32)).toEqual(names.slice(0, 32));
    expect(new Set(labels.slice(32))).toEqual(new Set(['other']));
    // Already-seen names keep their label after the limit.
    expect(provider(names[0]!)).toBe(names[0]);
    expect(provider(null)).toBe('unknown');
    const fresh = providerLabels();
    for (const bad of ['acct-12345678', 'a"b', 'a\nb', 'x'.repeat(33), '9lives', 'a b', '']) {
      expect(fresh(bad), bad).toBe('other');
    }
    expect(fresh('Azure-OpenAI')).toBe('azure-openai');
  });

  it('take route templates, never concrete URLs', () => {
    const route = httpRouteLabels();
    expect(route('/v1/routes/:id')).toBe('/v1/routes/:id');
    expect(route('/v1/routes/:id/actions/:action')).toBe('/v1/routes/:id/actions/:action');
    expect(route('/metrics')).toBe('/metrics');
    expect(route('/')).toBe('/');
    expect(route('unmatched')).toBe('unmatched');
    for (const url of [
      '/v1/routes/0190f3b2-8a4c-7def-8123-456789abcdef',
      '/v1/routes/Route-X',
      '/v1/routes/r?token=abc',
      '/v1/routes/%2e%2e',
      'v1/routes',
    ]) {
      expect(route(url), url).toBe('other');
    }
  });
});
