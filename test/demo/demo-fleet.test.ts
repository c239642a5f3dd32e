import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRecourse } from '../../src/app/index.js';
import { routeStates, type Route } from '../../src/core/index.js';
import { formatFleetSummary } from '../../src/demo/index.js';
import { allRoutes } from '../../src/demo/all-routes.js';
import { ManualClock, type EngineEvent } from '../../src/engine/index.js';
import { openDemo, runFor, statesEntered, type DemoRun } from './demo-harness.js';

const t0 = Date.parse('2026-06-01T12:00:00Z');
const folders: string[] = [];
const open: DemoRun[] = [];

afterEach(async () => {
  for (const run of open.splice(0)) {
    await run.fleet.stop();
    await run.recourse.close().catch(() => undefined);
  }
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function database(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'recourse-demo-'));
  folders.push(folder);
  return join(folder, 'recourse.db');
}

async function start(file: string, startMs = t0): Promise<DemoRun> {
  const run = await openDemo(file, startMs);
  open.push(run);
  return run;
}

async function stopAndClose(run: DemoRun): Promise<void> {
  await run.fleet.stop();
  await run.recourse.close();
  open.splice(open.indexOf(run), 1);
}

type Transition = Extract<EngineEvent, { type: 'transition' }>;
const transitions = (events: readonly EngineEvent[]): Transition[] =>
  events.filter((e): e is Transition => e.type === 'transition');

/** What the route's own fields promise for its state: a wait has its deadline, a stop its reason, a run its attempt. */
function consistent(route: Route): boolean {
  switch (route.state) {
    case 'waiting_for_reset':
    case 'retry_wait':
      return Number.isFinite(route.deadlineMs);
    case 'action_required':
      return route.reason.length > 0;
    case 'retrying':
    case 'switching':
      return route.dispatch !== null && !route.dispatch.finished;
    case 'active':
      return true;
  }
}

describe('the demo fleet on the real engine (manual clock)', () => {
  it('[SCN-04][SCN-06][SCN-07] within 30 s every state shows, routes switch and recover, and stops are answered; within 90 s a transient budget skips', async () => {
    const run = await start(await database());
    await runFor(run, 30_000);
    const seen = transitions(run.events);

    expect([...statesEntered(run.events)].sort()).toEqual([...routeStates].sort());
    // Recovery: back to active after a failure, on the same candidate (a retry) and on a successor.
    expect(seen.some((t) => t.route.state === 'active' && t.from === 'retrying')).toBe(true);
    expect(seen.some((t) => t.route.state === 'active' && t.from === 'switching')).toBe(true);
    // The rate limit waits for its trusted reset; a hard failure skips to the next candidate.
    expect(seen.some((t) => t.decision === 'wait_for_reset' && t.route.state === 'waiting_for_reset')).toBe(
      true,
    );
    expect(seen.some((t) => t.decision === 'skip' && t.classification?.class === 'hard')).toBe(true);
    // SCN-06 and SCN-07: an unknown error and a failure after tool activity stop for a person.
    const stops = seen.filter((t) => t.route.state === 'action_required');
    const reasons = new Set(stops.map((t) => (t.route.state === 'action_required' ? t.route.reason : '')));
    expect(reasons).toContain('unclassified');
    expect(reasons).toContain('unsafe');

    // The scripted operator answers each stop after about 10 s: no route stays stopped for long.
    await runFor(run, 15_000);
    const early = stops.filter((t) => t.atMs < t0 + 30_000).map((t) => t.route.id);
    const later = transitions(run.events).filter((t) => t.from === 'action_required');
    for (const id of early)
      expect(
        later.some((t) => t.route.id === id),
        id,
      ).toBe(true);
    expect(run.logs.filter((l) => l.message.startsWith('operator:')).length).toBeGreaterThan(0);

    // SCN-04: a transient budget used up with skip moves the same route to its next candidate. It takes longer than
    // 30 s: routes held behind a circuit's probe go as soon as it succeeds, so fewer retries meet an open circuit.
    await runFor(run, 45_000);
    expect(
      transitions(run.events).some(
        (t) => t.from === 'retrying' && t.decision === 'skip' && t.classification?.class === 'transient',
      ),
    ).toBe(true);

    expect(run.events.filter((e) => e.type === 'error')).toEqual([]);
    expect(run.logs.filter((l) => l.level === 'warn')).toEqual([]);
    const summary = await run.fleet.summary();
    expect(summary.recovered).toBeGreaterThan(0);
    expect(summary.switched).toBeGreaterThan(0);
    expect(summary.operatorActions).toBeGreaterThan(0);
    expect(formatFleetSummary(summary)).toMatch(
      /^\d+ routes: .* \| since start: \d+ recovered, \d+ switched/,
    );
  });

  it('stop leaves no timer and no report behind, and every route in a state its fields support', async () => {
    const file = await database();
    const run = await start(file);
    await runFor(run, 17_500);
    await run.fleet.stop();
    // Only the engine's own timer is left (durable waits).
    expect(run.clock.pending()).toBeLessThanOrEqual(1);
    // The engine runs on: waits fall due and their attempts are sent, and accepted at once by the stopped fleet's
    // dispatcher. Nothing of the fleet's reaches it: no report, no prompt, no start, no action.
    const before = run.events.length;
    await runFor(run, 90_000);
    const after = run.events.slice(before);
    const engineOwn = new Set(['deadline', 'circuit_hold', 'circuit_skip', 'successor_active']);
    expect(
      transitions(after)
        .map((t) => t.decision)
        .filter((d) => !engineOwn.has(d)),
    ).toEqual([]);
    expect(
      after.filter((e) => !['transition', 'dispatch', 'dispatch_acknowledged', 'circuit'].includes(e.type)),
    ).toEqual([]);
    const routes = await allRoutes(run.recourse.engine);
    expect(routes.length).toBeGreaterThanOrEqual(12);
    for (const route of routes) expect(consistent(route), `${route.id} ${route.state}`).toBe(true);
    await run.recourse.close();
    open.splice(open.indexOf(run), 1);
    expect(run.clock.pending()).toBe(0);

    // A clean shutdown leaves no ambiguous dispatch: at worst attempts that were running (orphaned).
    const reopened = await openRecourse({
      database: file,
      dispatcher: { dispatch: () => Promise.resolve() },
    });
    expect(reopened.report.stopped).toEqual([]);
    await reopened.close();
  });

  it('[DUR-05] a restart on the same file continues: waits re-armed, orphaned attempts taken over, the loop goes on', async () => {
    const file = await database();
    const first = await start(file);
    await runFor(first, 20_000);
    await stopAndClose(first);

    const second = await start(file, first.clock.now() + 5_000);
    const reconciled = second.events.find((e) => e.type === 'reconciled');
    if (reconciled?.type !== 'reconciled') throw new Error('no reconciliation report');
    const { rearmed, orphaned, stopped } = reconciled.report;
    expect(stopped).toEqual([]);
    expect(rearmed.length + orphaned.length).toBeGreaterThan(0);
    await runFor(second, 60_000);

    // Every re-armed wait fires (a circuit another route opened may hold it once more: that is its firing too).
    const seen = transitions(second.events);
    const fired = new Set(['deadline', 'circuit_hold', 'circuit_skip']);
    for (const r of rearmed)
      expect(
        seen.some((t) => t.route.id === r.id && fired.has(t.decision)),
        r.id,
      ).toBe(true);
    for (const o of orphaned)
      expect(
        seen.some((t) => t.route.id === o.routeId && t.decision === 'retry_now'),
        o.routeId,
      ).toBe(true);
    expect(seen.some((t) => t.decision === 'success')).toBe(true);
    expect(second.events.filter((e) => e.type === 'error')).toEqual([]);
    expect(second.logs.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('Recourse closed before the fleet stopped: the fleet goes quiet, and stop still ends it', async () => {
    const run = await start(await database());
    await runFor(run, 12_000);
    await run.recourse.close();
    await runFor(run, 10_000);
    await run.fleet.stop();
    open.splice(open.indexOf(run), 1);
    expect(run.clock.pending()).toBe(0);
    expect(run.logs.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('keeps the database small: finished tasks are purged, the dozen sessions go on', async () => {
    const run = await start(await database());
    let most = 0;
    for (let i = 0; i < 24; i++) {
      await runFor(run, 10_000);
      most = Math.max(most, (await allRoutes(run.recourse.engine)).length);
    }
    expect(run.logs.some((l) => l.message.startsWith('purged'))).toBe(true);
    // A dozen live tasks and those finished within the last minute and a half or so.
    expect(most).toBeLessThanOrEqual(40);
    const summary = await run.fleet.summary();
    expect(summary.routes).toBeGreaterThanOrEqual(12);
  });

  it('purges only its own tasks: a finished route of another caller in the same database stays', async () => {
    const file = await database();
    // Someone else's route, finished ten minutes before the demo starts, on a profile of their own.
    const clock = new ManualClock(t0 - 600_000);
    const theirs = await openRecourse({ database: file, clock, run: () => Promise.resolve() });
    await theirs.engine.saveProfile({
      id: 'mine',
      name: 'Mine',
      candidates: [{ profile_id: 'a', enabled: true }],
    });
    await theirs.engine.startRoute({ routeId: 'mine-1', profileId: 'mine', payload: { prompt: 'keep me' } });
    await theirs.engine.waitFor('mine-1', (r) => r.outcome === 'succeeded');
    await theirs.close();

    const run = await start(file);
    await runFor(run, 180_000);
    expect(run.logs.some((l) => l.message.startsWith('purged'))).toBe(true);
    const kept = await run.recourse.engine.route('mine-1');
    expect(kept?.outcome).toBe('succeeded');
  });

  it('is deterministic given a seed and a manual clock', async () => {
    const trace = async () => {
      const run = await start(await database());
      await runFor(run, 25_000);
      const lines = transitions(run.events).map(
        (t) => `${t.atMs - t0} ${t.route.id} ${t.route.state} ${t.decision} ${t.route.candidate}`,
      );
      await stopAndClose(run);
      return lines;
    };
    expect(await trace()).toEqual(await trace());
  });
});
