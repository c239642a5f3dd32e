import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openRecourse } from '../../src/app/index.js';
import type { RouteState } from '../../src/core/index.js';
import { demoDispatcher, startDemoFleet } from '../../src/demo/index.js';
import type { EngineEvent } from '../../src/engine/index.js';

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

/**
 * The same fleet on the wall clock, as `recourse serve --demo` runs it: the first scripted failures arrive within
 * seconds, and a stop followed by close ends everything (a report after the close would be an error event or an
 * unhandled rejection, which fails the test run).
 */
it('runs on the real clock: a retry wait and a recovery within seconds, then a clean stop', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'recourse-demo-real-'));
  folders.push(folder);
  const events: EngineEvent[] = [];
  const entered = (state: RouteState, from?: RouteState) =>
    events.some(
      (e) => e.type === 'transition' && e.route.state === state && (from === undefined || e.from === from),
    );
  let wake: () => void = () => undefined;
  const dispatcher = demoDispatcher();
  const recourse = await openRecourse({
    database: join(folder, 'recourse.db'),
    dispatcher,
    onEvent: (event) => {
      events.push(event);
      wake();
    },
  });
  const fleet = await startDemoFleet({ recourse, dispatcher });
  const deadline = Date.now() + 20_000;
  while (!(entered('retry_wait') && entered('active', 'retrying')) && Date.now() < deadline) {
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, 250);
    });
  }
  await fleet.stop();
  await recourse.close();
  expect(entered('retry_wait')).toBe(true);
  expect(entered('active', 'retrying')).toBe(true);
  const closedAt = events.length;
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(events.slice(closedAt)).toEqual([]);
  expect(events.filter((e) => e.type === 'error')).toEqual([]);
});
