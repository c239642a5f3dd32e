import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { tokens } from '../helpers/service.js';
import {
  atEverySizeAndTheme,
  expectGoodLook,
  expectNoPageErrors,
  screenshot,
  useUiSuite,
} from './harness.js';

const run = promisify(execFile);

/** Plan errors (seed 004) in Chromium against the built `recourse serve`; errors recorded through the API. */
describe('plan pages', () => {
  const ui = useUiSuite();

  const record = async (planId: string, body: Record<string, unknown>) => {
    const answer = await ui.service.call('POST', `/v1/plans/${planId}/errors`, body, 'adapter');
    expect(answer.status).toBe(200);
  };

  /** A plan that failed twice in strategize (a timeout, then a validation error), resumed once between. */
  async function erroredPlan(planId: string): Promise<void> {
    expect((await ui.service.call('PUT', `/v1/plans/${planId}`, { max_retries: 2 }, 'operator')).status).toBe(
      200,
    );
    await record(planId, {
      phase: 'strategize',
      message: 'Connection timed out after 30s',
      exception_type: 'TimeoutError',
    });
    expect(
      (await ui.service.call('POST', `/v1/plans/${planId}/actions`, { action: 'retry' }, 'operator')).status,
    ).toBe(200);
    await record(planId, {
      phase: 'strategize',
      message: 'expected 3 items but got 2 <script>alert(1)</script>',
      exception_type: 'ValidationError',
      actor: 'planner',
    });
  }

  /** What `recourse errors PLAN_ID --format plain` prints: the page must say the same things. */
  async function cliPlain(planId: string): Promise<string> {
    const { stdout } = await run(
      process.execPath,
      ['dist/cli/main.js', 'errors', planId, '--format', 'plain'],
      {
        env: { ...process.env, RECOURSE_SERVER: ui.url, RECOURSE_TOKEN: tokens.viewer, NO_COLOR: '1' },
      },
    );
    return stdout;
  }

  const main = (page: Page) => page.locator('main');
  const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

  it('the plan page shows the history, the suggestions with their commands and the decision as `recourse errors` does, at every size and theme', async () => {
    await erroredPlan('p-ui');
    const cli = await cliPlain('p-ui');
    const lines = (key: string) =>
      cli
        .split('\n')
        .filter((l) => l.startsWith(`${key}: `))
        .map((l) => l.slice(key.length + 2));
    await atEverySizeAndTheme(
      (viewport, theme) => ui.open({ role: 'operator', viewport, theme, path: '/plans/p-ui' }),
      async (page, viewport, theme) => {
        await expect.poll(() => page.getByTestId('plan-now').count()).toBe(1);
        const text = await main(page).innerText();
        expect(await page.getByTestId('plan-now').innerText()).toBe(
          'Needs your action: the strategize phase failed',
        );
        expect(text).toContain(
          'Error: ValidationError: expected 3 items but got 2 <script>alert(1)</script>',
        );
        expect(await page.locator('main script').count()).toBe(0);
        for (const suggestion of lines('Recovery Suggestion')) expect(text).toContain(`→ ${suggestion}`);
        for (const command of lines('Recovery Command')) expect(text).toContain(`$ ${command}`);
        expect(lines('Recovery Command')).toEqual(['recourse plan correct p-ui']);
        const [retry] = lines('Automatic Retry');
        expect(retry).toBe('not available (strategize failures are not retried)');
        expect(await page.getByTestId('plan-decision').innerText()).toBe(
          '✗ Automatic retry not available (strategize failures are not retried).',
        );
        expect(await page.getByTestId('plan-history-total').innerText()).toBe(
          '2 errors (transient 1, validation 1)',
        );
        const history = page.locator('.plan-history > li');
        expect(await history.count()).toBe(2);
        expect(await history.nth(0).innerText()).toContain('Connection timed out after 30s');
        expect(await history.nth(0).innerText()).toContain('strategize failures are not retried');
        expect(lines('Retry Count')).toEqual(['0/2']);
        expect(text).toContain('0/2');
        // Every action an errored plan allows is offered, each with what it does.
        for (const name of [
          'Retry the phase',
          'Resume with guidance',
          'Correct and run again',
          'Revert to strategize',
          'Cancel the plan',
        ])
          expect(await button(page, name).count()).toBe(1);
        await expectGoodLook(page, viewport, `plans-plan-${viewport}-${theme}`);
      },
    );
  });

  it('[PLN-06] an action is sent and confirmed; a live tab follows it; a stale tab’s action names the revision it saw and is refused (409 stale_revision) with why, and the page shows the plan as it is; Cancel asks first', async () => {
    await erroredPlan('p-act');
    // b lost its event stream, so it goes stale; c follows the plan's events.
    const [a, b, c] = await Promise.all(
      [true, false, true].map((liveEvents) =>
        ui.open({ role: 'operator', path: '/plans/p-act', liveEvents }),
      ),
    );
    for (const open of [a!, b!, c!])
      await expect.poll(() => button(open.page, 'Retry the phase').count()).toBe(1);
    await button(a!.page, 'Retry the phase').click();
    await expect
      .poll(() =>
        a!.page
          .getByTestId('plan-action-outcome')
          .innerText()
          .catch(() => ''),
      )
      .toBe('Retry the phase: done. Running the strategize phase.');
    await expect.poll(() => a!.page.getByTestId('plan-now').innerText()).toBe('Running the strategize phase');
    // Tab c reloads on the plan.changed event of a's action, without being touched.
    await expect.poll(() => c!.page.getByTestId('plan-now').innerText()).toBe('Running the strategize phase');
    await expect.poll(() => button(c!.page, 'Retry the phase').count()).toBe(0);
    // Tab b still shows the errored plan at the revision it loaded: its action names that revision, so it is
    // refused (stale_revision), said in words, nothing changes, and b reloads.
    await button(b!.page, 'Correct and run again').click();
    await expect
      .poll(() =>
        b!.page
          .getByTestId('plan-action-outcome')
          .innerText()
          .catch(() => ''),
      )
      .toBe(
        'Not done: The plan changed since this page loaded it: look again before acting. The page shows the plan as it is now.',
      );
    await expect.poll(() => button(b!.page, 'Correct and run again').count()).toBe(0);
    expect(await button(b!.page, 'Cancel the plan').count()).toBe(1);
    await screenshot(b!.page, 'plans-refused-desktop-light');
    // Cancel asks first; keeping it changes nothing.
    await button(b!.page, 'Cancel the plan').click();
    const dialog = b!.page.getByRole('dialog', { name: 'Cancel this plan?' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await button(b!.page, 'Keep it as it is').click();
    expect(
      (await ui.service.call<{ plan: { state: string } }>('GET', '/v1/plans/p-act/errors')).body.plan.state,
    ).toBe('running');
    await button(b!.page, 'Cancel the plan').click();
    await dialog.getByRole('button', { name: 'Cancel the plan' }).click();
    await expect.poll(() => b!.page.getByTestId('plan-now').innerText()).toBe('Cancelled');
    expect(await main(b!.page).innerText()).toContain('Nothing: the plan is cancelled.');
    // Cancelled elsewhere: c follows that too.
    await expect.poll(() => c!.page.getByTestId('plan-now').innerText()).toBe('Cancelled');
    expectNoPageErrors(a!);
    expectNoPageErrors(b!);
    expectNoPageErrors(c!);
    await Promise.all([a!.context.close(), b!.context.close(), c!.context.close()]);
  });

  it('a viewer sees the errors and the decision live, and no action', async () => {
    expect((await ui.service.call('PUT', '/v1/plans/p-live', {}, 'operator')).status).toBe(200);
    const open = await ui.open({ role: 'viewer', path: '/plans/p-live' });
    const { page } = open;
    await expect.poll(() => main(page).innerText()).toContain('No errors recorded for plan p-live.');
    await page.waitForTimeout(300);
    await record('p-live', { phase: 'strategize', message: 'model_unavailable: the model is not available' });
    await expect
      .poll(() =>
        page
          .getByTestId('plan-history-total')
          .innerText()
          .catch(() => ''),
      )
      .toMatch(/^1 error/);
    expect(await page.getByRole('heading', { name: 'What you can do' }).count()).toBe(0);
    expect(await page.locator('main button:not(.disclosure-button)').count()).toBe(0);
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('the plans list shows each plan’s state in words and its error count, at every size and theme', async () => {
    await erroredPlan('p-list');
    await atEverySizeAndTheme(
      (viewport, theme) => ui.open({ role: 'viewer', viewport, theme, path: '/plans' }),
      async (page, viewport, theme) => {
        const link = page.getByRole('link', { name: 'p-list', exact: true });
        await expect.poll(() => link.count()).toBe(1);
        const row = page.getByRole('row').filter({ has: link });
        expect(await row.innerText()).toContain('Needs your action: the strategize phase failed');
        expect(await row.innerText()).toContain('2 errors');
        await expectGoodLook(page, viewport, `plans-list-${viewport}-${theme}`);
        if (viewport === 'desktop' && theme === 'light') {
          await link.click();
          await expect.poll(() => page.getByTestId('plan-now').count()).toBe(1);
        }
      },
    );
  });
});
