import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  atEverySizeAndTheme,
  axeViolations,
  expectGoodLook,
  expectNoPageErrors,
  phoneLayoutProblems,
  screenshot,
  useUiSuite,
} from './harness.js';
import { failingSession as openFailingSession, type RouteDoc } from './routes-fixtures.js';

type Message = { id: string; metadata: Record<string, unknown> };

const task = 'task-ui';

/**
 * The session view in Chromium against the built `recourse serve`, sessions driven through the API as an
 * orchestrator would (test/server/sessions.test.ts): the inline retry card, Cancel, and the Resume / Start fresh
 * choice.
 */
describe('session view', () => {
  const ui = useUiSuite();

  const sessionPath = (sessionId: string) =>
    `/sessions/${encodeURIComponent(sessionId)}?task_id=${encodeURIComponent(task)}`;
  const api = (sessionId: string, tail: string) => `/v1/sessions/${encodeURIComponent(sessionId)}${tail}`;

  /**
   * Opens a session on a concrete profile and fails its first attempt with an overload: the interactive retry
   * waits `retryAfter` seconds (a provider hint within 60 s replaces the 5 s table delay), with its notice.
   */
  const failingSession = (sessionId: string, retryAfter?: number, owner = 'alice'): Promise<RouteDoc> =>
    openFailingSession(ui.service, { taskId: task, sessionId, owner }, retryAfter);

  const messagesOf = async (sessionId: string) =>
    (
      await ui.service.call<{ messages: Message[] }>(
        'GET',
        api(sessionId, `/messages?task_id=${task}`),
        undefined,
        'viewer',
      )
    ).body.messages;

  /** "in 43 s", "in 1 min 5 s" -> seconds; "Due now" -> 0. */
  function seconds(text: string): number {
    if (text === 'Due now') return 0;
    const match = /^in (?:(\d+) min)? ?(?:(\d+) s)?$/.exec(text.trim());
    expect(match, `countdown "${text}"`).not.toBeNull();
    return Number(match![1] ?? 0) * 60 + Number(match![2] ?? 0);
  }

  const card = (page: Page): Locator => page.getByRole('region', { name: 'Retrying automatically' });
  const cancelButton = (page: Page): Locator =>
    card(page).getByRole('button', { name: 'Cancel', exact: true });

  /** The card as markup, with what changes each second or by locale (the countdown, the clock) taken out. */
  const cardMarkup = (page: Page) =>
    card(page).evaluate((element) => {
      const copy = element.cloneNode(true) as HTMLElement;
      copy.querySelectorAll('[role=timer], time').forEach((e) => (e.textContent = ''));
      return copy.outerHTML;
    });

  it('[NOT-03] [NOT-44] the card shows reason, provider, attempt, time and a countdown that counts down; desktop, phone and small render the same card with the same Cancel', async () => {
    await failingSession('s-card', 45);
    const markups: string[] = [];
    await atEverySizeAndTheme(
      (viewport, theme) => ui.open({ role: 'operator', viewport, theme, path: sessionPath('s-card') }),
      async (page, viewport, theme) => {
        await expect.poll(() => card(page).count()).toBe(1);
        await expect.poll(() => card(page).innerText()).toContain('Provider overloaded (anthropic)');
        expect(await card(page).innerText()).toContain('Attempt 1 of 5');
        expect(await card(page).locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
        const timer = card(page).getByRole('timer');
        const first = seconds(await timer.innerText());
        expect(first).toBeGreaterThan(5);
        expect(first).toBeLessThanOrEqual(45);
        // The session (whose owner Cancel acts for) may load after the transcript: Cancel follows it.
        await expect.poll(() => cancelButton(page).count()).toBe(1);
        // The effect of Cancel is said next to it, as the button's description.
        expect(
          await cancelButton(page).evaluate(
            (b) => document.getElementById(b.getAttribute('aria-describedby') ?? '')?.textContent,
          ),
        ).toBe('Stops the automatic retry; you then choose Resume or Start fresh.');
        if (viewport === 'desktop' && theme === 'light') {
          await page.waitForTimeout(3_100);
          const second = seconds(await timer.innerText());
          expect(first - second).toBeGreaterThanOrEqual(2);
          expect(first - second).toBeLessThanOrEqual(4);
          // The raw code is only inside the Details disclosure, closed at first.
          expect(await card(page).locator('[hidden]').innerText()).not.toBe('');
          expect(await page.locator('main').innerText()).not.toContain('provider_overloaded');
        }
        await expectGoodLook(page, viewport, `sessions-card-${viewport}-${theme}`);
        if (theme === 'light') markups.push(await cardMarkup(page));
      },
    );
    expect(new Set(markups).size).toBe(1);
  });

  it('[NOT-29] [NOT-30] [SCN-12] the card counts down to "Due now", then is gone when the retry succeeds, live and after a reload', async () => {
    const waiting = await failingSession('s-success');
    const open = await ui.open({ role: 'operator', path: sessionPath('s-success') });
    const { page } = open;
    await expect.poll(() => card(page).count()).toBe(1);
    // The 5 s delay passes: the countdown stops at "Due now", never "in 0 s" or negative, until the retry goes.
    const timer = card(page).getByRole('timer');
    await expect
      .poll(() => timer.innerText().catch(() => 'gone'), { timeout: 10_000 })
      .toMatch(/Due now|gone/);
    let route = waiting;
    await expect
      .poll(
        async () => {
          route = (await ui.service.call<RouteDoc>('GET', `/v1/routes/${encodeURIComponent(waiting.id)}`))
            .body;
          return route.state;
        },
        { timeout: 15_000 },
      )
      .toBe('retrying');
    await ui.service.call(
      'POST',
      `/v1/routes/${encodeURIComponent(route.id)}/dispatches/${route.dispatch!.id}/ack`,
      undefined,
      'adapter',
    );
    const done = await ui.service.call(
      'POST',
      api('s-success', '/success'),
      { task_id: task, invocation_id: route.dispatch!.id },
      'adapter',
    );
    expect(done.status).toBe(200);
    await expect.poll(() => card(page).count()).toBe(0);
    await expect.poll(() => page.getByTestId('announcer').innerText()).toBe('The retry has ended.');
    expect((await messagesOf('s-success')).filter((m) => m.metadata.retrying === true)).toEqual([]);
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { name: 'Transcript' }).count()).toBe(1);
    await expect.poll(() => page.getByText('Loading the transcript…').count()).toBe(0);
    expect(await card(page).count()).toBe(0);
    expect(await page.getByTestId('session-now').innerText()).toContain('Idle: the last turn succeeded');
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[NOT-41] [CUR-33] Cancel retires the card and writes Resume / Start fresh; choosing Resume sends it once and the dispatch carries it', async () => {
    const waiting = await failingSession('s-cancel', 50);
    const open = await ui.open({ role: 'operator', path: sessionPath('s-cancel') });
    const { page } = open;
    await expect.poll(() => card(page).count()).toBe(1);
    await cancelButton(page).click();
    await expect.poll(() => card(page).count()).toBe(0);
    await expect
      .poll(() => page.getByTestId('announcer').innerText())
      .toBe('Retry cancelled. Choose Resume or Start fresh.');
    const recovery = page.getByRole('region', { name: 'Needs your choice' });
    await expect.poll(() => recovery.count()).toBe(1);
    expect(await recovery.innerText()).toContain('Retrying was cancelled');
    const resume = recovery.getByRole('button', { name: 'Resume', exact: true });
    const fresh = recovery.getByRole('button', { name: 'Start fresh', exact: true });
    expect(await resume.count()).toBe(1);
    expect(await fresh.count()).toBe(1);
    // Each choice says what it does; neither is chosen for the person.
    expect(await recovery.innerText()).toContain('Continues the same agent session');
    expect(await recovery.innerText()).toContain('Opens a new agent session');
    expect(
      (await ui.service.call<RouteDoc>('GET', `/v1/routes/${encodeURIComponent(waiting.id)}`)).body.state,
    ).toBe('action_required');
    await axeViolations(page).then((v) => expect(v).toEqual([]));
    await screenshot(page, 'sessions-recovery-desktop-light');
    await resume.click();
    await expect.poll(() => recovery.count()).toBe(0);
    await expect
      .poll(() => page.getByTestId('announcer').innerText())
      .toBe('Resume confirmed: the next attempt is on its way.');
    const route = (await ui.service.call<RouteDoc>('GET', `/v1/routes/${encodeURIComponent(waiting.id)}`))
      .body;
    expect(route.state).toBe('retrying');
    expect((await messagesOf('s-cancel')).some((m) => m.metadata.recovery === 'manual')).toBe(false);
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[NOT-44] [NOT-41] on the small phone the same Cancel works and Start fresh is sent; a tab that answers late is told the choice was already made', async () => {
    const waiting = await failingSession('s-fresh', 50);
    const phone = await ui.open({ role: 'operator', viewport: 'small', path: sessionPath('s-fresh') });
    await expect.poll(() => card(phone.page).count()).toBe(1);
    await cancelButton(phone.page).click();
    const recovery = (page: Page) => page.getByRole('region', { name: 'Needs your choice' });
    await expect.poll(() => recovery(phone.page).count()).toBe(1);
    expect(await phoneLayoutProblems(phone.page)).toEqual([]);
    await screenshot(phone.page, 'sessions-recovery-small-light');
    // A second tab whose event stream is cut keeps showing the choice after the phone has answered it.
    const late = await ui.open({ role: 'operator', path: '/sessions' });
    await late.page.route('**/v1/events**', (route) => route.abort());
    await late.page.goto(ui.url + sessionPath('s-fresh'));
    await expect.poll(() => recovery(late.page).count()).toBe(1);
    await recovery(phone.page).getByRole('button', { name: 'Start fresh', exact: true }).click();
    await expect.poll(() => recovery(phone.page).count()).toBe(0);
    await expect
      .poll(() => phone.page.getByTestId('announcer').innerText())
      .toBe('Start fresh confirmed: the next attempt is on its way.');
    expect(
      (await ui.service.call<RouteDoc>('GET', `/v1/routes/${encodeURIComponent(waiting.id)}`)).body.state,
    ).toBe('retrying');
    await recovery(late.page).getByRole('button', { name: 'Resume', exact: true }).click();
    await expect
      .poll(() =>
        late.page
          .getByTestId('session-problem')
          .innerText()
          .catch(() => ''),
      )
      .toBe('This choice was already answered (in another tab or by another person): nothing more was sent.');
    await expect.poll(() => recovery(late.page).count()).toBe(0);
    expectNoPageErrors(phone);
    await Promise.all([phone.context.close(), late.context.close()]);
  });

  it('[DUR-11] a browser clock five minutes off changes the countdown by no more than a second', async () => {
    await failingSession('s-clock', 55);
    const pages = await Promise.all(
      [0, 5 * 60_000, -5 * 60_000].map((clockOffsetMs) =>
        ui.open({ role: 'viewer', path: sessionPath('s-clock'), clockOffsetMs }),
      ),
    );
    for (const { page } of pages) await expect.poll(() => card(page).getByRole('timer').count()).toBe(1);
    const readings = await Promise.all(
      pages.map(async ({ page }) => seconds(await card(page).getByRole('timer').innerText())),
    );
    expect(readings[0]).toBeGreaterThan(0);
    for (const reading of readings) expect(Math.abs(reading - readings[0]!)).toBeLessThanOrEqual(1);
    for (const open of pages) await open.context.close();
  });

  it('a viewer sees the card and the recovery choices but no Cancel and no choice buttons', async () => {
    await failingSession('s-viewer', 50);
    await failingSession('s-viewer-2', 50);
    await ui.service.call(
      'POST',
      api('s-viewer-2', '/retry/cancel'),
      { task_id: task, owner: 'alice' },
      'operator',
    );
    const open = await ui.open({ role: 'viewer', path: sessionPath('s-viewer') });
    const { page } = open;
    await expect.poll(() => card(page).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Cancel', exact: true }).count()).toBe(0);
    expect(await card(page).innerText()).toContain('An operator can cancel it.');
    await page.goto(ui.url + sessionPath('s-viewer-2'));
    const recovery = page.getByRole('region', { name: 'Needs your choice' });
    await expect.poll(() => recovery.count()).toBe(1);
    expect(await recovery.getByRole('button').count()).toBe(0);
    expect(await recovery.innerText()).toContain('An operator chooses one of these.');
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('while the session is still loading an operator is told so, never that only an operator can cancel; Cancel follows it', async () => {
    await failingSession('s-slow-owner', 50);
    const open = await ui.open({ role: 'operator' });
    const { page } = open;
    // Hold the session document (whose owner Cancel acts for) until the card is on screen; the messages pass.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname === api('s-slow-owner', ''),
      async (route) => {
        await held;
        await route.continue();
      },
    );
    await page.goto(ui.url + sessionPath('s-slow-owner'));
    await expect.poll(() => card(page).count()).toBe(1);
    expect(await card(page).innerText()).toContain('Loading who may cancel');
    expect(await card(page).innerText()).not.toContain('An operator can cancel it.');
    expect(await cancelButton(page).count()).toBe(0);
    release();
    await expect.poll(() => cancelButton(page).count()).toBe(1);
    expect(await card(page).innerText()).not.toContain('Loading who may cancel');
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('the sessions list says each session’s state in words and links to it, at every size and theme; hostile ids stay text', async () => {
    // Ids have the route id's shape (the service refuses markup in them, 422): the hostile part left is a long
    // id with a slash, which must survive the address bar and the API path, and a long owner.
    const hostile = `s/long-${'x'.repeat(110)}`;
    const owner = `mallory@ops:${'o'.repeat(110)}`;
    await failingSession(hostile, 50, owner);
    await failingSession('s-listed', 50);
    await atEverySizeAndTheme(
      (viewport, theme) => ui.open({ role: 'operator', viewport, theme, path: '/sessions' }),
      async (page, viewport, theme) => {
        const link = page.getByRole('link', { name: 's-listed', exact: true });
        await expect.poll(() => link.count()).toBe(1);
        const row = page.getByRole('row').filter({ has: link });
        expect(await row.innerText()).toMatch(/Waiting to retry|Needs your action/);
        expect(await page.getByRole('link', { name: hostile }).count()).toBe(1);
        expect(await page.locator('main').innerText()).toContain(owner);
        expect(await page.locator('main script').count()).toBe(0);
        await expectGoodLook(page, viewport, `sessions-list-${viewport}-${theme}`);
        if (viewport === 'desktop' && theme === 'light') {
          await page.getByRole('link', { name: hostile }).click();
          await expect.poll(() => card(page).count()).toBe(1);
          expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(`Session ${hostile}`);
          // Cancel acts for the owner the session document names.
          await cancelButton(page).click();
          await expect.poll(() => page.getByRole('region', { name: 'Needs your choice' }).count()).toBe(1);
          await page.goBack();
        }
      },
    );
  });
});
