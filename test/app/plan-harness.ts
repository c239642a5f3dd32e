import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { PlanLifecycle, PlanService, type PlanServiceOptions } from '../../src/app/index.js';
import type { Store } from '../../src/core/index.js';
import { openSqliteStore } from '../../src/store/index.js';

const folders: string[] = [];
afterAll(async () => {
  for (const f of folders) await rm(f, { recursive: true, force: true });
});

export const t0 = Date.UTC(2026, 5, 1, 12);

/** A fresh SQLite file in a temporary folder. */
export async function tempPlanDatabase(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'recourse-plans-'));
  folders.push(folder);
  return join(folder, 'recourse.db');
}

export interface PlanWorld {
  readonly store: Store;
  readonly lifecycle: PlanLifecycle;
  readonly service: PlanService;
  /** Moves the clock the lifecycle reads. */
  tick(ms?: number): void;
  close(): Promise<void>;
}

/** The plan lifecycle and service on a real SQLite file, with a clock that moves only when told. */
export async function openPlanWorld(
  file: string,
  options: Omit<PlanServiceOptions, 'lifecycle'> = {},
): Promise<PlanWorld> {
  const store = openSqliteStore({ file });
  await store.migrate();
  let now = t0;
  const lifecycle = new PlanLifecycle(store, () => now);
  return {
    store,
    lifecycle,
    service: new PlanService({ lifecycle, ...options }),
    tick(ms = 1000) {
      now += ms;
    },
    close: () => store.close(),
  };
}
