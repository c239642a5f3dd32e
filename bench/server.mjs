// The HTTP service's figures over loopback (npm run bench:server). A benchmark, not a test. The server runs in a
// child process (startService on a temp-dir SQLite file, as `recourse serve` does), the clients in this one (global
// fetch, keep-alive), so each side's CPU time is its own; on a 2-core machine they share the cores as a local
// orchestrator and its server would.
//  1. Route actions: 50 concurrent clients, each owning 1/50 of 1,000 routes (all in retry_wait to begin with),
//     drive every route around the cycle cancel (retry_wait or retrying -> action_required), retry_now
//     (-> retrying, a new generation and dispatch), ack of that dispatch, each with the generation and dispatch id
//     the previous answer gave, for 10 s; then 5 s of GET /v1/routes/{id}. Baseline: the same cycle and reads in
//     the server process, making the engine calls the endpoints make (engine.act; the ack dispatcher's acknowledge,
//     engine.idle and engine.route; engine.route), at the same concurrency: what is left is the HTTP overhead.
//  2. SSE fan-out: 200 clients on GET /v1/events (fetch's body reader), then K transitions (alternately cancel and
//     retry_now, no acks) through the API: from 1 sender that waits until every client has a transition before the
//     next (latency), and from 50 senders that do not (throughput). Per transition, the time from its request to
//     the last of the 200 clients receiving its route.transition event; events and deliveries per second; the
//     server's CPU time per event. Baseline: the same transitions with no client connected.
// Everything is warmed up first. The machine and its load average are printed: other work on a shared machine
// shows in every figure, and in neither process's CPU time.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const tokens = {
  admin: 'bench-admin-token-0123456789',
  operator: 'bench-operator-token-0123456789',
  adapter: 'bench-adapter-token-0123456789',
};
const overloaded = {
  kind: 'http',
  status: 529,
  provider: 'anthropic',
  body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
};
const off = { enabled: false, max_retries: 0, initial_interval_seconds: 0 };
const noWait = { enabled: false, max_wait_seconds: 0 };
// Transient failures retry after an hour: no timer fires during the run.
const policy = {
  version: 1,
  transient: {
    retry: { enabled: true, max_retries: 3, initial_interval_seconds: 3600 },
    wait_for_reset: noWait,
    on_exhausted: 'stop',
  },
  hard: { retry: off, wait_for_reset: noWait, on_exhausted: 'stop' },
};
const profile = {
  name: 'bench',
  candidates: [{ profile_id: 'a', provider: 'bench-a', policy }],
};

const routeCount = 1000;
const concurrency = 50;
const sseClients = 200;
const warmupMs = 2000;
const actionsMs = 10_000;
const readsMs = 5000;
const pacedTransitions = 500;
const burstTransitions = 2000;

const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];
const latencies = (values) => {
  const sorted = Float64Array.from(values).sort();
  return {
    n: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1),
  };
};

/**
 * Drives each route around cancel -> retry_now -> ack with `clients` concurrent loops for `ms`; every step uses
 * the generation and dispatch id the previous answer gave. `ops` does one step and returns the route's new
 * `{generation, dispatchId}`.
 */
async function cycle(ops, routes, clients, ms) {
  const times = { cancel: [], retry_now: [], ack: [] };
  const started = performance.now();
  const deadline = started + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const mine = routes.filter((_, i) => i % clients === c);
      for (let k = 0; performance.now() < deadline; k++) {
        const r = mine[k % mine.length];
        const step = r.dispatchId !== null ? 'ack' : r.state === 'action_required' ? 'retry_now' : 'cancel';
        const t = performance.now();
        Object.assign(r, await ops[step](r));
        times[step].push(performance.now() - t);
        r.state = step === 'cancel' ? 'action_required' : 'retrying';
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const all = [...times.cancel, ...times.retry_now, ...times.ack];
  return {
    seconds,
    actions: (times.cancel.length + times.retry_now.length) / seconds,
    requests: all.length / seconds,
    all: latencies(all),
    cancel: latencies(times.cancel),
    retry_now: latencies(times.retry_now),
    ack: latencies(times.ack),
  };
}

/** `clients` concurrent loops reading their routes for `ms`. */
async function reads(read, routes, clients, ms) {
  const times = [];
  const started = performance.now();
  const deadline = started + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const mine = routes.filter((_, i) => i % clients === c);
      for (let k = 0; performance.now() < deadline; k++) {
        const t = performance.now();
        await read(mine[k % mine.length]);
        times.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { seconds, requests: times.length / seconds, all: latencies(times) };
}

const expect = (ok, what, detail) => {
  if (!ok) throw new Error(`${what}: ${JSON.stringify(detail).slice(0, 400)}`);
};

// ---------------------------------------------------------------------------------------------------------------
// The server process.

async function serverProcess() {
  const { startService } = await import('../dist/server/service.js');
  const { AckDispatcher } = await import('../dist/server/ack-dispatcher.js');
  let service = null;
  let folder = null;
  let acks = null;
  let routes = [];
  let connections = 0;
  const ackTimeoutMs = 3_600_000;
  const engine = () => service.recourse.engine;
  const inProcessOps = {
    async cancel(r) {
      const o = await engine().act({ routeId: r.id, action: 'cancel', expectedGeneration: r.generation });
      expect(o.outcome === 'changed', 'cancel', o);
      return { generation: o.route.generation };
    },
    async retry_now(r) {
      const o = await engine().act({ routeId: r.id, action: 'retry_now', expectedGeneration: r.generation });
      expect(o.outcome === 'changed' && o.route.dispatch !== null, 'retry_now', o);
      return { generation: o.route.generation, dispatchId: o.route.dispatch.intentId };
    },
    // What the ack endpoint does, less the JSON document.
    async ack(r) {
      // The intent is handed to the dispatcher just after the commit that answered retry_now.
      for (let turn = 0; !acks.acknowledge(r.id, r.dispatchId); turn++) {
        expect(turn < 100, 'ack: the dispatch never reached the dispatcher', r);
        await new Promise((resolve) => setImmediate(resolve));
      }
      await engine().idle();
      const route = await engine().route(r.id);
      expect(route.dispatch?.acknowledged === true, 'ack', route);
      return { dispatchId: null };
    },
  };
  const commands = {
    /** The service as `recourse serve` runs it; `inProcess` swaps in an ack dispatcher this process can call. */
    async start({ inProcess }) {
      folder = mkdtempSync(join(tmpdir(), 'recourse-bench-server-'));
      acks = inProcess ? new AckDispatcher({ deliver: () => Promise.resolve(), ackTimeoutMs }) : null;
      service = await startService({
        port: 0,
        host: '127.0.0.1',
        database: join(folder, 'bench.db'),
        tokens: Object.entries(tokens).map(([role, token]) => ({ role, token })),
        version: 'bench',
        logLevel: 'silent',
        ackTimeoutMs,
        ...(inProcess ? { dispatcher: () => acks } : {}),
      });
      connections = 0;
      service.app.server.on('connection', () => connections++);
      return { url: service.url };
    },
    /** The same set-up as the HTTP one, through the engine calls the endpoints make. */
    async seed({ count }) {
      await engine().saveProfile({ ...profile, id: 'bench' });
      routes = [];
      for (let i = 0; i < count; i++) {
        const started = await engine().startRoute({ routeId: `r${i}`, profileId: 'bench' });
        routes.push({
          id: started.id,
          generation: started.generation,
          dispatchId: started.dispatch.intentId,
        });
      }
      for (const r of routes) Object.assign(r, await inProcessOps.ack(r));
      for (const r of routes) {
        const o = await engine().reportFailure({
          routeId: r.id,
          generation: r.generation,
          invocationId: (await engine().route(r.id)).dispatch.intentId,
          evidence: overloaded,
          progress: {},
        });
        expect(o.route.state === 'retry_wait', 'evidence', o);
        Object.assign(r, { state: 'retry_wait', generation: o.route.generation, dispatchId: null });
      }
    },
    // The routes stay here: each step needs the generation the previous one left.
    cycle: ({ clients, ms }) => cycle(inProcessOps, routes, clients, ms),
    reads: ({ clients, ms }) => reads((r) => engine().route(r.id), routes, clients, ms),
    cpu: () => process.cpuUsage(),
    connections: () => connections,
    lastEventId: () => service.recourse.events.lastId(),
    async stop() {
      await service.close();
      rmSync(folder, { recursive: true, force: true });
      service = null;
    },
  };
  process.on('message', ({ id, command, args }) => {
    Promise.resolve()
      .then(() => commands[command](args))
      .then(
        (result) => process.send({ id, result }),
        (error) => process.send({ id, error: error.stack ?? String(error) }),
      );
  });
  process.send({ ready: true });
}

// ---------------------------------------------------------------------------------------------------------------
// The clients' process.

/** The server child, and `call(command, args)` answered by it. */
async function serverChild() {
  const child = fork(fileURLToPath(import.meta.url), ['server'], { stdio: 'inherit' });
  const pending = new Map();
  let next = 0;
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('error', reject);
  });
  child.on('message', ({ id, result, error }) => {
    const p = pending.get(id);
    pending.delete(id);
    if (error === undefined) p.resolve(result);
    else p.reject(new Error(`in the server process: ${error}`));
  });
  child.on('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`the server process exited (${code})`));
  });
  return {
    call: (command, args) =>
      new Promise((resolve, reject) => {
        pending.set(++next, { resolve, reject });
        child.send({ id: next, command, args });
      }),
    end: () => child.disconnect(),
  };
}

function client(url) {
  return async (role, method, path, body) => {
    const response = await fetch(url + path, {
      method,
      headers: {
        authorization: `Bearer ${tokens[role]}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
}

function httpOps(call) {
  const act = async (r, action) => {
    const a = await call('operator', 'POST', `/v1/routes/${r.id}/actions`, {
      action,
      expected_generation: r.generation,
    });
    expect(a.status === 200 && a.body.result === 'changed', action, a);
    return a.body.route;
  };
  return {
    cancel: async (r) => ({ generation: (await act(r, 'cancel')).generation }),
    async retry_now(r) {
      const route = await act(r, 'retry_now');
      return { generation: route.generation, dispatchId: route.dispatch.id };
    },
    async ack(r) {
      const a = await call('adapter', 'POST', `/v1/routes/${r.id}/dispatches/${r.dispatchId}/ack`);
      expect(a.status === 200 && a.body.result === 'acknowledged', 'ack', a);
      return { dispatchId: null };
    },
  };
}

/** A profile and `count` routes in retry_wait, as an adapter brings them there. */
async function seedOverHttp(call, count) {
  expect((await call('admin', 'PUT', '/v1/profiles/bench', profile)).status === 200, 'profile');
  const ops = httpOps(call);
  const routes = [];
  for (let i = 0; i < count; i++) {
    const a = await call('adapter', 'POST', '/v1/routes', { route_id: `r${i}`, profile_id: 'bench' });
    expect(a.status === 201, 'start', a);
    routes.push({ id: a.body.id, generation: a.body.generation, dispatchId: a.body.dispatch.id });
  }
  // All acknowledged before the first failure: the failures open the candidate's circuit, and a route started
  // behind an open circuit would wait.
  for (const r of routes) {
    const invocationId = r.dispatchId;
    Object.assign(r, await ops.ack(r));
    const a = await call('adapter', 'POST', `/v1/routes/${r.id}/evidence`, {
      envelope: overloaded,
      generation: r.generation,
      invocation_id: invocationId,
      replay: {},
    });
    expect(a.status === 200 && a.body.route.state === 'retry_wait', 'evidence', a);
    Object.assign(r, { state: 'retry_wait', generation: a.body.route.generation });
  }
  return routes;
}

/**
 * `count` clients on GET /v1/events, reading the stream with fetch's body reader. `arrival(key)` resolves with
 * the time the last of them received the route.transition whose key (route, generation, decision) is given.
 */
async function eventClients(url, count) {
  const byEventId = new Map();
  const byKey = new Map();
  let deliveries = 0;
  const entry = (key) => {
    let e = byKey.get(key);
    if (e === undefined) byKey.set(key, (e = { count: 0, lastAt: 0, resolve: null }));
    return e;
  };
  const onEvent = (id, type, data) => {
    deliveries++;
    if (type !== 'route.transition') return;
    // The first client to receive an event parses it; the others find it by its id.
    let e = byEventId.get(id);
    if (e === undefined) {
      const { route, decision } = JSON.parse(data);
      byEventId.set(id, (e = entry(`${route.id}/${route.generation}/${decision}`)));
    }
    e.count++;
    e.lastAt = performance.now();
    if (e.count === count) e.resolve?.(e.lastAt);
  };
  const aborts = [];
  const ready = [];
  const reading = [];
  for (let i = 0; i < count; i++) {
    const abort = new AbortController();
    aborts.push(abort);
    const response = await fetch(`${url}/v1/events`, {
      headers: { authorization: `Bearer ${tokens.operator}` },
      signal: abort.signal,
    });
    expect(response.status === 200, 'events', response.status);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let first;
    ready.push(new Promise((resolve) => (first = resolve)));
    reading.push(
      (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += value;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            first();
            let id = null;
            let type = null;
            let data = null;
            for (const line of frame.split('\n')) {
              if (line.startsWith('id: ')) id = line.slice(4);
              else if (line.startsWith('event: ')) type = line.slice(7);
              else if (line.startsWith('data: ')) data = line.slice(6);
            }
            if (id !== null) onEvent(id, type, data);
          }
        }
      })().catch((error) => {
        if (error.name !== 'AbortError') throw error;
      }),
    );
  }
  await Promise.all(ready);
  return {
    deliveries: () => deliveries,
    arrival(key) {
      const e = entry(key);
      return e.count === count ? e.lastAt : new Promise((resolve) => (e.resolve = resolve));
    },
    async close() {
      for (const a of aborts) a.abort();
      await Promise.all(reading);
    },
  };
}

/**
 * `count` transitions through the API from `senders` concurrent loops (alternately cancel and retry_now on each of
 * their routes; no acks): the answer latency and, with `clients`, the time from each request until the last client
 * has its route.transition event. With `paced` a sender waits for that before its next request; otherwise the
 * deliveries are collected as they come, and the run ends with the last one.
 */
async function fanOut(server, call, routes, { senders, count, clients = null, paced = false }) {
  const answered = [];
  const delivered = [];
  const arrivals = [];
  const eventsBefore = await server.call('lastEventId');
  const deliveriesBefore = clients?.deliveries() ?? 0;
  let issued = 0;
  const run = await withCpu(server, async () => {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: senders }, async (_, c) => {
        const mine = routes.filter((_, i) => i % senders === c);
        for (let k = 0; issued < count; k++) {
          issued++;
          const r = mine[k % mine.length];
          const action = r.state === 'action_required' ? 'retry_now' : 'cancel';
          const t = performance.now();
          const a = await call('operator', 'POST', `/v1/routes/${r.id}/actions`, {
            action,
            expected_generation: r.generation,
          });
          answered.push(performance.now() - t);
          expect(a.status === 200 && a.body.result === 'changed', action, a);
          Object.assign(r, { state: a.body.route.state, generation: a.body.route.generation });
          if (clients === null) continue;
          const arrival = Promise.resolve(clients.arrival(`${r.id}/${r.generation}/${action}`)).then((at) =>
            delivered.push(at - t),
          );
          if (paced) await arrival;
          else arrivals.push(arrival);
        }
      }),
    );
    await Promise.all(arrivals);
    return { seconds: (performance.now() - started) / 1000 };
  });
  const events = (await server.call('lastEventId')) - eventsBefore;
  return {
    events,
    eventsPerSecond: events / run.seconds,
    deliveriesPerSecond: ((clients?.deliveries() ?? 0) - deliveriesBefore) / run.seconds,
    serverCpuMsPerEvent: run.serverCpuMs / events,
    clientCores: run.clientCpuMs / 1000 / run.seconds,
    answered: latencies(answered),
    delivered: delivered.length > 0 ? latencies(delivered) : null,
  };
}

/** Runs `work` and adds both processes' CPU time over it (ms per second of wall time: 1,000 is one core busy). */
async function withCpu(server, work) {
  const serverBefore = await server.call('cpu');
  const clientBefore = process.cpuUsage();
  const result = await work();
  const serverAfter = await server.call('cpu');
  const clientAfter = process.cpuUsage();
  const ms = (a, b) => (a.user + a.system - b.user - b.system) / 1000;
  return {
    ...result,
    serverCpuMs: ms(serverAfter, serverBefore),
    clientCpuMs: ms(clientAfter, clientBefore),
  };
}

function table(title, rows) {
  const width = Math.max(...rows.map((r) => r[0].length));
  console.log(`\n${title}`);
  for (const [label, measured, baseline] of rows) {
    console.log(
      `  ${label.padEnd(width)}  ${String(measured).padStart(12)}  ${String(baseline).padStart(12)}`,
    );
  }
}

async function main() {
  const cpu = cpus();
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(
    `Recourse HTTP service benchmark: Node ${process.version}, ${cpu.length} × ${cpu[0]?.model.trim()}, load average ${load()} (1, 5, 15 min) at the start`,
  );
  const ms = (v) => `${fmt(v, 2)} ms`;
  const pair = (a, b) => `${fmt(a, 1)} / ${fmt(b, 1)}`;
  const cores = (run, seconds) =>
    `${fmt(run.serverCpuMs / 1000 / seconds, 2)} + ${fmt(run.clientCpuMs / 1000 / seconds, 2)}`;

  // 1. Route actions over HTTP, then the same calls in the server process.
  const server = await serverChild();
  const { url } = await server.call('start', { inProcess: false });
  const call = client(url);
  const routes = await seedOverHttp(call, routeCount);
  const ops = httpOps(call);
  await cycle(ops, routes, concurrency, warmupMs);
  const httpCycle = await withCpu(server, () => cycle(ops, routes, concurrency, actionsMs));
  const read = (r) =>
    call('operator', 'GET', `/v1/routes/${r.id}`).then((a) => expect(a.status === 200, 'read', a));
  await reads(read, routes, concurrency, warmupMs);
  const httpReads = await withCpu(server, () => reads(read, routes, concurrency, readsMs));
  const connections = await server.call('connections');
  await server.call('stop');

  await server.call('start', { inProcess: true });
  await server.call('seed', { count: routeCount });
  await server.call('cycle', { clients: concurrency, ms: warmupMs });
  const localCycle = await withCpu(server, () =>
    server.call('cycle', { clients: concurrency, ms: actionsMs }),
  );
  await server.call('reads', { clients: concurrency, ms: warmupMs });
  const localReads = await withCpu(server, () => server.call('reads', { clients: concurrency, ms: readsMs }));
  await server.call('stop');
  const loadAfterActions = load();

  // 2. SSE fan-out: a warm-up, then each mode without clients and with them.
  const { url: sseUrl } = await server.call('start', { inProcess: false });
  const sseCall = client(sseUrl);
  const sseRoutes = await seedOverHttp(sseCall, 200);
  await fanOut(server, sseCall, sseRoutes, { senders: concurrency, count: 500 });
  const modes = [
    {
      name: `1 sender, each transition after the last delivery of the previous one`,
      senders: 1,
      count: pacedTransitions,
      paced: true,
    },
    {
      name: `${concurrency} senders, not waiting for deliveries`,
      senders: concurrency,
      count: burstTransitions,
      paced: false,
    },
  ];
  for (const mode of modes) {
    mode.none = await fanOut(server, sseCall, sseRoutes, mode);
    const clients = await eventClients(sseUrl, sseClients);
    await fanOut(server, sseCall, sseRoutes, { ...mode, count: 100, clients });
    mode.many = await fanOut(server, sseCall, sseRoutes, { ...mode, clients });
    await clients.close();
  }
  await server.call('stop');
  server.end();

  table(
    `1. Route actions: ${concurrency} concurrent clients over ${fmt(routeCount)} routes for ${actionsMs / 1000} s, each route cycling cancel -> retry_now -> ack of its dispatch`,
    [
      ['', 'HTTP', 'in-process'],
      ['actions/s (cancel + retry_now)', fmt(httpCycle.actions), fmt(localCycle.actions)],
      ['requests/s (actions + acks)', fmt(httpCycle.requests), fmt(localCycle.requests)],
      ['latency p50, every request', ms(httpCycle.all.p50), ms(localCycle.all.p50)],
      ['latency p99, every request', ms(httpCycle.all.p99), ms(localCycle.all.p99)],
      ['latency max, every request', ms(httpCycle.all.max), ms(localCycle.all.max)],
      ...['cancel', 'retry_now', 'ack'].map((k) => [
        `${k} p50 / p99 ms`,
        pair(httpCycle[k].p50, httpCycle[k].p99),
        pair(localCycle[k].p50, localCycle[k].p99),
      ]),
      [
        'server CPU per request',
        ms(httpCycle.serverCpuMs / (httpCycle.requests * httpCycle.seconds)),
        ms(localCycle.serverCpuMs / (localCycle.requests * localCycle.seconds)),
      ],
      [
        'cores busy, server + clients',
        cores(httpCycle, httpCycle.seconds),
        cores(localCycle, localCycle.seconds),
      ],
      [
        `GET /v1/routes/{id} reads/s (${readsMs / 1000} s)`,
        fmt(httpReads.requests),
        fmt(localReads.requests),
      ],
      [
        'read latency p50 / p99 / max ms',
        `${pair(httpReads.all.p50, httpReads.all.p99)} / ${fmt(httpReads.all.max, 1)}`,
        `${pair(localReads.all.p50, localReads.all.p99)} / ${fmt(localReads.all.max, 1)}`,
      ],
      [
        'server CPU per read',
        ms(httpReads.serverCpuMs / (httpReads.requests * httpReads.seconds)),
        ms(localReads.serverCpuMs / (localReads.requests * localReads.seconds)),
      ],
      [
        'cores busy, server + clients',
        cores(httpReads, httpReads.seconds),
        cores(localReads, localReads.seconds),
      ],
    ],
  );
  console.log(
    `  (${fmt(connections)} TCP connections opened over part 1's HTTP runs, set-up included: keep-alive; load average after part 1: ${loadAfterActions})`,
  );
  for (const { name, count, many, none } of modes) {
    table(`2. SSE fan-out: ${fmt(count)} transitions (cancel, retry_now) through the API, ${name}`, [
      ['', `${sseClients} clients`, '0 clients'],
      ['events logged (transitions + dispatches)', fmt(many.events), fmt(none.events)],
      ['events/s', fmt(many.eventsPerSecond), fmt(none.eventsPerSecond)],
      ['deliveries/s (events × clients)', fmt(many.deliveriesPerSecond), '-'],
      ['request -> last client has it, p50', ms(many.delivered.p50), '-'],
      ['request -> last client has it, p99', ms(many.delivered.p99), '-'],
      ['request -> last client has it, max', ms(many.delivered.max), '-'],
      [
        'action answer p50 / p99 ms',
        pair(many.answered.p50, many.answered.p99),
        pair(none.answered.p50, none.answered.p99),
      ],
      ['server CPU per event', ms(many.serverCpuMsPerEvent), ms(none.serverCpuMsPerEvent)],
      [
        'added server CPU per delivery',
        `${fmt(((many.serverCpuMsPerEvent - none.serverCpuMsPerEvent) * 1000) / sseClients, 1)} µs`,
        '-',
      ],
      ['client process, cores busy', fmt(many.clientCores, 2), fmt(none.clientCores, 2)],
    ]);
  }
  console.log(`\nload average at the end: ${load()}`);
}

if (process.argv[2] === 'server') await serverProcess();
else await main();
