import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  atEverySizeAndTheme,
  expectGoodLook,
  expectNoPageErrors,
  useUiSuite,
  type SignInOptions,
} from './harness.js';
import {
  act,
  candidatesOf,
  fail,
  plantedSecret,
  policy,
  rateLimited,
  startRoute,
  usageLimit,
} from './routes-fixtures.js';

/** The route view (`/routes/ID`) and its actions, against the built `recourse serve` in Debian's Chromium. */
const ui = useUiSuite();

/** A route waiting to retry its first candidate, ten minutes away (retry 1 of 3, then skip). */
async function waitingRoute(id: string) {
  return fail(ui.service, await startRoute(ui.service, id), rateLimited(30));
}

/**
 * The route's page, signed in. Without the event stream (`liveEvents: false`) the page keeps what it read: another
 * client's change reaches it only through a refusal (the race a slow stream or a second tab makes).
 */
async function openRoute(id: string, options: Omit<SignInOptions, 'path'> = {}) {
  const open = await ui.open({ ...options, path: `/routes/${encodeURIComponent(id)}` });
  await open.page.getByRole('heading', { level: 1, name: `Route ${id}` }).waitFor();
  await open.page.locator('.route-headline').waitFor();
  return open;
}

/** A countdown's seconds ("in 9 min 58 s" -> 598; "Due now" -> 0). */
function countdownSeconds(text: string): number {
  if (text === 'Due now') return 0;
  const match = /^in (?:(\d+) h)? ?(?:(\d+) min)? ?(?:(\d+) s)?$/.exec(text);
  if (match === null) throw new Error(`not a countdown: ${text}`);
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
}

function button(page: Page, name: string | RegExp) {
  return page.getByRole('button', { name, exact: typeof name === 'string' });
}

describe('route view', () => {
  it('[UI-11] [UI-12] shows the cause in words, provider and model, "Retry 1 of 3", the next outcome, the deadline, and the history with delay sources; raw codes only in Details', async () => {
    const route = await waitingRoute('v-facts');
    const [first, second] = candidatesOf('v-facts');
    const open = await openRoute('v-facts', { role: 'viewer' });
    const { page } = open;
    const main = page.locator('main');
    expect(await page.locator('.route-headline').innerText()).toBe(`Waiting to retry ${first}`);
    const facts = await page.locator('dl.facts').first().innerText();
    expect(facts).toMatch(/Cause\s+Rate limited/);
    expect(facts).toMatch(/Kind of error\s+Transient/);
    expect(facts).toMatch(/Provider and model\s+anthropic · claude-sonnet-4-5/);
    expect(facts).toMatch(/Retries\s+Retry 1 of 3/);
    expect(facts).toMatch(
      new RegExp(`Next outcome\\s+If this fails: retry 2 of 3; after the last retry, skip to ${second}`),
    );
    const deadline = page.locator('.route-state time');
    expect(await deadline.getAttribute('datetime')).toBe(route.deadline_at);
    expect(await deadline.innerText()).toMatch(/\d{2}:\d{2}:\d{2}/);
    expect(countdownSeconds(await page.getByRole('timer').innerText())).toBeGreaterThan(500);
    const history = page.getByRole('table');
    expect(await history.innerText()).toMatch(/Retry scheduled \(retry 1\): Rate limited/);
    // The policy's 10 minutes beat the provider's Retry-After of 30 s: the row says which one set the wait.
    expect(await history.innerText()).toMatch(/10 min, until .+\tthe policy's schedule/);
    // Raw diagnostics stay closed in Details until asked for; the provider's text never appears.
    const closed = await main.innerText();
    for (const raw of ['rate_limited', '.v1', 'rate_limit_error', 'transient', plantedSecret])
      expect(closed).not.toContain(raw);
    const details = button(page, /^Details/);
    expect(await details.getAttribute('aria-expanded')).toBe('false');
    await details.click();
    expect(await details.getAttribute('aria-expanded')).toBe('true');
    const opened = await main.innerText();
    expect(opened).toMatch(/Code\s+rate_limited/);
    expect(opened).toMatch(/Class\s+transient/);
    const stored = await ui.service.call<{ last_failure: { classifier_rule: string } }>(
      'GET',
      '/v1/routes/v-facts',
    );
    expect(opened).toMatch(
      new RegExp(`Classifier rule\\s+${stored.body.last_failure.classifier_rule.replaceAll('.', '\\.')}`),
    );
    expect(opened).toMatch(/Catalogue version\s+\d{4}\.\d\d\.\d\d/);
    expect(await page.content()).not.toContain(plantedSecret);
    expect(opened).not.toContain('<script>');
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-11] a reset wait says so in words, and its Retry now asks first', async () => {
    await fail(ui.service, await startRoute(ui.service, 'v-reset'), usageLimit(3600));
    const open = await openRoute('v-reset', { role: 'operator' });
    const { page } = open;
    expect(await page.locator('.route-headline').innerText()).toBe('Waiting for the usage limit to reset');
    expect(await page.locator('.route-state').innerText()).toContain('Why: Usage limit reached');
    expect(await page.locator('main').innerText()).not.toMatch(/running/i);
    await button(page, 'Retry now').click();
    const dialog = page.getByRole('dialog', { name: 'Retry now, before the reset?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Keep it as it is' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect((await ui.service.call<{ state: string }>('GET', '/v1/routes/v-reset')).body.state).toBe(
      'waiting_for_reset',
    );
    await button(page, 'Retry now').click();
    await dialog.getByRole('button', { name: 'Retry now anyway' }).click();
    await expect.poll(() => page.locator('.route-headline').innerText()).toBe('Retrying now');
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-11] offers only what the state allows: a wait all four, a route that needs you Retry and Skip, a finished one none', async () => {
    const route = await waitingRoute('v-allowed');
    const [, second] = candidatesOf('v-allowed');
    const open = await openRoute('v-allowed', { role: 'operator' });
    const { page } = open;
    const names = () => page.locator('.route-action-buttons button').allInnerTexts();
    expect(await names()).toEqual(['Retry now', `Skip now to ${second}`, 'Cancel wait', 'Stop']);
    await act(ui.service, route, 'cancel');
    await expect.poll(() => page.locator('.route-headline').innerText()).toBe('Needs your action');
    expect(await names()).toEqual(['Retry now', `Skip now to ${second}`]);
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-11] Stop asks first; keeping it changes nothing, confirming stops the route', async () => {
    await waitingRoute('v-stop');
    const open = await openRoute('v-stop', { role: 'operator' });
    const { page } = open;
    await button(page, 'Stop').click();
    const dialog = page.getByRole('dialog', { name: 'Stop this route?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Keep it as it is' }).click();
    expect((await ui.service.call<{ state: string }>('GET', '/v1/routes/v-stop')).body.state).toBe(
      'retry_wait',
    );
    await button(page, 'Stop').click();
    await dialog.getByRole('button', { name: 'Stop the route' }).click();
    await expect.poll(() => page.locator('.route-headline').innerText()).toBe('Needs your action');
    expect(await page.locator('.route-state').innerText()).toContain('Stopped by a person');
    expect((await ui.service.call<{ reason: string }>('GET', '/v1/routes/v-stop')).body.reason).toBe(
      'stopped',
    );
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-11] Stop confirmed after the route changed under the open dialog sends what the person saw: a conflict, not a stop', async () => {
    const waiting = await waitingRoute('v-stop-late');
    const open = await openRoute('v-stop-late', { role: 'operator' });
    const { page } = open;
    await button(page, 'Stop').click();
    const dialog = page.getByRole('dialog', { name: 'Stop this route?' });
    await dialog.waitFor();
    await act(ui.service, waiting, 'cancel'); // another person, while the question is open
    await expect.poll(() => page.locator('.route-headline').innerText()).toBe('Needs your action');
    await dialog.getByRole('button', { name: 'Stop the route' }).click();
    await expect
      .poll(() => page.locator('.banner').allInnerTexts())
      .toContainEqual(expect.stringMatching(/was waiting to retry/));
    expect((await ui.service.call<{ reason: string }>('GET', '/v1/routes/v-stop-late')).body.reason).toBe(
      'cancelled',
    );
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-11] Cancel wait does not ask; a pending request shows "requested" until the reply confirms it', async () => {
    await waitingRoute('v-pending');
    const open = await openRoute('v-pending', { role: 'operator', liveEvents: false });
    const { page } = open;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/v1/routes/v-pending/actions', async (r) => {
      await held;
      await r.continue();
    });
    await button(page, 'Cancel wait').click();
    expect(await page.getByRole('dialog').count()).toBe(0);
    await expect
      .poll(() => page.getByTestId('action-pending').innerText())
      .toContain('Cancel wait requested');
    expect(await button(page, /requested/).count()).toBe(1);
    await page.waitForTimeout(1_000);
    // Not confirmed yet: still requested, and the route still says it waits.
    expect(await page.getByTestId('action-pending').count()).toBe(1);
    expect(await page.locator('.route-headline').innerText()).toMatch(/^Waiting to retry/);
    release();
    await expect.poll(() => page.locator('.route-headline').innerText()).toBe('Needs your action');
    expect(await page.getByTestId('action-pending').count()).toBe(0);
    expect(await page.locator('main').innerText()).not.toContain('requested');
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-11] an action on a stale route (another client acted first) shows what changed and re-renders with the route as it is', async () => {
    // Same generation, another state: the other client cancelled (stale_state).
    const cancelledFirst = await waitingRoute('v-stale-state');
    const [, second] = candidatesOf('v-stale-state');
    let open = await openRoute('v-stale-state', { role: 'operator', liveEvents: false });
    let page = open.page;
    await act(ui.service, cancelledFirst, 'cancel');
    await button(page, `Skip now to ${second}`).click();
    const alert = page.getByRole('alert');
    await expect
      .poll(() => alert.innerText())
      .toBe(
        'Someone else acted first: the route was waiting to retry and is now waiting for your action (retrying was cancelled by a person). Nothing was changed by your request; look again and choose.',
      );
    expect(await page.locator('.route-headline').innerText()).toBe('Needs your action');
    expect(await page.locator('.route-action-buttons button').allInnerTexts()).toEqual([
      'Retry now',
      `Skip now to ${second}`,
    ]);
    expect((await ui.service.call<{ state: string }>('GET', '/v1/routes/v-stale-state')).body.state).toBe(
      'action_required',
    );
    expectNoPageErrors(open);
    await open.context.close();

    // A newer generation: the other client skipped to the next candidate (stale_generation).
    const skippedFirst = await waitingRoute('v-stale-gen');
    const [first, next] = candidatesOf('v-stale-gen');
    open = await openRoute('v-stale-gen', { role: 'operator', liveEvents: false });
    page = open.page;
    await act(ui.service, skippedFirst, 'skip_now');
    await button(page, 'Retry now').click();
    await expect
      .poll(() => page.getByRole('alert').innerText())
      .toMatch(/^Someone else acted first: the route was waiting to retry and is now switching candidates/);
    expect(await page.locator('.route-headline').innerText()).toBe(`Switching to ${next} from ${first}`);
    expect(await page.locator('.route-action-buttons button').allInnerTexts()).toEqual(['Cancel', 'Stop']);
    expectNoPageErrors(open);
    await open.context.close();
  });

  it("[UI-11] two tabs racing: the second tab's Stop is refused and shows the first tab's cancel", async () => {
    await waitingRoute('v-race');
    const one = await openRoute('v-race', { role: 'operator', liveEvents: false });
    const two = await openRoute('v-race', { role: 'admin', liveEvents: false });
    await button(one.page, 'Cancel wait').click();
    await expect.poll(() => one.page.locator('.route-headline').innerText()).toBe('Needs your action');
    await button(two.page, 'Stop').click();
    await two.page.getByRole('dialog').getByRole('button', { name: 'Stop the route' }).click();
    await expect
      .poll(() => two.page.getByRole('alert').innerText())
      .toContain('the route was waiting to retry and is now waiting for your action');
    expect((await ui.service.call<{ reason: string }>('GET', '/v1/routes/v-race')).body.reason).toBe(
      'cancelled',
    );
    for (const open of [one, two]) {
      expectNoPageErrors(open);
      await open.context.close();
    }
  });

  it("[UI-11] a viewer sees no action controls, and the service refuses a viewer's action anyway", async () => {
    const route = await waitingRoute('v-viewer');
    const open = await openRoute('v-viewer', { role: 'viewer' });
    const { page } = open;
    expect(await page.getByRole('button', { name: /Retry now|Skip now|Cancel|Stop/ }).count()).toBe(0);
    expect(await page.locator('main').innerText()).toContain('You are signed in as a viewer');
    const refused = await ui.service.call(
      'POST',
      '/v1/routes/v-viewer/actions',
      { action: 'stop', expected_generation: route.generation },
      'viewer',
    );
    expect(refused.status).toBe(403);
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[DUR-11] a browser clock five minutes ahead or behind changes no countdown by more than a second', async () => {
    await waitingRoute('v-clock');
    const pages = await Promise.all(
      [0, 5 * 60_000, -5 * 60_000].map((clockOffsetMs) =>
        openRoute('v-clock', { role: 'viewer', clockOffsetMs }),
      ),
    );
    await Promise.all(pages.map((open) => open.page.getByRole('timer').waitFor()));
    const read = () => Promise.all(pages.map((open) => open.page.getByRole('timer').innerText()));
    for (let sample = 0; sample < 3; sample++) {
      const [plain, ahead, behind] = (await read()).map(countdownSeconds) as [number, number, number];
      expect(plain).toBeGreaterThan(500);
      expect(Math.abs(ahead - plain)).toBeLessThanOrEqual(1);
      expect(Math.abs(behind - plain)).toBeLessThanOrEqual(1);
      await pages[0]!.page.waitForTimeout(1_000);
    }
    const absolute = await Promise.all(
      pages.map((open) => open.page.locator('.route-state time').innerText()),
    );
    expect(new Set(absolute).size).toBe(1);
    for (const open of pages) {
      expectNoPageErrors(open);
      await open.context.close();
    }
  });

  it('[UI-11] at zero the countdown says "Due now", never "in 0 s" or a negative time, and the page dispatches nothing', async () => {
    const route = await fail(
      ui.service,
      await startRoute(ui.service, 'v-due', { intervalSeconds: 12 }),
      rateLimited(1),
    );
    const deadline = Date.parse(route.deadline_at!);
    const open = await openRoute('v-due', { role: 'operator', liveEvents: false });
    const { page } = open;
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET') posts.push(request.url());
    });
    const seen: string[] = [];
    while (Date.now() < deadline + 3_000) {
      seen.push(await page.getByRole('timer').innerText());
      await page.waitForTimeout(250);
    }
    for (const text of seen) {
      expect(text).toMatch(/^(in [1-9]\d* s|Due now)$/);
      expect(text).not.toMatch(/-|in 0 s/);
    }
    expect(seen).toContain('Due now');
    expect(seen.at(-1)).toBe('Due now');
    expect(seen.some((text) => text.startsWith('in '))).toBe(true);
    expect(posts).toEqual([]);
    expectNoPageErrors(open);
    await open.context.close();
  });

  it("[UI-11] Skip now refused because no candidate is left to go to (disabled since the page read them) says the service's reason, not that someone else acted first", async () => {
    await act(ui.service, await waitingRoute('v-nowhere'), 'cancel');
    const [first, second, third] = candidatesOf('v-nowhere');
    const open = await openRoute('v-nowhere', { role: 'operator' });
    const { page } = open;
    await button(page, `Skip now to ${second}`).waitFor();
    const rules = policy(3, 600, 'skip');
    const saved = await ui.service.call('PUT', '/v1/profiles/p-v-nowhere', {
      name: 'Profile for v-nowhere',
      candidates: [
        { profile_id: first, provider: 'anthropic', model: 'claude-sonnet-4-5', policy: rules },
        { profile_id: second, provider: 'openai', model: 'gpt-5-codex', policy: rules, enabled: false },
        { profile_id: third, provider: 'google', model: 'gemini-2.5-pro', policy: rules, enabled: false },
      ],
    });
    expect(saved.status).toBe(200);
    await button(page, `Skip now to ${second}`).click();
    const alert = page.locator('.route-actions [role="alert"]');
    await alert.waitFor();
    const said = await alert.innerText();
    expect(said).toContain(`Skip now to ${second} was not applied: skip now has nowhere to go`);
    expect(said).not.toContain('Someone else acted first');
    expect(await page.locator('.route-headline').innerText()).toBe('Needs your action');
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-11] a route purged while its view is open (route.purged) is said to be gone, and its actions go with it', async () => {
    await act(ui.service, await waitingRoute('v-purged'), 'cancel');
    const open = await openRoute('v-purged', { role: 'operator' });
    const { page } = open;
    const names = () => page.locator('.route-action-buttons button').allInnerTexts();
    expect(await names()).toEqual(['Retry now', expect.stringMatching(/^Skip now to /)]);
    const purged = await ui.service.call(
      'POST',
      '/v1/routes/purge',
      { finished_before: '2999-01-01T00:00:00Z' },
      'admin',
    );
    expect((purged.body as { purged: number }).purged).toBeGreaterThanOrEqual(1);
    await page.getByRole('alert').filter({ hasText: 'There is no route with this id.' }).waitFor();
    expect(await names()).toEqual([]);
    expect(await page.locator('.route-headline').count()).toBe(0);
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-10] [UI-11] the route view at 1280×800, 390×844 and 320×568 on light and dark: no phone layout problem, no axe violation', async () => {
    await waitingRoute('v-layout');
    await atEverySizeAndTheme(
      (viewport, theme) => openRoute('v-layout', { role: 'operator', viewport, theme }),
      async (page, viewport, theme) => {
        await button(page, /^Details/).click();
        await expectGoodLook(page, viewport, `routes-view-${viewport}-${theme}`);
        await button(page, 'Stop').click();
        await page.getByRole('dialog').waitFor();
        await expectGoodLook(page, viewport, `routes-view-stop-dialog-${viewport}-${theme}`);
        await page.getByRole('dialog').getByRole('button', { name: 'Keep it as it is' }).click();
      },
    );
  });
});
