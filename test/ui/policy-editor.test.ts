import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  expectNoPageErrors,
  phoneLayoutProblems,
  useUiSuite,
  viewportNames,
  type ViewportName,
} from './harness.js';
import { candidate, cliPreview, openAll, pagePreview, section, seedProfile } from './profiles-fixtures.js';

/**
 * The policy editor (`/profiles/ID`) against the real `recourse serve` in Chromium, at each size: editing both
 * class policies, inline validation, saving and reloading, the preview against the CLI's, and refusals.
 */
const ui = useUiSuite();

async function expectPhoneLayout(page: Page, viewport: ViewportName): Promise<void> {
  if (viewport !== 'desktop') expect(await phoneLayoutProblems(page)).toEqual([]);
}

describe.each(viewportNames)('policy editor at %s', (viewport) => {
  it('[UI-01][UI-02][UI-03][UI-04][UI-05][UI-06][UI-08][UI-09][SCN-11] edits both class policies, the preview following every keystroke, and saves only version 1', async () => {
    const id = `edit-${viewport}`;
    await seedProfile(ui.service, id);
    const open = await ui.open({ viewport, path: `/profiles/${id}` });
    const { page } = open;
    const row = candidate(page, 0);
    await expect
      .poll(() => row.getByTestId('candidate-summary').textContent())
      .toBe('Transient: retry 3× from 5 s, then skip · Hard: wait for reset up to 2 h, then stop');
    const disclosure = row.getByRole('button', { name: 'Edit the policy for claude-code' });
    expect(await disclosure.getAttribute('aria-expanded')).toBe('false');
    expect(await section(page, 0, 'Transient errors').isVisible()).toBe(false);
    await disclosure.click();
    expect(await disclosure.getAttribute('aria-expanded')).toBe('true');
    await expectPhoneLayout(page, viewport);

    const transient = section(page, 0, 'Transient errors');
    const hard = section(page, 0, 'Hard errors');
    // UI-02/UI-03: each class explained in visible text with concrete examples, not a tooltip.
    const transientText = await transient.innerText();
    for (const example of [
      'overloaded (529)',
      'rate limited (429)',
      'Retry-After',
      'stream was cut',
      'timed out',
    ])
      expect(transientText).toContain(example);
    const hardText = await hard.innerText();
    for (const example of [
      'usage or plan limit',
      'invalid or expired credentials',
      'model that was not found',
      'billing or credit balance',
    ])
      expect(hardText).toContain(example);
    expect(hardText).toContain('trusted reset time in the future that is within the maximum wait'); // UI-06

    // Transient: 4 retries from 10 s. The preview changes on each keystroke, before any blur or save.
    const transientPreview = transient.getByTestId('schedule-transient');
    await transient.getByLabel('Maximum retries').fill('4');
    const interval = transient.getByLabel('Initial interval');
    await interval.fill('');
    await interval.pressSequentially('2');
    expect(await transientPreview.innerText()).toContain('Retry 1 after 2 s · 2 after 4 s');
    await interval.pressSequentially('m');
    expect(await transientPreview.innerText()).toContain('Retry 1 after 2 min · 2 after 4 min');
    await interval.fill('10s');
    expect(await transientPreview.innerText()).toContain(
      'Retry 1 after 10 s · 2 after 20 s · 3 after 40 s · 4 after 1 min 20 s, 2 min 30 s of waiting, then skip to the next candidate.',
    );

    // Hard: turn retry on (2 from 1 min), wait up to 3 h, and skip instead of stopping.
    await hard.getByLabel('Retry the same candidate').check();
    await hard.getByLabel('Maximum retries').fill('2');
    await hard.getByLabel('Initial interval').fill('1m');
    await hard.getByLabel('Maximum wait').fill('3h');
    await hard.getByRole('radio', { name: 'Skip candidate' }).check();
    const hardPreview = await hard.getByTestId('schedule-hard').innerText();
    expect(hardPreview).toContain(
      'If the provider gives a trusted reset time within 3 h, wait for it once, then try once more.',
    );
    expect(hardPreview).toContain(
      'Otherwise retry 1 after 1 min · 2 after 2 min, 3 min of waiting, then skip to the next candidate.',
    );
    expect(await row.getByTestId('candidate-summary').textContent()).toBe(
      'Transient: retry 4× from 10 s, then skip · Hard: wait for reset up to 3 h, retry 2× from 1 min, then skip',
    );
    await expectPhoneLayout(page, viewport);

    // UI-05: the page's numbers are the CLI's for the same document.
    const policy = {
      version: 1,
      transient: {
        retry: { enabled: true, max_retries: 4, initial_interval_seconds: 10 },
        wait_for_reset: { enabled: false },
        on_exhausted: 'skip',
      },
      hard: {
        retry: { enabled: true, max_retries: 2, initial_interval_seconds: 60 },
        wait_for_reset: { enabled: true, max_wait_seconds: 10_800 },
        on_exhausted: 'skip',
      },
    };
    const cli = cliPreview(ui.service.dir, policy);
    expect(await pagePreview(page, 0, 'transient')).toEqual(cli.transient);
    expect(await pagePreview(page, 0, 'hard')).toEqual(cli.hard);

    // Save: the request is the normalized version 1 document of the version edited (UI-08).
    const sent = page.waitForRequest((r: Request) => r.method() === 'PUT');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const request = await sent;
    expect(request.headers()['if-match']).toBe('"1"');
    const body = request.postDataJSON() as { candidates: Array<{ policy: Record<string, unknown> }> };
    for (const c of body.candidates)
      expect(Object.keys(c.policy).sort()).toEqual(['hard', 'transient', 'version']);
    const outcome = page.getByTestId('save-outcome');
    await expect.poll(() => outcome.innerText()).toContain('Saved.');
    expect(await outcome.innerText()).toContain('version 2');
    await outcome.getByRole('button', { name: 'The stored document' }).click();
    const shown = JSON.parse(await page.getByTestId('saved-document').innerText()) as Record<string, unknown>;
    const stored = await ui.service.call('GET', `/v1/profiles/${id}`);
    expect(shown).toEqual(stored.body);
    const storedPolicy = (stored.body as { candidates: Array<{ policy: unknown }> }).candidates[0]!.policy;
    expect(storedPolicy).toEqual({
      version: 1,
      transient: {
        retry: { enabled: true, max_retries: 4, initial_interval_seconds: 10 },
        wait_for_reset: { enabled: false, max_wait_seconds: 0 },
        on_exhausted: 'skip',
      },
      hard: {
        retry: { enabled: true, max_retries: 2, initial_interval_seconds: 60 },
        wait_for_reset: { enabled: true, max_wait_seconds: 10_800 },
        on_exhausted: 'skip',
      },
    });
    // The saved candidate policy through the CLI gives the page's numbers too.
    const saved = cliPreview(ui.service.dir, storedPolicy);
    expect(await pagePreview(page, 0, 'hard')).toEqual(saved.hard);

    // Reload: the stored document comes back into the form, durations in units.
    await page.reload();
    await openAll(page);
    expect(await section(page, 0, 'Transient errors').getByLabel('Maximum retries').inputValue()).toBe('4');
    expect(await section(page, 0, 'Transient errors').getByLabel('Initial interval').inputValue()).toBe(
      '10s',
    );
    expect(await section(page, 0, 'Hard errors').getByLabel('Maximum wait').inputValue()).toBe('3h');
    expect(await section(page, 0, 'Hard errors').getByLabel('Initial interval').inputValue()).toBe('1m');
    expect(await page.getByText('version 2').count()).toBeGreaterThan(0);
    await expectPhoneLayout(page, viewport);
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-07] shows every invalid field at once beside its field, keeps an emptied field empty, and never claims a rejected save', async () => {
    const id = `invalid-${viewport}`;
    await seedProfile(ui.service, id);
    const open = await ui.open({ viewport, path: `/profiles/${id}` });
    const { page } = open;
    await openAll(page);
    const transient = section(page, 0, 'Transient errors');
    const hard = section(page, 0, 'Hard errors');
    const retries = transient.getByLabel('Maximum retries');
    await retries.fill('');
    await transient.getByLabel('Initial interval').fill('2h');
    await hard.getByLabel('Maximum wait').fill('8d');
    await hard.getByLabel('Maximum wait').blur();
    // Three messages at once, each tied to its own field (aria-describedby) and visible beside it.
    for (const field of [
      retries,
      transient.getByLabel('Initial interval'),
      hard.getByLabel('Maximum wait'),
    ]) {
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
      const errorId = describedBy.split(' ').find((d) => d.endsWith('-error'));
      expect(errorId).toBeDefined();
      expect(await page.locator(`#${errorId!}`).isVisible()).toBe(true);
    }
    expect(await transient.locator('.field-error').allInnerTexts()).toEqual([
      expect.stringContaining('Maximum retries must be an integer from 1 to 10'),
      expect.stringContaining('Initial interval must be an integer from 1 to 3600'),
    ]);
    expect(await hard.locator('.field-error').allInnerTexts()).toEqual([
      expect.stringContaining('Maximum wait must be an integer from 1 to 604800'),
    ]);
    // A typo gets the form's own words; the preview shows what it still can.
    await hard.getByLabel('Maximum wait').fill('5 parsecs');
    expect(await hard.locator('.field-error').allInnerTexts()).toEqual([
      expect.stringContaining('Enter a duration such as 90s'),
    ]);
    const preview = await transient.getByTestId('schedule-transient').innerText();
    expect(preview).toContain(
      'The retries will show here once Maximum retries and Initial interval are valid; after them, skip to the next candidate.',
    );
    expect(await hard.getByTestId('schedule-hard').innerText()).toContain('stop and wait for you to choose');

    let puts = 0;
    page.on('request', (r) => {
      if (r.method() === 'PUT') puts++;
    });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const outcome = page.getByTestId('save-outcome');
    await expect.poll(() => outcome.innerText()).toContain('Not saved.');
    expect(await outcome.innerText()).not.toContain('Saved.');
    expect(puts).toBe(0);
    expect(await retries.inputValue()).toBe(''); // never snaps back
    await expectPhoneLayout(page, viewport);
    expect((await ui.service.call('GET', `/v1/profiles/${id}`)).body).toMatchObject({ version: 1 });
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-07] puts the server’s 422 messages beside the same fields and keeps the edits', async () => {
    const id = `server-422-${viewport}`;
    await seedProfile(ui.service, id);
    const open = await ui.open({ viewport, path: `/profiles/${id}` });
    const { page } = open;
    await openAll(page);
    // A request altered on the way (as an older page or a proxy might send it): the real server judges it.
    await page.route('**/v1/profiles/**', async (route) => {
      if (route.request().method() !== 'PUT') return route.continue();
      const body = route.request().postDataJSON() as {
        candidates: Array<{ policy: { hard: { retry: unknown } } }>;
      };
      body.candidates[1]!.policy.hard.retry = { enabled: true, max_retries: 11, initial_interval_seconds: 5 };
      return route.continue({ postData: JSON.stringify(body) });
    });
    await section(page, 0, 'Transient errors').getByLabel('Maximum retries').fill('5');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const outcome = page.getByTestId('save-outcome');
    await expect.poll(() => outcome.innerText()).toContain('The service refused it');
    expect(await outcome.innerText()).not.toContain('Saved.');
    const codexHard = section(page, 1, 'Hard errors');
    expect(await codexHard.locator('.field-error').allInnerTexts()).toEqual([
      expect.stringContaining('Maximum retries must be an integer from 1 to 10'),
    ]);
    expect(await section(page, 0, 'Transient errors').getByLabel('Maximum retries').inputValue()).toBe('5');
    expect((await ui.service.call('GET', `/v1/profiles/${id}`)).body).toMatchObject({ version: 1 });
    await expectPhoneLayout(page, viewport);
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('a stale save (another client saved meanwhile) shows what the other client changed and offers to load it', async () => {
    const id = `conflict-${viewport}`;
    await seedProfile(ui.service, id);
    const open = await ui.open({ viewport, path: `/profiles/${id}` });
    const { page } = open;
    await openAll(page);
    await section(page, 0, 'Transient errors').getByLabel('Maximum retries').fill('6');
    // Another client saves version 2 meanwhile.
    const current = (await ui.service.call('GET', `/v1/profiles/${id}`)).body as {
      candidates: Array<{ policy: { transient: { retry: { max_retries: number } } } }>;
    };
    current.candidates[0]!.policy.transient.retry.max_retries = 7;
    expect(
      (await ui.service.call('PUT', `/v1/profiles/${id}`, current, 'admin', { 'if-match': '"1"' })).status,
    ).toBe(200);

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const outcome = page.getByTestId('save-outcome');
    await expect.poll(() => outcome.innerText()).toContain('someone else saved version 2');
    expect(await outcome.innerText()).not.toContain('Saved.');
    expect(await page.getByTestId('conflict-changes').innerText()).toContain(
      'Candidate 1 (claude-code) › Transient › Retry › Maximum retries: 3 → 7',
    );
    await expectPhoneLayout(page, viewport);
    // Nothing of ours was stored.
    expect((await ui.service.call('GET', `/v1/profiles/${id}`)).body).toMatchObject({ version: 2 });
    await page.getByRole('button', { name: 'Load version 2 (discards your edits)' }).click();
    expect(await section(page, 0, 'Transient errors').getByLabel('Maximum retries').inputValue()).toBe('7');
    expect(await page.getByText('version 2', { exact: false }).count()).toBeGreaterThan(0);
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('[UI-04][API-06] a viewer and an operator see the policies read-only, with no edit controls', async () => {
    const id = `read-only-${viewport}`;
    await seedProfile(ui.service, id);
    for (const role of ['viewer', 'operator'] as const) {
      const open = await ui.open({ viewport, role, path: `/profiles/${id}` });
      const { page } = open;
      await openAll(page);
      expect(await section(page, 0, 'Transient errors').innerText()).toContain(
        'Retry 1 after 5 s · 2 after 10 s · 3 after 20 s',
      );
      expect(await section(page, 0, 'Hard errors').innerText()).toContain('within 2 h');
      for (const kind of ['textbox', 'checkbox', 'radio'] as const)
        expect(await page.getByRole('main').getByRole(kind).count(), kind).toBe(0);
      expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
      expect(await page.getByText('read-only').count()).toBeGreaterThan(0);
      await expectPhoneLayout(page, viewport);
      // The server refuses the role anyway.
      expect(
        (
          await ui.service.call(
            'PUT',
            `/v1/profiles/${id}`,
            { name: 'x', candidates: [{ profile_id: 'a' }] },
            role,
          )
        ).status,
      ).toBe(403);
      expectNoPageErrors(open);
      await open.context.close();
    }
  });
});
