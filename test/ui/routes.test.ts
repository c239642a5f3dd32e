import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  atEverySizeAndTheme,
  expectGoodLook,
  expectNoPageErrors,
  phoneLayoutProblems,
  screenshot,
  useUiSuite,
} from './harness.js';
import { candidatesOf, plantedSecret, policy, routesInEveryState } from './routes-fixtures.js';

/** The route board (`/routes`), against the built `recourse serve` in Debian's Chromium. */
const ui = useUiSuite(async (service) => {
  await routesInEveryState(service, 'b');
});

/** The board's group for a state: its heading (with the count) and its rows. */
function group(page: Page, name: string) {
  return page.getByRole('region', { name: new RegExp(`^${name} \\(\\d+\\)$`) });
}

describe('route board', () => {
  it('[UI-11] groups and counts routes by state, one plain headline each, and never "running" for a wait', async () => {
    const open = await ui.open({ role: 'viewer' });
    const { page } = open;
    await expect.poll(() => page.getByRole('heading', { level: 2 }).count()).toBe(7);
    const expected: Array<[string, string, string]> = [
      ['Needs your action', 'b-needs', 'Needs your action'],
      [
        'Switching candidates',
        'b-switch',
        `Switching to ${candidatesOf('b-switch')[1]} from ${candidatesOf('b-switch')[0]}`,
      ],
      ['Waiting for a usage limit to reset', 'b-reset', 'Waiting for the usage limit to reset'],
      ['Waiting to retry', 'b-wait', `Waiting to retry ${candidatesOf('b-wait')[0]}`],
      ['Retrying now', 'b-retrying', 'Retrying now'],
      ['Running', 'b-running', 'Running'],
      ['Finished', 'b-done', 'Finished'],
    ];
    for (const [title, id, headline] of expected) {
      const section = group(page, title);
      await expect.poll(() => section.getByRole('heading').innerText()).toBe(`${title} (1)`);
      const row = section.locator(`[data-route-id="${id}"]`);
      expect(await row.locator('.route-headline').innerText()).toBe(headline);
      expect(await page.getByRole('list', { name: 'Routes by state' }).innerText()).toContain(`${title}: 1`);
    }
    // A wait says why and when, and nowhere says it is running.
    for (const title of ['Waiting to retry', 'Waiting for a usage limit to reset']) {
      const text = await group(page, title).innerText();
      expect(text).not.toMatch(/running/i);
      expect(text).toMatch(/Next attempt: .+ (in \d+ min( \d+ s)?|Due now)/);
      expect(await group(page, title).getByRole('timer').count()).toBe(1);
    }
    expect(await group(page, 'Waiting for a usage limit to reset').innerText()).toContain(
      'Why: Usage limit reached',
    );
    // A switch says from, to and why; a route that needs a person says why in words.
    expect(await group(page, 'Switching candidates').innerText()).toContain('Why: Rate limited');
    expect(await group(page, 'Needs your action').innerText()).toContain(
      'Rate limited, and it is not safe to repeat the turn: the agent had already used tools',
    );
    // Never the provider's text (UI-12) or a raw code on the board.
    const main = await page.locator('main').innerText();
    expect(main).not.toContain(plantedSecret);
    expect(main).not.toContain('rate_limit_error');
    expect(main).not.toContain('rate_limited');
    expect(await page.content()).not.toContain(plantedSecret);
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-11] a transition moves the route to its new group in place and is announced once (the ticks are not)', async () => {
    const open = await ui.open({ role: 'viewer' });
    const { page } = open;
    await expect
      .poll(() => group(page, 'Waiting to retry').locator('[data-route-id="b-wait"]').count())
      .toBe(1);
    const announcer = page.getByTestId('announcer');
    await page.waitForTimeout(2_100); // two ticks: nothing is announced
    expect(await announcer.innerText()).toBe('');
    const route = await ui.service.call<{ generation: number }>('GET', '/v1/routes/b-wait');
    const cancelled = await ui.service.call(
      'POST',
      '/v1/routes/b-wait/actions',
      { action: 'cancel', expected_generation: route.body.generation, expected_state: 'retry_wait' },
      'operator',
    );
    expect(cancelled.status).toBe(200);
    await expect
      .poll(() => group(page, 'Needs your action').locator('[data-route-id="b-wait"]').count())
      .toBe(1);
    expect(await group(page, 'Needs your action').getByRole('heading').innerText()).toBe(
      'Needs your action (2)',
    );
    expect(await page.locator('[data-route-id="b-wait"]').count()).toBe(1);
    expect(await group(page, 'Waiting to retry').count()).toBe(0);
    await expect.poll(() => announcer.innerText()).toBe('Route b-wait: Needs your action');
    expect(await group(page, 'Needs your action').locator('[data-route-id="b-wait"]').innerText()).toContain(
      'Retrying was cancelled by a person',
    );
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-10] [UI-11] the board at 1280×800, 390×844 and 320×568 on light and dark: no phone layout problem, no axe violation', async () => {
    await atEverySizeAndTheme(
      (viewport, theme) => ui.open({ role: 'operator', viewport, theme }),
      async (page, viewport, theme) => {
        await expect.poll(() => page.getByRole('heading', { level: 2 }).count()).toBeGreaterThan(5);
        await expectGoodLook(page, viewport, `routes-board-${viewport}-${theme}`);
      },
    );
  });

  it('[UI-12] the longest, unbroken route id the service takes wraps on a phone; a 2,000-character id with markup is refused before any page sees it', async () => {
    const hostile = `h-${'x'.repeat(62)}@:.${'y'.repeat(61)}`;
    expect(hostile).toHaveLength(128);
    const profile = await ui.service.call('PUT', '/v1/profiles/p-hostile', {
      name: '<img src=x onerror=alert(1)>',
      candidates: [{ profile_id: 'hostile-claude', policy: policy(3, 600, 'stop') }],
    });
    expect(profile.status).toBe(200);
    const refused = await ui.service.call(
      'POST',
      '/v1/routes',
      { route_id: `<script>alert(1)</script>${'x'.repeat(1_975)}`, profile_id: 'p-hostile' },
      'adapter',
    );
    expect(refused.status).toBe(422);
    const started = await ui.service.call(
      'POST',
      '/v1/routes',
      { route_id: hostile, profile_id: 'p-hostile' },
      'adapter',
    );
    expect(started.status).toBe(201);
    const open = await ui.open({ role: 'viewer', viewport: 'small' });
    const { page } = open;
    const row = page.locator('.route-row').filter({ hasText: hostile });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getByRole('link').innerText()).toContain(hostile);
    expect(await page.locator('main script, main img').count()).toBe(0);
    expect(await phoneLayoutProblems(page)).toEqual([]);
    await row.getByRole('link').click();
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(`Route ${hostile}`);
    await page.locator('.route-headline').waitFor();
    expect(await page.locator('.route-headline').innerText()).toBe('Running');
    expect(await phoneLayoutProblems(page)).toEqual([]);
    await screenshot(page, 'routes-view-hostile-id-small-light');
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-11] a purge drops the purged rows from an open board at once (route.purged); routes that wait stay', async () => {
    const open = await ui.open({ role: 'viewer' });
    const { page } = open;
    await expect.poll(() => page.locator('[data-route-id="b-done"]').count()).toBe(1);
    const purged = await ui.service.call(
      'POST',
      '/v1/routes/purge',
      { finished_before: '2999-01-01T00:00:00Z' },
      'admin',
    );
    expect(purged.status).toBe(200);
    await expect.poll(() => page.locator('[data-route-id="b-done"]').count()).toBe(0);
    expect(await page.locator('[data-route-id="b-needs"]').count()).toBe(0);
    expect(await group(page, 'Finished').count()).toBe(0);
    expect(await page.locator('[data-route-id="b-reset"]').count()).toBe(1);
    expectNoPageErrors(open);
    await open.context.close();
  });
});
