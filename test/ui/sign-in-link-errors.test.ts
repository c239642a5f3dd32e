import { describe, expect, it } from 'vitest';
import { useUiSuite, viewports } from './harness.js';

/**
 * The sign-in page reads the `?error=` a refused sign-in link came back with. A crafted link naming a member every
 * JavaScript object has (`__proto__`, `constructor`) must show the form with no problem, not break the page.
 */
const ui = useUiSuite();

describe('a sign-in link back with an ?error= that names no problem', () => {
  it.each(['__proto__', 'constructor', 'toString'])(
    '/sign-in?error=%s shows the form, no problem, no page error',
    async (name) => {
      const context = await ui.browser.newContext({ viewport: viewports.desktop });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${ui.url}/sign-in?error=${name}`);
      await page.getByRole('heading', { name: 'Sign in to Recourse' }).waitFor({ timeout: 5_000 });
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it('a known problem is still said', async () => {
    const context = await ui.browser.newContext({ viewport: viewports.desktop });
    const page = await context.newPage();
    await page.goto(`${ui.url}/sign-in?error=too_many_refused_tokens`);
    await page.getByRole('heading', { name: 'Sign in to Recourse' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('Too many tokens were refused');
    await context.close();
  });
});
