import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { tokens } from '../helpers/service.js';
import { fragmentLength } from '../helpers/planted-credentials.js';
import {
  axeViolations,
  expectNoPageErrors,
  phoneLayoutProblems,
  screenshot,
  useUiSuite,
  viewports,
  type ThemeName,
  type ViewportName,
} from './harness.js';
import { seedFleet, type Fleet } from './seed.js';

/**
 * The page as a whole, in Debian's Chromium against the built `recourse serve` on a real SQLite file: signing in
 * (the token exchange leaves a cookie and a clean address bar, the form, signing out), and a sweep of every page at
 * every size and theme: no axe-core violation, the phone layout's promises, none of 40 planted credentials in the
 * DOM, no page errors, a screenshot of each (test-artifacts/ui/).
 */
let fleet: Fleet;
const ui = useUiSuite(async (service) => {
  fleet = await seedFleet(service);
});

describe('signing in', () => {
  it('/?token= trades the token for an HttpOnly cookie and leaves a clean address bar', async () => {
    const open = await ui.open({ role: 'operator' });
    const { page } = open;
    expect(page.url()).toBe(`${ui.url}/routes`);
    expect(await page.evaluate(() => document.cookie)).toBe(''); // HttpOnly: the page's script cannot read it
    const cookies = await open.context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookies[0]!.value).not.toContain(tokens.operator);
    await page.getByText('Signed in as operator').waitFor();
    // The event stream opens on the cookie (EventSource sends no header) and the header says so.
    await page
      .getByTestId('connection')
      .filter({ hasText: /^Live$/ })
      .waitFor();
    expect(await page.getByText('Signed in as operator').count()).toBe(1);
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('an unknown token in the link lands on the sign-in form with the problem, and no token in the address', async () => {
    const context = await ui.browser.newContext({ viewport: viewports.desktop });
    const page = await context.newPage();
    await page.goto(`${ui.url}/?token=not-a-real-token-at-all`);
    await page.getByRole('heading', { name: 'Sign in to Recourse' }).waitFor();
    expect(page.url()).not.toContain('not-a-real-token');
    expect(await page.getByRole('alert').textContent()).toContain('That token is not valid');
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });

  it('without a cookie any page asks for a token; a wrong one is refused, the right one signs in; signing out ends it', async () => {
    const context = await ui.browser.newContext({ viewport: viewports.phone });
    const page = await context.newPage();
    await page.goto(`${ui.url}/profiles/${fleet.profileId}`);
    await page.getByRole('heading', { name: 'Sign in to Recourse' }).waitFor();
    await page.getByLabel('Access token').fill('wrong-token-value-123456');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'That token is not valid' }).waitFor();
    expect(await context.cookies()).toEqual([]);
    await page.getByLabel('Access token').fill(tokens.viewer);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as viewer').waitFor();
    expect(page.url()).not.toContain(tokens.viewer);
    expect(await page.getByLabel('Access token').count()).toBe(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Recourse' }).waitFor();
    const me = await page.evaluate(async () => (await fetch('/v1/me')).status);
    expect(me).toBe(401);
    await context.close();
  });

  it('the skip link and every section are reachable from the keyboard', async () => {
    const open = await ui.open();
    const { page } = open;
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    const reached: string[] = [];
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      reached.push((await page.evaluate(() => document.activeElement?.textContent ?? '')).trim());
    }
    for (const section of ['Routes', 'Sessions', 'Profiles', 'Plans']) expect(reached).toContain(section);
    await page.keyboard.press('Enter'); // on whatever control it reached: the page keeps working
    expectNoPageErrors(open);
    await open.context.close();
  });
});

/** Every page of the UI, with the fleet's ids. */
function pagesOf(f: Fleet): Array<{ name: string; path: string }> {
  return [
    { name: 'routes', path: '/routes' },
    { name: 'route-waiting', path: `/routes/${f.waitingRouteId}` },
    { name: 'route-stopped', path: `/routes/${f.stoppedRouteIds[0]!}` },
    { name: 'sessions', path: '/sessions' },
    { name: 'session', path: `/sessions/${f.session.sessionId}?task_id=${f.session.taskId}` },
    { name: 'profiles', path: '/profiles' },
    { name: 'profile', path: `/profiles/${f.profileId}` },
    { name: 'plans', path: '/plans' },
    { name: 'plan', path: `/plans/${f.planId}` },
  ];
}

/** Opens every closed disclosure (Details, policy areas), so the sweep sees everything a person can open. */
async function openEveryDisclosure(page: Page): Promise<void> {
  for (let round = 0; round < 5; round++) {
    const closed = page.locator('[aria-expanded="false"]:visible');
    const count = await closed.count();
    if (count === 0) return;
    for (let i = count - 1; i >= 0; i--) await closed.nth(i).click();
  }
}

/** The planted credentials (or any 12-character piece of one) found in the page's markup and form values. */
async function secretsIn(page: Page, secrets: readonly string[]): Promise<string[]> {
  const text = await page.evaluate(
    () =>
      document.documentElement.outerHTML +
      [...document.querySelectorAll('input, textarea')].map((e) => (e as HTMLInputElement).value).join('\n'),
  );
  return secrets.filter((secret) => {
    for (let i = 0; i + fragmentLength <= secret.length; i++) {
      if (text.includes(secret.slice(i, i + fragmentLength))) return true;
    }
    return false;
  });
}

/**
 * Every size in one theme or the other, and both themes on the desktop (the per-area suites run their pages in
 * both themes at every size; the sweep's own work is every page, the secrets and the layout).
 */
const sweeps: ReadonlyArray<readonly [ViewportName, ThemeName]> = [
  ['desktop', 'light'],
  ['desktop', 'dark'],
  ['phone', 'dark'],
  ['small', 'light'],
];

describe('every page, every size, both themes', () => {
  it('plants at least 40 distinct credentials in the failures the pages show', () => {
    expect(new Set(fleet.secrets).size).toBeGreaterThanOrEqual(40);
    expect(fleet.secrets.length).toBe(new Set(fleet.secrets).size);
  });

  for (const [size, theme] of sweeps) {
    it(`[UI-10][UI-12] at ${size} in ${theme}: no axe violation, no secret, ${size === 'desktop' ? '' : 'no overflow, 44 px controls, '}a screenshot`, async () => {
      const open = await ui.open({ viewport: size, theme });
      const { page } = open;
      const problems: string[] = [];
      for (const { name, path } of pagesOf(fleet)) {
        await page.goto(ui.url + path);
        await page.locator('main h1').first().waitFor();
        await page.waitForLoadState('networkidle');
        expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
        await openEveryDisclosure(page);
        for (const v of await axeViolations(page)) problems.push(`${name}: ${v}`);
        if (size !== 'desktop')
          for (const p of await phoneLayoutProblems(page)) problems.push(`${name}: ${p}`);
        for (const s of await secretsIn(page, fleet.secrets))
          problems.push(`${name}: shows a planted secret ${s.slice(0, 6)}…`);
        await screenshot(page, `${name}-${size}-${theme}`);
      }
      expect(problems).toEqual([]);
      expectNoPageErrors(open);
      await open.context.close();
    });
  }

  it('a viewer is offered no control that changes anything, on any page', async () => {
    const open = await ui.open({ role: 'viewer' });
    const { page } = open;
    const offered: string[] = [];
    for (const { name, path } of pagesOf(fleet)) {
      await page.goto(ui.url + path);
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      await openEveryDisclosure(page);
      const names = await page
        .locator('main button:visible')
        .evaluateAll((buttons) => buttons.map((b) => (b.textContent ?? '').trim()));
      for (const label of names) {
        if (
          /save|retry now|skip|cancel|stop|resume|start fresh|new profile|delete|revert|correct/i.test(label)
        )
          offered.push(`${name}: ${label}`);
      }
      expect(await page.locator('main input:not([disabled]):not([readonly])').count(), name).toBe(0);
    }
    expect(offered).toEqual([]);
    await open.context.close();
  });
});
