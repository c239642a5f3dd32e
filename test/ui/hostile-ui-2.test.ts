import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { tokens } from '../helpers/service.js';
import { expectNoPageErrors, useUiSuite, viewports } from './harness.js';
import { seedProfile } from './profiles-fixtures.js';
import { fail, failingSession, rateLimited, startRoute } from './routes-fixtures.js';

/**
 * A hostile user's second round of probes, in Chromium against the built `recourse serve`: a session that ends
 * while the page is open, deep links opened signed out.
 */
const ui = useUiSuite();

describe('a session that ends while the page is open', () => {
  it('a deep link opened signed out comes back to that page after signing in, with its query', async () => {
    await seedProfile(ui.service, 'h2-deep');
    const context = await ui.browser.newContext({ viewport: viewports.desktop });
    const page = await context.newPage();
    await page.goto(`${ui.url}/profiles/h2-deep?from=link`);
    await page.getByRole('heading', { name: 'Sign in to Recourse' }).waitFor();
    // Nobody was signed in, so nothing "ended".
    expect(await page.getByText('Your session ended').count()).toBe(0);
    await page.getByLabel('Access token').fill(tokens.admin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as admin').waitFor();
    await page.getByText('Profile h2-deep', { exact: false }).waitFor();
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/profiles/h2-deep?from=link');
    await context.close();
  });

  it('an action refused because the session ended says so in words, and signing in again returns to the route', async () => {
    await fail(ui.service, await startRoute(ui.service, 'h2-ended'), rateLimited(600));
    const open = await ui.open({ role: 'operator', path: '/routes/h2-ended' });
    const { page, context } = open;
    await page.getByRole('button', { name: 'Cancel wait' }).waitFor();
    await context.clearCookies(); // as when the cookie expires or its token is revoked
    await page.getByRole('button', { name: 'Cancel wait' }).click();
    await page.getByRole('heading', { name: 'Sign in to Recourse' }).waitFor();
    expect(await page.getByRole('alert').innerText()).toMatch(/session ended.*not done/is);
    await page.getByLabel('Access token').fill(tokens.operator);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.route-headline').waitFor();
    expect(new URL(page.url()).pathname).toBe('/routes/h2-ended');
    // The refused Cancel changed nothing.
    expect((await ui.service.call<{ state: string }>('GET', '/v1/routes/h2-ended')).body.state).toBe(
      'retry_wait',
    );
    await context.close();
  });

  it('a return address that leaves the site is ignored: signing in lands on the board', async () => {
    const context = await ui.browser.newContext({ viewport: viewports.desktop });
    const page = await context.newPage();
    for (const next of [
      '//evil.example/x',
      'https://evil.example/',
      '/\\evil.example',
      'javascript:alert(1)',
    ]) {
      await page.goto(`${ui.url}/sign-in?next=${encodeURIComponent(next)}`);
      await page.getByLabel('Access token').fill(tokens.viewer);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('Signed in as viewer').waitFor();
      await page.waitForURL(/\/routes$/);
      expect(new URL(page.url()).origin).toBe(ui.url);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in to Recourse' }).waitFor();
    }
    await context.close();
  });
});

describe('the lists under a double click', () => {
  const seeders = {
    sessions: async (i: number) =>
      ui.service.call(
        'POST',
        '/v1/sessions',
        { task_id: 'h2-more', session_id: `h2-more-${i}`, profile_id: 'concrete-main', owner: 'alice' },
        'adapter',
      ),
    plans: async (i: number) => ui.service.call('PUT', `/v1/plans/h2-more-${i}`, {}, 'adapter'),
  } as const;
  for (const list of ['sessions', 'plans'] as const) {
    it(`"Show more ${list}" pressed twice shows each row once`, async () => {
      for (let i = 0; i < 53; i++) expect((await seeders[list](i)).status).toBeLessThan(300);
      const open = await ui.open({ role: 'viewer', path: `/${list}` });
      const { page } = open;
      const more = page.getByRole('button', { name: `Show more ${list}` });
      await more.waitFor();
      await more.dblclick();
      await expect.poll(() => page.locator('main tbody tr').count()).toBeGreaterThanOrEqual(53);
      await page.waitForTimeout(1000); // a second answer to the same page would land by now
      const ids = await page.locator('main tbody tr td:first-child').allInnerTexts();
      expect(ids.length).toBe(new Set(ids).size);
      expect(ids.filter((id) => id.startsWith('h2-more-')).length).toBe(53);
      expectNoPageErrors(open);
      await open.context.close();
    });
  }
});

describe('the policy editor from the keyboard', () => {
  it('[UI-09] moving a candidate to the first or last place keeps the focus on its row and says where it went', async () => {
    await seedProfile(ui.service, 'h2-move');
    const open = await ui.open({ path: '/profiles/h2-move' });
    const { page } = open;
    const down = page.getByRole('button', { name: 'Move down claude-code' });
    await down.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('candidate-1').innerText()).toContain('claude-code');
    await page.waitForTimeout(200);
    // At the last place its Move down is disabled: the focus goes to its Move up, not to the page body.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Move up claude-code');
    await expect.poll(() => page.getByRole('status').innerText()).toContain('claude-code is now 2 of 2');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('candidate-0').innerText()).toContain('claude-code');
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Move down claude-code');
    expectNoPageErrors(open);
    await open.context.close();
  });
});

describe('keyboard focus after an action whose button goes away', () => {
  const focusedIsBody = (page: Page) =>
    page.evaluate(() => document.activeElement === null || document.activeElement === document.body);

  it('Save from the keyboard keeps the focus on Save once the service answers', async () => {
    await seedProfile(ui.service, 'h2-save');
    const open = await ui.open({ path: '/profiles/h2-save' });
    const { page } = open;
    await page.getByLabel('Name').fill('Team renamed');
    await page.getByRole('button', { name: 'Save', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('save-outcome').filter({ hasText: 'Saved.' }).waitFor();
    await page.waitForTimeout(200);
    expect(await focusedIsBody(page)).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Save');
    await open.context.close();
  });

  it('Discard edits, and Load version after a stale save, from the keyboard keep the focus at the save bar', async () => {
    await seedProfile(ui.service, 'h2-discard');
    const open = await ui.open({ path: '/profiles/h2-discard' });
    const { page } = open;
    await page.getByLabel('Name').fill('Team edited');
    await page.getByRole('button', { name: 'Discard edits' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByLabel('Name').inputValue()).toBe('Team h2-discard');
    await page.waitForTimeout(200);
    expect(await focusedIsBody(page)).toBe(false);
    // Someone else saves meanwhile: this page's save is stale, and loading theirs retires the banner's button.
    const stored = (await ui.service.call<Record<string, unknown>>('GET', '/v1/profiles/h2-discard')).body;
    expect(
      (await ui.service.call('PUT', '/v1/profiles/h2-discard', { ...stored, name: 'Team theirs' })).status,
    ).toBe(200);
    await page.getByLabel('Name').fill('Team mine');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const load = page.getByRole('button', { name: /^Load version 2/ });
    await load.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => load.count()).toBe(0);
    await page.waitForTimeout(200);
    expect(await focusedIsBody(page)).toBe(false);
    await open.context.close();
  });

  it('a plan action from the keyboard leaves the focus in the actions section, not on the page body', async () => {
    expect((await ui.service.call('PUT', '/v1/plans/h2-plan', { max_retries: 2 }, 'operator')).status).toBe(
      200,
    );
    const recorded = await ui.service.call(
      'POST',
      '/v1/plans/h2-plan/errors',
      { phase: 'strategize', message: 'Connection timed out after 30s', exception_type: 'TimeoutError' },
      'adapter',
    );
    expect(recorded.status).toBe(200);
    const open = await ui.open({ role: 'operator', path: '/plans/h2-plan' });
    const { page } = open;
    await page.getByRole('button', { name: 'Retry the phase', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('plan-action-outcome').filter({ hasText: 'done' }).waitFor();
    await expect.poll(() => page.getByTestId('plan-now').innerText()).toContain('Running');
    await page.waitForTimeout(200);
    expect(await focusedIsBody(page)).toBe(false);
    expect(
      await page.evaluate(
        () => document.activeElement?.closest('[aria-labelledby="plan-actions-title"]') !== null,
      ),
    ).toBe(true);
    await open.context.close();
  });

  it('[NOT-41] Resume from the keyboard leaves the focus in the transcript, not on the page body', async () => {
    await failingSession(ui.service, { taskId: 'h2-task', sessionId: 'h2-resume' }, 50);
    const open = await ui.open({ role: 'operator', path: '/sessions/h2-resume?task_id=h2-task' });
    const { page } = open;
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    const recovery = page.getByRole('region', { name: 'Needs your choice' });
    await recovery.waitFor();
    await recovery.getByRole('button', { name: 'Resume', exact: true }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => recovery.count()).toBe(0);
    await page.waitForTimeout(200);
    expect(await focusedIsBody(page)).toBe(false);
    expectNoPageErrors(open);
    await open.context.close();
  });
});

describe('the sign-in form under hostile input', () => {
  it('a 10 kB paste is refused in words, with no field path or validator jargon, and nobody is signed in', async () => {
    const context = await ui.browser.newContext({ viewport: viewports.phone });
    const page = await context.newPage();
    await page.goto(`${ui.url}/sign-in`);
    await page.getByLabel('Access token').fill(`${tokens.admin}${'x'.repeat(10_000)}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = await alert.innerText();
    expect(text).toContain('at most 512 characters');
    expect(text).not.toMatch(/\/token|Too big|expected string/);
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });
});

describe('roles', () => {
  it('an adapter signed in is told its own role on a route it may not act on, never that it is a viewer', async () => {
    await fail(ui.service, await startRoute(ui.service, 'h2-adapter'), rateLimited(600));
    const open = await ui.open({ role: 'adapter', path: '/routes/h2-adapter' });
    const { page } = open;
    await page.locator('.route-headline').waitFor();
    const text = await page.locator('main').innerText();
    expect(text).toContain('You are signed in as an adapter');
    expect(text).not.toContain('as a viewer');
    expect(await page.locator('.route-action-buttons button').count()).toBe(0);
    await open.context.close();
  });
});
