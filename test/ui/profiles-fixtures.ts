import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { UiService } from './harness.js';

/** A version 1 class policy, written out in full (the shape the editor must keep sending: UI-08). */
export function classPolicy(
  retry: [number, number] | null,
  waitSeconds: number | null,
  onExhausted: 'skip' | 'stop',
): Record<string, unknown> {
  return {
    retry:
      retry === null
        ? { enabled: false, max_retries: 0, initial_interval_seconds: 0 }
        : { enabled: true, max_retries: retry[0], initial_interval_seconds: retry[1] },
    wait_for_reset:
      waitSeconds === null
        ? { enabled: false, max_wait_seconds: 0 }
        : { enabled: true, max_wait_seconds: waitSeconds },
    on_exhausted: onExhausted,
  };
}

/**
 * Stores a profile `id` with two candidates: claude-code (transient: retry 3 from 5 s, then skip; hard: wait for a
 * reset up to 2 h, then stop) and codex, stored from a legacy rules map (normalized by the server on the way in).
 */
export async function seedProfile(service: UiService, id: string): Promise<void> {
  const reply = await service.call('PUT', `/v1/profiles/${id}`, {
    name: `Team ${id}`,
    candidates: [
      {
        profile_id: 'claude-code',
        policy: {
          version: 1,
          transient: classPolicy([3, 5], null, 'skip'),
          hard: classPolicy(null, 7200, 'stop'),
        },
      },
      { profile_id: 'codex', policy: { on_provider_error: 'try_next' } },
    ],
  });
  expect(reply.status).toBe(200);
}

/** The candidate's row (its list item) by position. */
export function candidate(page: Page, index: number): Locator {
  return page.getByTestId(`candidate-${index}`);
}

/** One class section of a candidate, found by its visible heading. */
export function section(page: Page, index: number, title: 'Transient errors' | 'Hard errors'): Locator {
  return candidate(page, index).getByRole('region', { name: title });
}

/** Waits for the editor to load, then opens every closed disclosure (each candidate's policy area). */
export async function openAll(page: Page): Promise<void> {
  page.setDefaultTimeout(10_000);
  await candidate(page, 0).waitFor();
  const closed = page.locator('button[aria-expanded="false"]');
  while ((await closed.count()) > 0) await closed.first().click();
}

export interface CliSchedule {
  readonly delays_seconds: number[];
  readonly max_wait_seconds: number;
  readonly on_exhausted: string;
}

/** `node dist/cli/main.js policy preview --json FILE` on a policy document written to a temp file. */
export function cliPreview(dir: string, policy: unknown): { transient: CliSchedule; hard: CliSchedule } {
  const file = join(dir, `policy-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(policy));
  const run = spawnSync(process.execPath, ['dist/cli/main.js', 'policy', 'preview', '--json', file], {
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { transient: CliSchedule; hard: CliSchedule };
}

/** The numbers the page's preview of one class shows (its data attributes mirror its words). */
export async function pagePreview(
  page: Page,
  index: number,
  cls: 'transient' | 'hard',
): Promise<CliSchedule> {
  const preview = candidate(page, index).getByTestId(`schedule-${cls}`);
  const delays = (await preview.getAttribute('data-delays')) ?? '';
  return {
    delays_seconds: delays === '' ? [] : delays.split(',').map(Number),
    max_wait_seconds: Number(await preview.getAttribute('data-max-wait')),
    on_exhausted: (await preview.getAttribute('data-outcome')) ?? '',
  };
}
