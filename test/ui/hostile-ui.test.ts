import { describe, expect, it } from 'vitest';
import { expectNoPageErrors, phoneLayoutProblems, useUiSuite } from './harness.js';
import { tokens } from '../helpers/service.js';
import { openAll, section, seedProfile } from './profiles-fixtures.js';
import { fail, failingSession, rateLimited, startRoute } from './routes-fixtures.js';

/**
 * A hostile user's probes, in Chromium against the built `recourse serve`: odd ids in addresses, a dropped and
 * resumed event stream, keyboard use across actions and dialogs, signing out and going back.
 */
const ui = useUiSuite();

function countdownSeconds(text: string): number {
  if (text === 'Due now') return 0;
  const match = /^in (?:(\d+) h)? ?(?:(\d+) min)? ?(?:(\d+) s)?$/.exec(text);
  if (match === null) throw new Error(`not a countdown: ${text}`);
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
}

describe('hostile addresses', () => {
  it('unknown, odd and very long ids say "not found" in words, keep the phone layout and log no error', async () => {
    const long = 'x'.repeat(300);
    const paths = [
      '/routes/nope',
      `/routes/${encodeURIComponent('ünï-😀')}`,
      `/routes/${long}`,
      '/sessions/x?task_id=y',
      '/sessions/x',
      '/plans/%00',
      `/plans/${long}`,
      '/profiles/nope',
      `/profiles/${long}`,
    ];
    const open = await ui.open({ viewport: 'small' });
    const problems: string[] = [];
    for (const path of paths) {
      const answer = await open.page.goto(ui.url + path);
      if (answer?.headers()['content-type']?.includes('text/html') !== true) {
        problems.push(`${path}: answered ${answer?.status()} ${answer?.headers()['content-type']}`);
        continue;
      }
      await open.page.locator('main h1').first().waitFor();
      await open.page
        .getByRole('alert')
        .first()
        .waitFor({ timeout: 5_000 })
        .catch(() => {
          problems.push(`${path}: no alert`);
        });
      for (const p of await phoneLayoutProblems(open.page)) problems.push(`${path}: ${p}`);
    }
    expect(problems).toEqual([]);
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('a route whose id has a slash, a dot, a colon or an at sign opens from its address', async () => {
    const seeded = await startRoute(ui.service, 'odd-ids');
    const problems: string[] = [];
    for (const id of ['team/a', 'v1.2', 'a:b@c/d.e', 'a/..']) {
      const started = await ui.service.call(
        'POST',
        '/v1/routes',
        { route_id: id, profile_id: `p-${seeded.id}` },
        'adapter',
      );
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      const open = await ui.open({ path: `/routes/${encodeURIComponent(id)}` });
      const headline = await open.page
        .locator('.route-headline')
        .innerText({ timeout: 5_000 })
        .catch(() => null);
      if (headline === null) problems.push(`${id}: no route shown at ${open.page.url()}`);
      expectNoPageErrors(open);
      await open.context.close();
    }
    expect(problems).toEqual([]);
  });
});

describe('keyboard', () => {
  it('after Cancel wait from the keyboard the focus is not lost to the page body', async () => {
    await fail(ui.service, await startRoute(ui.service, 'k-cancel'), rateLimited(30));
    const open = await ui.open({ role: 'operator', path: '/routes/k-cancel' });
    const { page } = open;
    await page.locator('.route-headline').waitFor();
    await page.getByRole('button', { name: 'Cancel wait' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.route-headline').innerText()).toBe('Needs your action');
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('BODY');
    // From there the next Tab reaches the actions the new state offers.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Retry now');
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('Escape cancels the Stop dialog and the focus returns to Stop', async () => {
    await fail(ui.service, await startRoute(ui.service, 'k-stop'), rateLimited(30));
    const open = await ui.open({ role: 'operator', path: '/routes/k-stop' });
    const { page } = open;
    await page.locator('.route-headline').waitFor();
    await page.getByRole('button', { name: 'Stop', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keep it as it is');
    // The native modal dialog keeps the page behind inert: Tab never reaches it (it may pass the browser's own UI).
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      expect(
        await page.evaluate(
          () =>
            document.activeElement === document.body || document.activeElement?.closest('dialog') !== null,
        ),
      ).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Stop');
    // A second Stop opens the dialog again (the page's state followed the Escape).
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    expect((await ui.service.call<{ state: string }>('GET', '/v1/routes/k-stop')).body.state).toBe(
      'retry_wait',
    );
    expectNoPageErrors(open);
    await open.context.close();
  });
});

describe('signing out', () => {
  it('after Sign out the back button shows the sign-in form, not the data', async () => {
    await fail(ui.service, await startRoute(ui.service, 's-back'), rateLimited(30));
    const open = await ui.open({ path: '/routes/s-back' });
    const { page } = open;
    await page.locator('.route-headline').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Recourse' }).waitFor();
    await page.goBack();
    await page.waitForTimeout(500);
    expect(await page.locator('.route-headline').count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Sign in to Recourse' }).count()).toBe(1);
    await open.context.close();
  });

  it('a stream the service refuses once the cookie is gone brings the sign-in form, not "Reconnecting…" for ever', async () => {
    const open = await ui.open();
    const { page, context } = open;
    await page
      .getByTestId('connection')
      .filter({ hasText: /^Live$/ })
      .waitFor();
    await context.clearCookies(); // as when the cookie expires
    // The page's first question is answered as it was before the cookie went (the page believes it is signed in),
    // and the board's list too, so only the event stream meets the service's 401: the page must notice it there.
    await page.route('**/v1/routes?*', (r) => r.fulfill({ json: { routes: [], next_cursor: null } }));
    // (React's StrictMode may ask twice at start: both are answered.)
    let answered = 0;
    await page.route('**/v1/me', async (r) => {
      if (answered === 2) return r.continue();
      answered += 1;
      return r.fulfill({ json: { role: 'admin', server_time: new Date().toISOString() } });
    });
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Recourse' }).waitFor({ timeout: 20_000 });
    expect(answered).toBeGreaterThan(0);
    await context.close();
  });

  it('a forged cookie shows the sign-in form', async () => {
    const context = await ui.browser.newContext();
    await context.addCookies([{ name: 'recourse_session', value: 'forged.value', url: ui.url }]);
    const page = await context.newPage();
    await page.goto(`${ui.url}/routes`);
    await page.getByRole('heading', { name: 'Sign in to Recourse' }).waitFor();
    await context.close();
  });
});

describe('the event stream dropped and resumed', () => {
  it('countdowns stay anchored to the server clock after the stream replays older events', async () => {
    const route = await startRoute(ui.service, 'e-resume');
    const open = await ui.open({ role: 'viewer' });
    const { page } = open;
    const newest = await newestEventId();
    // Hold the stream: every connection ends at once at the current id, so the browser keeps reconnecting.
    let hold = true;
    await page.route('**/v1/events', async (r) => {
      if (!hold) return r.continue();
      await r.fulfill({
        status: 200,
        contentType: 'text/event-stream',
        body: `retry: 300\nid: ${newest}\n\n`,
      });
    });
    await page.goto(`${ui.url}/routes/e-resume`);
    await page.locator('.route-headline').waitFor();
    // While the stream is down the route starts a wait; the page hears of it 6 s later, from the log.
    const waiting = await fail(ui.service, route, rateLimited(30));
    await page.waitForTimeout(6_000);
    hold = false;
    await expect
      .poll(() => page.locator('.route-headline').innerText(), { timeout: 10_000 })
      .toMatch(/^Waiting to retry/);
    await page.waitForTimeout(300);
    const shown = countdownSeconds(await page.getByRole('timer').innerText());
    const truth = Math.ceil((Date.parse(waiting.deadline_at!) - Date.now()) / 1000);
    expect(Math.abs(shown - truth)).toBeLessThanOrEqual(1);
    expectNoPageErrors(open);
    await open.context.close();
  });
});

/** The id of the newest event in the service's log (the stream's first comment says it). */
async function newestEventId(): Promise<string> {
  const controller = new AbortController();
  const response = await fetch(`${ui.url}/v1/events`, {
    headers: { authorization: `Bearer ${tokens.admin}` },
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!/resumable from id (\d+)/.test(text)) text += decoder.decode((await reader.read()).value);
  controller.abort();
  return /resumable from id (\d+)/.exec(text)![1]!;
}

describe('the policy editor under hostile input', () => {
  it('every hostile value is refused beside its field at once, nothing is sent, never "Saved"', async () => {
    await seedProfile(ui.service, 'h-input');
    const open = await ui.open({ viewport: 'small', path: '/profiles/h-input' });
    const { page } = open;
    await openAll(page);
    const transient = section(page, 0, 'Transient errors');
    const hard = section(page, 0, 'Hard errors');
    let puts = 0;
    page.on('request', (r) => {
      if (r.method() === 'PUT') puts++;
    });
    const values = ['1e309', 'NaN', '5x', '３', '-2', '99999999999', ' ', 'Infinity', '0x10', '1,5'];
    for (const value of values) {
      await transient.getByLabel('Maximum retries').fill(value);
      await transient.getByLabel('Initial interval').fill(value);
      await hard.getByLabel('Maximum wait').fill(value);
      for (const field of [
        transient.getByLabel('Maximum retries'),
        transient.getByLabel('Initial interval'),
        hard.getByLabel('Maximum wait'),
      ])
        expect(await field.getAttribute('aria-invalid'), value).toBe('true');
      expect(await page.locator('.field-error').count(), value).toBeGreaterThanOrEqual(3);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      const outcome = page.getByTestId('save-outcome');
      await expect.poll(() => outcome.innerText()).toContain('Not saved.');
      expect(await transient.getByLabel('Maximum retries').inputValue()).toBe(value);
    }
    expect(puts).toBe(0);
    expect(await phoneLayoutProblems(page)).toEqual([]);
    expect((await ui.service.call('GET', '/v1/profiles/h-input')).body).toMatchObject({ version: 1 });
    expectNoPageErrors(open);
    await open.context.close();
  });

  it('an edit typed while a save is in flight is kept, not replaced by the saved copy', async () => {
    await seedProfile(ui.service, 'h-typing');
    const open = await ui.open({ path: '/profiles/h-typing' });
    const { page } = open;
    await openAll(page);
    const transient = section(page, 0, 'Transient errors');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/v1/profiles/h-typing', async (r) => {
      if (r.request().method() === 'PUT') await held;
      await r.continue();
    });
    await transient.getByLabel('Maximum retries').fill('4');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('button', { name: 'Saving…' }).waitFor();
    // The person keeps typing while the first save travels.
    await transient.getByLabel('Initial interval').fill('9s');
    release();
    await expect.poll(() => page.getByTestId('save-outcome').innerText()).toContain('stored version 2');
    expect(await transient.getByLabel('Initial interval').inputValue()).toBe('9s');
    expect(await transient.getByLabel('Maximum retries').inputValue()).toBe('4');
    expect(await page.locator('main').innerText()).toContain('unsaved changes');
    expect(await page.getByTestId('save-outcome').innerText()).toContain(
      'the edits you made while it was saving are not saved yet',
    );
    const stored = (await ui.service.call('GET', '/v1/profiles/h-typing')).body as {
      candidates: Array<{ policy: { transient: { retry: unknown } } }>;
    };
    expect(stored.candidates[0]!.policy.transient.retry).toEqual({
      enabled: true,
      max_retries: 4,
      initial_interval_seconds: 5,
    });
    expectNoPageErrors(open);
    await open.context.close();
  });
});

describe('the retry card from the keyboard', () => {
  it('after Cancel the focus moves to the Resume / Start fresh choice, not the page body', async () => {
    await failingSession(ui.service, { taskId: 'task-k', sessionId: 'k-session' }, 50);
    const open = await ui.open({ role: 'operator', path: '/sessions/k-session?task_id=task-k' });
    const { page } = open;
    const cancel = page
      .getByRole('region', { name: 'Retrying automatically' })
      .getByRole('button', { name: 'Cancel', exact: true });
    await cancel.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'Needs your choice' }).waitFor();
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('BODY');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Resume');
    expectNoPageErrors(open);
    await open.context.close();
  });
});
