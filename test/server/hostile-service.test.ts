import { describe, expect, it } from 'vitest';
import type { RouteDocument } from '../../src/server/route-document.js';
import {
  call,
  failingSession,
  overloaded,
  policy,
  startTestService,
  suiteService,
  tokens,
} from '../helpers/service.js';
import { followEvents } from '../helpers/sse.js';

/** A hostile client against a real server: races, late and foreign acknowledgements, odd ids, the event stream. */
type RouteAnswer = { result: string; route: RouteDocument; error?: { code: string } };
type Message = { id: string; metadata: Record<string, unknown> };

const suite = suiteService({ ackTimeoutMs: 60_000 });

const ackPath = (route: RouteDocument, dispatchId = route.dispatch!.id) =>
  `/v1/routes/${encodeURIComponent(route.id)}/dispatches/${encodeURIComponent(dispatchId)}/ack`;

async function startRoute(id: string, ack = true): Promise<RouteDocument> {
  const saved = await call(suite.url, 'admin', 'PUT', `/v1/profiles/${id}`, {
    name: id,
    candidates: [
      { profile_id: 'first', provider: `${id}-one`, policy: policy(3, 5, 'skip') },
      { profile_id: 'second', provider: `${id}-two`, policy: policy(1, 5, 'stop') },
    ],
  });
  expect(saved.status).toBe(200);
  const started = await call(suite.url, 'adapter', 'POST', '/v1/routes', { route_id: id, profile_id: id });
  expect(started.status).toBe(201);
  const route = started.body as RouteDocument;
  if (!ack) return route;
  const acked = await call(suite.url, 'adapter', 'POST', ackPath(route));
  expect(acked.status).toBe(200);
  return (acked.body as RouteAnswer).route;
}

async function failOnce(route: RouteDocument): Promise<RouteDocument> {
  const failed = await call(suite.url, 'adapter', 'POST', `/v1/routes/${route.id}/evidence`, {
    envelope: overloaded,
    generation: route.generation,
    invocation_id: route.dispatch!.id,
    replay: {},
  });
  expect(failed.status).toBe(200);
  return (failed.body as RouteAnswer).route;
}

describe('two clients racing one action', () => {
  it('[RTE-21] two concurrent cancels: exactly one changed, the other unchanged or 409, never 5xx', async () => {
    const route = await failOnce(await startRoute('race-cancel'));
    const answers = await Promise.all(
      [0, 1].map(() =>
        call(suite.url, 'operator', 'POST', `/v1/routes/race-cancel/actions`, {
          action: 'cancel',
          expected_generation: route.generation,
        }),
      ),
    );
    expect(answers.map((a) => a.status).every((s) => s === 200 || s === 409)).toBe(true);
    expect(answers.filter((a) => (a.body as RouteAnswer).result === 'changed')).toHaveLength(1);
  });

  it('[RTE-17] a cancel and a retry_now fenced by the same generation and state: one change only', async () => {
    const route = await failOnce(await startRoute('race-mixed'));
    const answers = await Promise.all(
      (['cancel', 'retry_now'] as const).map((action) =>
        call(suite.url, 'operator', 'POST', `/v1/routes/race-mixed/actions`, {
          action,
          expected_generation: route.generation,
          expected_state: route.state,
        }),
      ),
    );
    expect(answers.map((a) => a.status).every((s) => s === 200 || s === 409)).toBe(true);
    expect(answers.filter((a) => (a.body as RouteAnswer).result === 'changed')).toHaveLength(1);
  });

  it('actions in odd states: retry_now on an active route, cancel while retrying, expected_state mismatch', async () => {
    const active = await startRoute('odd-active');
    const retry = await call(suite.url, 'operator', 'POST', '/v1/routes/odd-active/actions', {
      action: 'retry_now',
      expected_generation: active.generation,
    });
    expect(retry.status).toBe(409);
    const mismatch = await call(suite.url, 'operator', 'POST', '/v1/routes/odd-active/actions', {
      action: 'cancel',
      expected_generation: active.generation,
      expected_state: 'retry_wait',
    });
    expect(mismatch.status).toBe(409);
    expect((mismatch.body as RouteAnswer).error!.code).toBe('stale_state');
    const waiting = await failOnce(await startRoute('odd-retrying'));
    const now = await call(suite.url, 'operator', 'POST', '/v1/routes/odd-retrying/actions', {
      action: 'retry_now',
      expected_generation: waiting.generation,
    });
    expect(now.status).toBe(200);
    const retrying = (now.body as RouteAnswer).route;
    const cancel = await call(suite.url, 'operator', 'POST', '/v1/routes/odd-retrying/actions', {
      action: 'cancel',
      expected_generation: retrying.generation,
    });
    expect([200, 409]).toContain(cancel.status);
    const skip = await call(suite.url, 'operator', 'POST', '/v1/routes/odd-retrying/actions', {
      action: 'skip_now',
      expected_generation: 999,
    });
    expect(skip.status).toBe(409);
  });
});

describe('acknowledgements', () => {
  it('two concurrent acks of one dispatch: one acknowledged, the other unchanged, never 409', async () => {
    const route = await startRoute('ack-twice', false);
    const answers = await Promise.all([0, 1].map(() => call(suite.url, 'adapter', 'POST', ackPath(route))));
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.map((a) => (a.body as RouteAnswer).result).sort()).toEqual(['acknowledged', 'unchanged']);
  });

  it('a foreign route’s dispatch id, an unknown one and an ack after cancel are refused with 409 or 404', async () => {
    const one = await startRoute('ack-one', false);
    const two = await startRoute('ack-two', false);
    const foreign = await call(suite.url, 'adapter', 'POST', ackPath(one, two.dispatch!.id));
    expect(foreign.status).toBe(409);
    const unknownRoute = await call(suite.url, 'adapter', 'POST', `/v1/routes/nope/dispatches/x/ack`);
    expect(unknownRoute.status).toBe(404);
    // Still waiting: the right ack works.
    expect((await call(suite.url, 'adapter', 'POST', ackPath(two))).status).toBe(200);
    const cancelled = await call(suite.url, 'operator', 'POST', '/v1/routes/ack-one/actions', {
      action: 'cancel',
      expected_generation: one.generation,
    });
    expect([200, 409]).toContain(cancelled.status);
    const late = await call(suite.url, 'adapter', 'POST', ackPath(one));
    expect(late.status).toBeLessThan(500);
  });
});

describe('evidence', () => {
  it('stale and future generations, a foreign invocation id, prompt_open are refused with 409', async () => {
    const route = await startRoute('ev-odd');
    for (const extra of [
      { generation: route.generation + 5, invocation_id: route.dispatch!.id },
      { generation: route.generation, invocation_id: 'someone-else' },
      { generation: route.generation, invocation_id: route.dispatch!.id, prompt_open: true },
    ]) {
      const answer = await call(suite.url, 'adapter', 'POST', '/v1/routes/ev-odd/evidence', {
        envelope: overloaded,
        replay: {},
        ...extra,
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(409);
    }
  });

  it('a huge but valid envelope (~900 KB) is classified, not 413 or 5xx', async () => {
    const route = await startRoute('ev-huge');
    const answer = await call(suite.url, 'adapter', 'POST', '/v1/routes/ev-huge/evidence', {
      envelope: { ...overloaded, body: overloaded.body + ' '.repeat(900_000) },
      generation: route.generation,
      invocation_id: route.dispatch!.id,
      replay: {},
    });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBeLessThan(500);
  });
});

describe('profiles', () => {
  it('[API-02] two PUTs with the same If-Match: exactly one wins, the other is 409', async () => {
    const doc = (name: string) => ({
      name,
      candidates: [{ profile_id: 'x', policy: policy(1, 5, 'stop') }],
    });
    expect((await call(suite.url, 'admin', 'PUT', '/v1/profiles/racy', doc('a'))).status).toBe(200);
    const answers = await Promise.all(
      ['b', 'c'].map((n) =>
        call(suite.url, 'admin', 'PUT', '/v1/profiles/racy', doc(n), { 'if-match': '"1"' }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
  });

  it('a profile id with an encoded slash is refused or stored under that id, never 5xx', async () => {
    const answer = await call(suite.url, 'admin', 'PUT', '/v1/profiles/a%2Fb', {
      name: 'slash',
      candidates: [{ profile_id: 'x', policy: policy(1, 5, 'stop') }],
    });
    expect(answer.status).toBeLessThan(500);
    if (answer.status === 200) {
      expect((await call(suite.url, 'viewer', 'GET', '/v1/profiles/a%2Fb')).status).toBe(200);
    }
  });
});

describe('the event stream', () => {
  const auth = { authorization: `Bearer ${tokens.viewer}` };

  it('HEAD /v1/events answers the headers and ends; Last-Event-ID at the newest id waits for the next event', async () => {
    const head = await fetch(`${suite.url}/v1/events`, {
      method: 'HEAD',
      headers: auth,
      signal: AbortSignal.timeout(3000),
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await startRoute('sse-newest');
    const first = followEvents(`${suite.url}/v1/events?last_event_id=0`, auth);
    await first.waitFor((e) => e.length > 0);
    await new Promise((r) => setTimeout(r, 300));
    first.close();
    // A heartbeat (no id) follows the replayed events: the newest id is the last event that has one.
    const newest = first.events.filter((e) => e.id !== null).at(-1)!.id!;
    const resumed = followEvents(`${suite.url}/v1/events`, { ...auth, 'last-event-id': newest });
    await new Promise((r) => setTimeout(r, 200));
    expect(resumed.events.filter((e) => e.event === 'reload')).toEqual([]);
    await startRoute('sse-after');
    await resumed.waitFor((e) => e.some((x) => x.data.includes('sse-after')));
    expect(Number(resumed.events[0]!.id)).toBe(Number(newest) + 1);
    resumed.close();
  });

  it('a client connecting during heavy writes sees ids strictly increasing by one', async () => {
    let stream: ReturnType<typeof followEvents> | null = null;
    // Writes go on until the client has seen some of them: it connects while they run, however fast they are.
    const seen = () => stream?.events.some((e) => e.id !== null) ?? false;
    const writes = (async () => {
      for (let i = 0; i < 15 || !seen(); i++) await startRoute(`sse-heavy-${i}`);
    })();
    await new Promise((r) => setTimeout(r, 100));
    stream = followEvents(`${suite.url}/v1/events`, auth);
    await writes;
    await new Promise((r) => setTimeout(r, 300));
    stream.close();
    const ids = stream.events.filter((e) => e.id !== null).map((e) => Number(e.id));
    expect(ids.length).toBeGreaterThan(0);
    ids.forEach((id, i) => i > 0 && expect(id).toBe(ids[i - 1]! + 1));
  });

  it('many clients dropping abruptly leave the server serving streams', async () => {
    const clients = Array.from({ length: 50 }, () => followEvents(`${suite.url}/v1/events`, auth));
    await new Promise((r) => setTimeout(r, 300));
    for (const c of clients) c.close();
    await Promise.all(clients.map((c) => c.ended));
    const after = followEvents(`${suite.url}/v1/events`, auth);
    await new Promise((r) => setTimeout(r, 100));
    await startRoute('sse-after-drop');
    await after.waitFor((e) => e.some((x) => x.data.includes('sse-after-drop')));
    after.close();
  });
});

describe('the recovery choice', () => {
  async function cancelledSession(sessionId: string): Promise<Message> {
    await failingSession(suite.url, sessionId);
    await call(suite.url, 'operator', 'POST', `/v1/sessions/${sessionId}/retry/cancel`, {
      task_id: 'task-1',
      owner: 'alice',
    });
    const messages = (
      (await call(suite.url, 'viewer', 'GET', `/v1/sessions/${sessionId}/messages?task_id=task-1`)).body as {
        messages: Message[];
      }
    ).messages;
    return messages.find((m) => m.metadata.recovery === 'manual')!;
  }

  it('[CUR-33] two people choosing at once: one dispatch, carrying the winner’s choice', async () => {
    const message = await cancelledSession('s-race');
    const events = followEvents(`${suite.url}/v1/events`, { authorization: `Bearer ${tokens.viewer}` });
    await new Promise((r) => setTimeout(r, 200));
    const answers = await Promise.all(
      (['resume', 'start_fresh'] as const).map((choice) =>
        call(suite.url, 'operator', 'POST', '/v1/sessions/s-race/recovery', {
          task_id: 'task-1',
          choice,
          message_id: message.id,
        }),
      ),
    );
    // Choices for one session are taken one at a time: the second finds the message answered.
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    const winners = answers.filter((a) => (a.body as RouteAnswer).result === 'changed');
    expect(winners).toHaveLength(1);
    const winner = winners[0]!.body as RouteAnswer & { choice: string };
    await events.waitFor((list) =>
      list.some((e) => e.event === 'route.dispatch' && e.data.includes(winner.route.dispatch!.id)),
    );
    events.close();
    const dispatch = events.events.find(
      (e) => e.event === 'route.dispatch' && e.data.includes(winner.route.dispatch!.id),
    )!;
    expect(JSON.parse(dispatch.data)).toMatchObject({ intent: { continuation: winner.choice } });
  });

  it('a choice for a message of another session is 404', async () => {
    const message = await cancelledSession('s-mine');
    await cancelledSession('s-other');
    const answer = await call(suite.url, 'operator', 'POST', '/v1/sessions/s-other/recovery', {
      task_id: 'task-1',
      choice: 'resume',
      message_id: message.id,
    });
    expect(answer.status).toBe(404);
  });
});

describe('a short acknowledgement timeout', () => {
  it('an ack after its timeout is 409 stale_dispatch and the route stops as ambiguous, never 5xx', async () => {
    const started = await startTestService({ ackTimeoutMs: 200 });
    const url = started.service.url;
    try {
      const saved = await call(url, 'admin', 'PUT', '/v1/profiles/late', {
        name: 'late',
        candidates: [{ profile_id: 'x', provider: 'late-one', policy: policy(1, 5, 'stop') }],
      });
      expect(saved.status).toBe(200);
      const route = (
        await call(url, 'adapter', 'POST', '/v1/routes', { route_id: 'late', profile_id: 'late' })
      ).body as RouteDocument;
      await new Promise((r) => setTimeout(r, 600));
      const late = await call(url, 'adapter', 'POST', ackPath(route));
      expect(late.status).toBe(409);
      expect((late.body as RouteAnswer).error!.code).toBe('stale_dispatch');
      expect((late.body as RouteAnswer).route.state).toBe('action_required');
    } finally {
      await started.stop();
    }
  });

  it('deleting a profile while routes start on it: each start is 201 or 404, the delete 204 or 409 in_use', async () => {
    const doc = {
      name: 'del',
      candidates: [{ profile_id: 'x', provider: 'del-one', policy: policy(1, 5, 'stop') }],
    };
    expect((await call(suite.url, 'admin', 'PUT', '/v1/profiles/del-race', doc)).status).toBe(200);
    const [deleted, ...starts] = await Promise.all([
      call(suite.url, 'admin', 'DELETE', '/v1/profiles/del-race'),
      ...[0, 1, 2].map((i) =>
        call(suite.url, 'adapter', 'POST', '/v1/routes', {
          route_id: `del-race-${i}`,
          profile_id: 'del-race',
        }),
      ),
    ]);
    for (const s of starts) expect([201, 404]).toContain(s.status);
    expect([204, 409]).toContain(deleted.status);
    const routes = starts.filter((s) => s.status === 201).length;
    // A stored route always names a stored profile.
    if (routes > 0)
      expect((await call(suite.url, 'viewer', 'GET', '/v1/profiles/del-race')).status).toBe(200);
  });
});
