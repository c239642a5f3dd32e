import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDocument } from '../../src/server/route-document.js';
import { call, failingSession, startTestService, suiteService, tokens } from '../helpers/service.js';
import { followEvents } from '../helpers/sse.js';

type Message = { id: string; metadata: Record<string, unknown>; content: string };

/** Task sessions over HTTP against a real server: notices, Cancel, the Resume / Start fresh choice. */
describe('task sessions', () => {
  const suite = suiteService({ ackTimeoutMs: 60_000 });

  const messagesOf = async (sessionId: string) =>
    (
      (await call(suite.url, 'viewer', 'GET', `/v1/sessions/${sessionId}/messages?task_id=task-1`)).body as {
        messages: Message[];
      }
    ).messages;

  it('[NOT-41] [CUR-33] Cancel of a live retry writes Resume / Start fresh once; the person’s Resume dispatches to the same session, once', async () => {
    const waiting = await failingSession(suite.url, 's-resume');
    expect(waiting.state).toBe('retry_wait');
    expect((await messagesOf('s-resume')).filter((m) => m.metadata.retrying === true)).toHaveLength(1);
    const events = followEvents(`${suite.url}/v1/events`, { authorization: `Bearer ${tokens.viewer}` });
    await new Promise((r) => setTimeout(r, 200));
    const cancelled = await call(suite.url, 'operator', 'POST', '/v1/sessions/s-resume/retry/cancel', {
      task_id: 'task-1',
      owner: 'alice',
    });
    expect(cancelled.body).toEqual({ result: 'cancelled', active: true });
    const messages = await messagesOf('s-resume');
    expect(messages.filter((m) => m.metadata.retrying === true)).toEqual([]);
    const recovery = messages.filter((m) => m.metadata.recovery === 'manual');
    expect(recovery).toHaveLength(1);
    const chosen = await call(suite.url, 'operator', 'POST', '/v1/sessions/s-resume/recovery', {
      task_id: 'task-1',
      choice: 'resume',
      message_id: recovery[0]!.id,
    });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ result: 'changed', choice: 'resume', route: { state: 'retrying' } });
    const dispatchId = (chosen.body as { route: RouteDocument }).route.dispatch!.id;
    await events.waitFor((list) =>
      list.some(
        (e) =>
          e.event === 'route.dispatch' &&
          e.data.includes(dispatchId) &&
          e.data.includes('"continuation":"resume"'),
      ),
    );
    events.close();
    expect((await messagesOf('s-resume')).some((m) => m.metadata.recovery === 'manual')).toBe(false);
    const again = await call(suite.url, 'operator', 'POST', '/v1/sessions/s-resume/recovery', {
      task_id: 'task-1',
      choice: 'start_fresh',
      message_id: recovery[0]!.id,
    });
    expect(again.status).toBe(404);
  });

  it('[NOT-43] a foreign task-session pair and an unknown one get the same status and body', async () => {
    await failingSession(suite.url, 's-owned');
    const foreignOwner = await call(suite.url, 'operator', 'POST', '/v1/sessions/s-owned/retry/cancel', {
      task_id: 'task-1',
      owner: 'mallory',
    });
    const foreignTask = await call(suite.url, 'operator', 'POST', '/v1/sessions/s-owned/retry/cancel', {
      task_id: 'task-2',
      owner: 'alice',
    });
    const unknown = await call(suite.url, 'operator', 'POST', '/v1/sessions/s-nobody/retry/cancel', {
      task_id: 'task-1',
      owner: 'alice',
    });
    expect(foreignOwner.status).toBe(404);
    expect(foreignTask).toMatchObject({ status: 404, body: foreignOwner.body });
    expect(unknown).toMatchObject({ status: 404, body: foreignOwner.body });
    // Nothing was cancelled: the retry still waits with its notice.
    expect((await messagesOf('s-owned')).filter((m) => m.metadata.retrying === true)).toHaveLength(1);
  });

  it('[NOT-42] Cancel with no live loop is an idempotent cleanup: no active cancellation, no recovery message', async () => {
    await failingSession(suite.url, 's-twice');
    await call(suite.url, 'operator', 'POST', '/v1/sessions/s-twice/retry/cancel', {
      task_id: 'task-1',
      owner: 'alice',
    });
    const second = await call(suite.url, 'operator', 'POST', '/v1/sessions/s-twice/retry/cancel', {
      task_id: 'task-1',
      owner: 'alice',
    });
    expect(second.body).toEqual({ result: 'cancelled', active: false });
    expect((await messagesOf('s-twice')).filter((m) => m.metadata.recovery === 'manual')).toHaveLength(1);
  });

  it('deleting a session retires its retry and notices; its messages are then 404', async () => {
    await failingSession(suite.url, 's-delete');
    expect((await call(suite.url, 'operator', 'DELETE', '/v1/sessions/s-delete?task_id=task-1')).status).toBe(
      204,
    );
    expect(
      (await call(suite.url, 'viewer', 'GET', '/v1/sessions/s-delete/messages?task_id=task-1')).status,
    ).toBe(404);
  });
});

/** The webhook dispatcher against a real local receiver: signed intents, acknowledgement, and a failed delivery. */
describe('webhook dispatch', () => {
  const secret = 'webhook-secret-0123456789';
  let receiver: Server;
  let receiverUrl: string;
  const received: { body: string; signature: string | undefined; path: string | undefined }[] = [];
  let answerStatus = 200;
  let stopService: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    receiver = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        received.push({
          body,
          signature: req.headers['x-recourse-signature'] as string | undefined,
          path: req.url,
        });
        if (req.url === '/moved') res.writeHead(307, { location: '/elsewhere' }).end();
        else res.writeHead(answerStatus).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address() as { port: number };
    receiverUrl = `http://127.0.0.1:${address.port}/hook`;
  });
  afterEach(async () => {
    await stopService?.();
    stopService = null;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  async function serviceWithHook(ackTimeoutMs: number, url = receiverUrl, log?: string[]) {
    const started = await startTestService({
      webhookUrl: url,
      webhookSecret: secret,
      ackTimeoutMs,
      ...(log === undefined ? {} : { logLevel: 'warn', logDestination: sink(log) }),
    });
    stopService = started.stop;
    const base = started.service.url;
    await call(base, 'admin', 'PUT', '/v1/profiles/hooked', {
      name: 'Hooked',
      candidates: [
        {
          profile_id: 'only',
          policy: {
            version: 1,
            transient: {
              retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
              wait_for_reset: { enabled: false, max_wait_seconds: 0 },
              on_exhausted: 'stop',
            },
            hard: {
              retry: { enabled: false, max_retries: 0, initial_interval_seconds: 0 },
              wait_for_reset: { enabled: false, max_wait_seconds: 0 },
              on_exhausted: 'stop',
            },
          },
        },
      ],
    });
    return base;
  }

  it('POSTs each intent signed with HMAC-SHA256 of the body; the ack route proves delivery', async () => {
    answerStatus = 200;
    const base = await serviceWithHook(60_000);
    const started = (
      await call(base, 'adapter', 'POST', '/v1/routes', {
        route_id: 'hooked-1',
        profile_id: 'hooked',
        payload: { prompt: 'hi' },
      })
    ).body as RouteDocument;
    await expect.poll(() => received.length).toBeGreaterThan(0);
    const delivery = received.at(-1)!;
    const expected = `sha256=${createHmac('sha256', secret).update(delivery.body).digest('hex')}`;
    expect(delivery.signature).toBe(expected);
    const document = JSON.parse(delivery.body) as {
      type: string;
      intent: { id: string; route_id: string; payload: unknown; ack: string };
    };
    expect(document).toMatchObject({
      type: 'dispatch',
      intent: { id: started.dispatch!.id, route_id: 'hooked-1', payload: { prompt: 'hi' } },
    });
    const acked = await call(base, 'adapter', 'POST', document.intent.ack);
    expect(acked.body).toMatchObject({ result: 'acknowledged', route: { dispatch: { acknowledged: true } } });
  });

  it('a webhook that answers 500 makes the dispatch uncertain: the route stops for a person, never sent again', async () => {
    answerStatus = 500;
    const base = await serviceWithHook(60_000);
    const before = received.length;
    await call(base, 'adapter', 'POST', '/v1/routes', { route_id: 'hooked-2', profile_id: 'hooked' });
    await expect
      .poll(
        async () => ((await call(base, 'viewer', 'GET', '/v1/routes/hooked-2')).body as RouteDocument).reason,
      )
      .toBe('ambiguous_dispatch');
    const route = (await call(base, 'viewer', 'GET', '/v1/routes/hooked-2')).body as RouteDocument;
    expect(route).toMatchObject({ state: 'action_required', uncertain_candidate: 'only' });
    expect(received.length - before).toBe(1);
  });

  /** A failed delivery stops the route as ambiguous_dispatch and is logged, once, without body, payload or secret. */
  async function failedDelivery(url: string, routeId: string): Promise<Record<string, unknown>> {
    const log: string[] = [];
    const base = await serviceWithHook(60_000, url, log);
    await call(base, 'adapter', 'POST', '/v1/routes', {
      route_id: routeId,
      profile_id: 'hooked',
      payload: { prompt: 'PAYLOAD-MARKER' },
    });
    await expect
      .poll(
        async () =>
          ((await call(base, 'viewer', 'GET', `/v1/routes/${routeId}`)).body as RouteDocument).reason,
      )
      .toBe('ambiguous_dispatch');
    await expect.poll(() => log.join('')).toContain('webhook delivery failed');
    const text = log.join('');
    expect(text).not.toContain('PAYLOAD-MARKER');
    expect(text).not.toContain(secret);
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => String(l.msg).startsWith('webhook delivery failed'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, route: routeId });
    return lines[0]!;
  }

  it('a webhook that answers 500 is logged as a failed delivery (warn, the status, no payload or secret)', async () => {
    answerStatus = 500;
    const line = await failedDelivery(receiverUrl, 'hooked-log-500');
    expect(line.reason).toBe('the webhook answered 500');
  });

  it('a webhook that refuses the connection is logged as a failed delivery', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const line = await failedDelivery(`http://127.0.0.1:${port}/hook`, 'hooked-refused');
    expect(line.reason).toBe('ECONNREFUSED');
  });

  it('a redirect from the webhook is not followed: the intent goes nowhere else, the delivery failed and is logged', async () => {
    answerStatus = 200;
    const before = received.length;
    const line = await failedDelivery(receiverUrl.replace(/\/hook$/, '/moved'), 'hooked-moved');
    expect(line.reason).toBe('the webhook answered 307, a redirect (not followed)');
    expect(received.slice(before).map((r) => r.path)).toEqual(['/moved']);
  });

  it('a webhook URL with a user or password is refused at start, its password masked', async () => {
    await expect(
      startTestService({
        webhookUrl: 'http://user:hunter2-secret@127.0.0.1:7982/hook',
        webhookSecret: secret,
      }),
    ).rejects.toThrow(
      /^the webhook URL must not carry a user or password \(got "http:\/\/user:\*\*\*@127\.0\.0\.1:7982\/hook"\)/,
    );
  });

  it('a webhook URL on a port fetch refuses (the Fetch standard bad ports) is refused at start: no delivery could succeed', async () => {
    await expect(
      startTestService({ webhookUrl: 'http://127.0.0.1:10080/hook', webhookSecret: secret }),
    ).rejects.toThrow(
      /^the webhook URL port 10080 is a port that browsers and fetch refuse to connect to \(the Fetch standard's bad ports\): no delivery could ever be made$/,
    );
  });
});

function sink(lines: string[]): NodeJS.WritableStream {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
}
