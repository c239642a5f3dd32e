import { afterEach, describe, expect, it } from 'vitest';
import type { RouteDocument } from '../../src/server/route-document.js';
import { call, overloaded, policy, startTestService, tokens } from '../helpers/service.js';
import { followEvents, type SseEvent } from '../helpers/sse.js';

/** The event stream against a real server: ids from the durable log, resuming without a gap, and the reload signal. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const auth = { authorization: `Bearer ${tokens.viewer}` };

async function service(options: { eventsKept?: number } = {}) {
  const started = await startTestService({ ackTimeoutMs: 60_000, ...options });
  cleanups.push(started.stop);
  const base = started.service.url;
  await call(base, 'admin', 'PUT', '/v1/profiles/p', {
    name: 'P',
    candidates: [{ profile_id: 'only', provider: 'made-up', policy: policy(3, 600, 'stop') }],
  });
  return base;
}

/** A route started, acknowledged and failed once: three transitions and a dispatch. */
async function churn(base: string, id: string): Promise<void> {
  const started = (await call(base, 'adapter', 'POST', '/v1/routes', { route_id: id, profile_id: 'p' }))
    .body as RouteDocument;
  await call(base, 'adapter', 'POST', `/v1/routes/${id}/dispatches/${started.dispatch!.id}/ack`);
  await call(base, 'adapter', 'POST', `/v1/routes/${id}/evidence`, {
    envelope: overloaded,
    generation: 1,
    invocation_id: started.dispatch!.id,
    replay: {},
  });
  await call(base, 'operator', 'POST', `/v1/routes/${id}/actions`, {
    action: 'cancel',
    expected_generation: 1,
  });
}

const transitionsOf = (events: SseEvent[], id: string) =>
  events
    .filter((e) => e.event === 'route.transition')
    .map((e) => JSON.parse(e.data) as { route: RouteDocument; server_time: string })
    .filter((e) => e.route.id === id)
    .map((e) => e.route.state);

describe('GET /v1/events', () => {
  it('[API-03] streams route transitions with ids and server_time; the route document carries code, class and deadline', async () => {
    const base = await service();
    const stream = followEvents(`${base}/v1/events`, auth);
    await new Promise((r) => setTimeout(r, 200));
    await churn(base, 'live');
    await stream.waitFor((events) => transitionsOf(events, 'live').includes('action_required'));
    stream.close();
    expect(transitionsOf(stream.events, 'live')).toEqual(['active', 'retry_wait', 'action_required']);
    const waiting = stream.events
      .filter((e) => e.event === 'route.transition')
      .map((e) => JSON.parse(e.data) as { route: RouteDocument; server_time: string })
      .find((e) => e.route.state === 'retry_wait')!;
    expect(waiting.route).toMatchObject({
      code: 'provider_overloaded',
      class: 'transient',
      retry_ordinal: 1,
      max_retries: 3,
    });
    expect(Date.parse(waiting.route.deadline_at!)).toBeGreaterThan(Date.parse(waiting.server_time));
    const ids = stream.events.filter((e) => e.id !== null).map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(stream.events.some((e) => e.event === 'route.dispatch')).toBe(true);
  });

  it('Last-Event-ID resumes right after the last event seen: transitions made while disconnected are all delivered, none twice', async () => {
    const base = await service();
    const first = followEvents(`${base}/v1/events`, auth);
    await new Promise((r) => setTimeout(r, 200));
    await churn(base, 'before');
    await first.waitFor((events) => transitionsOf(events, 'before').includes('action_required'));
    first.close();
    const lastSeen = first.events.filter((e) => e.id !== null).at(-1)!.id!;
    for (const id of ['gap-1', 'gap-2', 'gap-3']) await churn(base, id);
    const resumed = followEvents(`${base}/v1/events`, { ...auth, 'last-event-id': lastSeen });
    await resumed.waitFor((events) => transitionsOf(events, 'gap-3').includes('action_required'));
    await churn(base, 'after');
    await resumed.waitFor((events) => transitionsOf(events, 'after').includes('action_required'));
    resumed.close();
    for (const id of ['gap-1', 'gap-2', 'gap-3', 'after']) {
      expect(transitionsOf(resumed.events, id)).toEqual(['active', 'retry_wait', 'action_required']);
    }
    expect(transitionsOf(resumed.events, 'before')).toEqual([]);
    const ids = resumed.events.filter((e) => e.id !== null).map((e) => Number(e.id));
    expect(ids[0]).toBe(Number(lastSeen) + 1);
    expect(ids).toEqual(ids.map((_, i) => ids[0]! + i));
  });

  it('a client too far behind, or with an id the log never gave, is told to reload rather than miss events', async () => {
    const base = await service({ eventsKept: 5 });
    for (const id of ['a', 'b', 'c', 'd']) await churn(base, id);
    await new Promise((r) => setTimeout(r, 300));
    const behind = followEvents(`${base}/v1/events`, { ...auth, 'last-event-id': '1' });
    await behind.waitFor((events) => events.some((e) => e.event === 'reload'));
    await behind.ended;
    expect(JSON.parse(behind.events.find((e) => e.event === 'reload')!.data)).toMatchObject({
      reason: 'too_far_behind',
    });
    for (const bad of ['99999999', 'abc', '-1']) {
      const foreign = followEvents(`${base}/v1/events?last_event_id=${bad}`, auth);
      await foreign.waitFor((events) => events.some((e) => e.event === 'reload'));
      await foreign.ended;
      expect(JSON.parse(foreign.events.find((e) => e.event === 'reload')!.data)).toMatchObject({
        reason: 'unknown_event_id',
      });
    }
  });

  it('an empty Last-Event-ID, as header or as ?last_event_id=, names no event: the stream follows from now (no reload), as EventSource means it', async () => {
    const base = await service();
    await churn(base, 'earlier');
    for (const [url, headers] of [
      [`${base}/v1/events`, { ...auth, 'last-event-id': '' }],
      [`${base}/v1/events?last_event_id=`, auth],
    ] as const) {
      const stream = followEvents(url, headers);
      await new Promise((r) => setTimeout(r, 200));
      const id = `now-${url.length}`;
      await churn(base, id);
      await stream.waitFor((events) => transitionsOf(events, id).includes('action_required'));
      stream.close();
      expect(stream.events.some((e) => e.event === 'reload')).toBe(false);
      expect(transitionsOf(stream.events, 'earlier')).toEqual([]);
    }
  });

  it('a resume whose events are pruned between the check of its id and the read of the log is told to reload, not given a gap', async () => {
    const started = await startTestService({ ackTimeoutMs: 60_000 });
    cleanups.push(started.stop);
    const base = started.service.url;
    await call(base, 'admin', 'PUT', '/v1/profiles/p', {
      name: 'P',
      candidates: [{ profile_id: 'only', provider: 'made-up', policy: policy(3, 600, 'stop') }],
    });
    for (const id of ['a', 'b']) await churn(base, id);
    await started.service.hub.drained();
    const log = started.service.recourse.events;
    const bounds = (await log.bounds())!;
    expect(bounds.last - bounds.first).toBeGreaterThan(4);
    // Another stream's append prunes the log right after this stream checked its id: the events after it go.
    const after = log.after.bind(log);
    let pruned = false;
    log.after = async (afterId, limit) => {
      if (!pruned) {
        pruned = true;
        await log.prune(2, 0);
      }
      return after(afterId, limit);
    };
    const resume = String(bounds.first + 1);
    const client = followEvents(`${base}/v1/events`, { ...auth, 'last-event-id': resume });
    await client.waitFor((events) =>
      events.some((e) => e.event === 'reload' || e.event === 'route.transition'),
    );
    client.close();
    expect(pruned).toBe(true);
    expect(client.events.filter((e) => e.id !== null)).toEqual([]);
    expect(JSON.parse(client.events.find((e) => e.event === 'reload')!.data)).toMatchObject({
      reason: 'too_far_behind',
    });
  });

  it('a stream whose first read of the log fails (the database restarting) ends, so the client connects again, rather than stay open with heartbeats and no events', async () => {
    const started = await startTestService({ ackTimeoutMs: 60_000 });
    cleanups.push(started.stop);
    const base = started.service.url;
    const log = started.service.recourse.events;
    // The start's own event (`recourse.reconciled`) is stored: only the stream reads the newest id from here on.
    await started.service.hub.drained();
    expect(await log.lastId()).toBeGreaterThan(0);
    const lastId = log.lastId.bind(log);
    let failed = 0;
    log.lastId = () => {
      if (failed++ === 0) return Promise.reject(new Error('Connection terminated unexpectedly'));
      return lastId();
    };
    const client = followEvents(`${base}/v1/events`, auth);
    await client.ended;
    expect(failed).toBe(1);
    // The next connection reads the log and streams as usual.
    await call(base, 'admin', 'PUT', '/v1/profiles/p', {
      name: 'P',
      candidates: [{ profile_id: 'only', provider: 'made-up', policy: policy(3, 600, 'stop') }],
    });
    const again = followEvents(`${base}/v1/events?last_event_id=0`, auth);
    await call(base, 'adapter', 'POST', '/v1/routes', { route_id: 'after', profile_id: 'p' });
    await again.waitFor((events) => transitionsOf(events, 'after').length > 0);
    again.close();
  });

  it('the stream needs a credential; the browser cookie from /?token= opens it', async () => {
    const base = await service();
    const anonymous = await fetch(`${base}/v1/events`);
    expect(anonymous.status).toBe(401);
    const entry = await fetch(`${base}/?token=${tokens.viewer}`, { redirect: 'manual' });
    expect(entry.status).toBe(303);
    const cookie = entry.headers.get('set-cookie')!.split(';')[0]!;
    const stream = followEvents(`${base}/v1/events`, { cookie });
    await new Promise((r) => setTimeout(r, 200));
    await churn(base, 'cookie');
    await stream.waitFor((events) => transitionsOf(events, 'cookie').length > 0);
    stream.close();
  });
});
