import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  expectGoodLook,
  expectNoPageErrors,
  phoneLayoutProblems,
  screenshot,
  themes,
  useUiSuite,
  viewportNames,
  type ViewportName,
} from './harness.js';
import { candidate, openAll, section, seedProfile } from './profiles-fixtures.js';

/**
 * The profiles list and the editor's look: every state of the editor (closed, open, invalid, saved, conflict) keeps
 * the phone layout promises, axe finds nothing on either theme, and each page is saved as a screenshot per size.
 */
const ui = useUiSuite(async (service) => {
  await seedProfile(service, 'team');
  await seedProfile(service, 'night-shift');
});

async function checkState(page: Page, viewport: ViewportName, name: string, theme: string): Promise<void> {
  await expectGoodLook(page, viewport, `profiles-${name}-${viewport}-${theme}`, `${name} ${theme}`);
}

describe.each(viewportNames)('profiles pages at %s', (viewport) => {
  it.each(themes)(
    '[UI-09][UI-10] the editor keeps the layout and accessibility in every state (%s theme)',
    async (theme) => {
      const open = await ui.open({ viewport, theme, path: '/profiles/team' });
      const { page } = open;
      await candidate(page, 0).waitFor();
      await checkState(page, viewport, 'editor-closed', theme);
      await openAll(page);
      expect(await page.locator('button[aria-expanded="true"]').count()).toBe(2);
      await checkState(page, viewport, 'editor-open', theme);
      await section(page, 0, 'Transient errors').getByLabel('Maximum retries').fill('');
      await section(page, 1, 'Hard errors').getByLabel("Wait for the provider's reset time").check();
      await section(page, 1, 'Hard errors').getByLabel('Maximum wait').fill('99d');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByTestId('save-outcome').waitFor();
      expect(await page.locator('.field-error').count()).toBeGreaterThanOrEqual(2);
      await checkState(page, viewport, 'editor-invalid', theme);
      await page.getByRole('button', { name: 'Discard edits' }).click();
      expect(await page.locator('[aria-invalid="true"]').count()).toBe(0);
      expectNoPageErrors(open);
      await open.context.close();
    },
  );

  it('[UI-10] the saved and conflict states keep the phone layout and accessibility', async () => {
    const id = `states-${viewport}`;
    await seedProfile(ui.service, id);
    const open = await ui.open({ viewport, path: `/profiles/${id}` });
    const { page } = open;
    await openAll(page);
    await section(page, 0, 'Hard errors').getByRole('radio', { name: 'Skip candidate' }).check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByTestId('save-outcome').innerText()).toContain('Saved.');
    await page.getByRole('button', { name: 'The stored document' }).click();
    await checkState(page, viewport, 'editor-saved', 'light');
    // Another client saves; ours is now stale.
    const current = (await ui.service.call('GET', `/v1/profiles/${id}`)).body;
    expect(
      (await ui.service.call('PUT', `/v1/profiles/${id}`, { ...current, name: 'Renamed elsewhere' })).status,
    ).toBe(200);
    await section(page, 0, 'Transient errors').getByLabel('Maximum retries').fill('9');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(() => page.getByTestId('save-outcome').innerText())
      .toContain('someone else saved version 3');
    expect(await page.getByTestId('conflict-changes').innerText()).toContain(
      `Name: Team ${id} → Renamed elsewhere`,
    );
    await checkState(page, viewport, 'editor-conflict', 'light');
    expectNoPageErrors(open);
    await open.context.close();
  });

  it.each(themes)(
    'the list shows each profile with a one-line summary per candidate, linking to its editor (%s theme)',
    async (theme) => {
      const open = await ui.open({ viewport, theme, path: '/profiles' });
      const { page } = open;
      const team = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Team team' }) });
      await team.waitFor();
      expect(await team.innerText()).toContain(
        'claude-code: Transient: retry 3× from 5 s, then skip · Hard: wait for reset up to 2 h, then stop',
      );
      expect(await team.innerText()).toContain('codex: Transient: skip · Hard: skip');
      expect(await page.getByRole('heading', { name: 'New profile' }).count()).toBe(1);
      await checkState(page, viewport, 'list', theme);
      await team.getByRole('link', { name: 'Team team' }).click();
      await page.waitForURL(/\/profiles\/team$/);
      await candidate(page, 0).waitFor();
      expectNoPageErrors(open);
      await open.context.close();
    },
  );

  it('an admin creates a profile (hostile names stay text; a taken id is refused); a viewer has no create control', async () => {
    const open = await ui.open({ viewport, path: '/profiles' });
    const { page } = open;
    await page.getByRole('heading', { name: 'New profile' }).waitFor();
    // Invalid first: every field's message at once, nothing sent.
    await page.getByLabel('Id', { exact: true }).fill('<script>');
    await page.getByRole('button', { name: 'Create profile' }).click();
    expect(await page.locator('.create-profile .field-error').count()).toBe(3);
    if (viewport !== 'desktop') expect(await phoneLayoutProblems(page)).toEqual([]);
    // A taken id is a 409, never an overwrite.
    await page.getByLabel('Id', { exact: true }).fill('team');
    await page.getByLabel('Name', { exact: true }).fill('Overwrite attempt');
    await page.getByLabel('First candidate').fill('claude-code');
    await page.getByRole('button', { name: 'Create profile' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('already exists');
    expect((await ui.service.call('GET', '/v1/profiles/team')).body).toMatchObject({ name: 'Team team' });
    // A new one, with a hostile name shown as text.
    const id = `new-${viewport}`;
    const name = `<script>alert(1)</script> ${'x'.repeat(150)}`;
    await page.getByLabel('Id', { exact: true }).fill(id);
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('button', { name: 'Create profile' }).click();
    await page.waitForURL(new RegExp(`/profiles/${id}$`));
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe(name);
    expect(await page.locator('main script').count()).toBe(0);
    await openAll(page);
    if (viewport !== 'desktop') expect(await phoneLayoutProblems(page)).toEqual([]);
    await screenshot(page, `profiles-created-${viewport}-light`);
    expectNoPageErrors(open);
    await open.context.close();

    const viewer = await ui.open({ viewport, role: 'viewer', path: '/profiles' });
    await viewer.page.getByRole('link', { name: 'Team team' }).waitFor();
    expect(await viewer.page.getByRole('heading', { name: 'New profile' }).count()).toBe(0);
    expect(await viewer.page.getByRole('main').getByRole('textbox').count()).toBe(0);
    expectNoPageErrors(viewer);
    await viewer.context.close();
  });

  it('an unknown id says there is no such profile; a 2,000-character one says why it cannot be loaded', async () => {
    const open = await ui.open({ viewport, path: '/profiles/no-such-profile' });
    await expect
      .poll(() => open.page.getByRole('alert').innerText())
      .toContain('There is no profile with this id.');
    await open.page.goto(`${ui.url}/profiles/${'a'.repeat(2000)}`);
    await expect
      .poll(() => open.page.getByRole('alert').innerText())
      .toContain('The profile could not be loaded: a path segment is longer than 512 characters');
    if (viewport !== 'desktop') expect(await phoneLayoutProblems(open.page)).toEqual([]);
    await open.context.close();
  });
});
