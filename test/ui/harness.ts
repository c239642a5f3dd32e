import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { tokens, type TestRole } from '../helpers/service.js';

/**
 * The UI suites' real parts: the built `recourse serve` (dist/cli/main.js, with the Vite build in dist/web) on
 * a fresh SQLite file, and Debian's Chromium driven by playwright-core (never a downloaded browser).
 */
export const chromiumPath = process.env.RECOURSE_CHROMIUM ?? '/usr/bin/chromium';

export const viewports = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
  small: { width: 320, height: 568 },
} as const;
export type ViewportName = keyof typeof viewports;
export const phoneViewports: readonly ViewportName[] = ['phone', 'small'];
/** Every viewport, desktop first: the sizes each page is checked at. */
export const viewportNames = Object.keys(viewports) as readonly ViewportName[];
export const themes = ['light', 'dark'] as const;
export type ThemeName = (typeof themes)[number];

export interface UiService {
  readonly url: string;
  readonly dir: string;
  readonly database: string;
  /** Calls the API as `role` (default admin) and returns status and parsed body. */
  call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    role?: TestRole,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: T; headers: Headers }>;
  stop(): Promise<void>;
}

/** Starts `recourse serve` as a user would, on a free port, and waits for its start-up line. */
async function startUiService(extraArgs: readonly string[] = []): Promise<UiService> {
  const dir = mkdtempSync(join(tmpdir(), 'recourse-ui-'));
  const database = join(dir, 'recourse.db');
  const tokensFile = join(dir, 'tokens');
  writeFileSync(
    tokensFile,
    Object.entries(tokens)
      .map(([role, token]) => `${role}:${token}`)
      .join('\n'),
  );
  const child: ChildProcess = spawn(
    process.execPath,
    [
      'dist/cli/main.js',
      'serve',
      '--port',
      '0',
      '--db',
      database,
      '--tokens-file',
      tokensFile,
      '--log-level',
      'warn',
      '--ack-timeout',
      '3600',
      ...extraArgs,
    ],
    { env: { ...process.env, RECOURSE_TOKENS: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`recourse serve did not start: ${out}${err}`)), 30_000);
    const look = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', look);
    child.on('exit', (code) => reject(new Error(`recourse serve exited ${String(code)}: ${out}${err}`)));
  });
  return {
    url,
    dir,
    database,
    async call<T>(
      method: string,
      path: string,
      body?: unknown,
      role: TestRole = 'admin',
      headers: Record<string, string> = {},
    ) {
      const response = await fetch(url + path, {
        method,
        headers: {
          authorization: `Bearer ${tokens[role]}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return {
        status: response.status,
        body: (text === '' ? null : JSON.parse(text)) as T,
        headers: response.headers,
      };
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface OpenPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Browser console errors and uncaught page errors seen so far (a test asserts none). */
  readonly errors: string[];
}

/** How a test opens a page: as whom, at what size and theme, where, and with what browser clock. */
export interface SignInOptions {
  readonly role?: TestRole;
  readonly viewport?: ViewportName;
  readonly path?: string;
  readonly theme?: ThemeName;
  readonly clockOffsetMs?: number;
  /** False: the page's event stream is cut (a tab that lost it), so the page goes stale until it reloads. */
  readonly liveEvents?: boolean;
}

/**
 * A fresh browser context at `viewport`, signed in as `role` through the `/?token=` exchange (the cookie), on
 * `path`. `clockOffsetMs` moves the browser's clock (Date) without touching the server's.
 */
async function openSignedIn(
  browser: Browser,
  service: UiService,
  options: SignInOptions = {},
): Promise<OpenPage> {
  const context = await browser.newContext({
    viewport: viewports[options.viewport ?? 'desktop'],
    colorScheme: options.theme ?? 'light',
    reducedMotion: 'reduce',
  });
  if (options.clockOffsetMs !== undefined) await shiftBrowserClock(context, options.clockOffsetMs);
  if (options.liveEvents === false) await context.route('**/v1/events**', (route) => route.abort());
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // A 401/404/409 the page handles is logged by Chromium as a failed resource load: not a page defect.
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text()))
      errors.push(`console: ${message.text()}`);
  });
  await page.goto(`${service.url}/?token=${tokens[options.role ?? 'admin']}`);
  await page.waitForURL(/\/routes$/);
  if (options.path !== undefined && options.path !== '/routes') {
    await page.goto(service.url + options.path);
  }
  return { context, page, errors };
}

/** One UI test file's service and browser, through accessors that are valid once its `beforeAll` has run. */
export interface UiSuite {
  readonly service: UiService;
  readonly browser: Browser;
  /** The service's base URL (`http://127.0.0.1:PORT`, no trailing slash). */
  readonly url: string;
  /** A fresh context signed in on this suite's browser and service (see `SignInOptions`). */
  open(options?: SignInOptions): Promise<OpenPage>;
}

/**
 * Registers, in the calling file or `describe`, the hooks every UI suite needs: `beforeAll` starts the service and
 * Chromium side by side and then runs `prepare` (a suite's seed data), `afterAll` closes the browser and stops the
 * service. Whatever started is stopped even when the other part or `prepare` failed, so no process outlives a file.
 */
export function useUiSuite(prepare?: (service: UiService) => Promise<void>): UiSuite {
  let service: UiService | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    const [started, launched] = await Promise.allSettled([startUiService(), launchChromium()]);
    if (started.status === 'fulfilled') service = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    await prepare?.(started.value);
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });
  const running = () => {
    if (service === undefined || browser === undefined)
      throw new Error('the UI suite is used before its beforeAll started the service and the browser');
    return { service, browser };
  };
  return {
    get service() {
      return running().service;
    },
    get browser() {
      return running().browser;
    },
    get url() {
      return running().service.url;
    },
    open: (options) => openSignedIn(running().browser, running().service, options),
  };
}

/** Every `Date` in the page reads the clock moved by `offsetMs` (timers are untouched). */
export async function shiftBrowserClock(context: BrowserContext, offsetMs: number): Promise<void> {
  await context.addInitScript((offset: number) => {
    const RealDate = Date;
    class ShiftedDate extends RealDate {
      constructor(...args: ConstructorParameters<DateConstructor> | []) {
        if (args.length === 0) super(RealDate.now() + offset);
        else super(...(args as [string]));
      }
      static override now(): number {
        return RealDate.now() + offset;
      }
    }
    (globalThis as { Date: DateConstructor }).Date = ShiftedDate as DateConstructor;
  }, offsetMs);
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's violations on the page as it is (WCAG 2.0/2.1 A and AA rules, plus best practices). */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol, so the page's Content-Security-Policy does not block it.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{
            violations: Array<{ id: string; help: string; nodes: Array<{ target: unknown[] }> }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return result.violations.map(
      (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`,
    );
  });
  return violations;
}

/**
 * The phone layout's promises (UI-10): no horizontal document overflow, one scroll owner (the document), and
 * every visible control at least 44 x 44 CSS px. Returns the problems found (empty when the page keeps them).
 */
export async function phoneLayoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > window.innerWidth)
      problems.push(`document is ${root.scrollWidth}px wide in a ${window.innerWidth}px viewport`);
    const describe = (e: Element) =>
      `${e.tagName.toLowerCase()}${e.id === '' ? '' : `#${e.id}`} "${(e.textContent ?? '').trim().slice(0, 40)}"${
        e.getAttribute('aria-label') === null ? '' : ` [${e.getAttribute('aria-label')}]`
      }`;
    for (const element of document.querySelectorAll('body *')) {
      const style = getComputedStyle(element);
      if (
        (['auto', 'scroll'].includes(style.overflowY) && element.scrollHeight > element.clientHeight) ||
        (['auto', 'scroll'].includes(style.overflowX) && element.scrollWidth > element.clientWidth)
      )
        problems.push(`a second scroll owner: ${describe(element)}`);
    }
    for (const element of document.querySelectorAll('button, a, input, select, summary, [role=switch]')) {
      const box = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      if (box.width === 0 && box.height === 0) continue; // not rendered (hidden section)
      if (style.visibility === 'hidden' || element.closest('[hidden]') !== null) continue;
      if (element.classList.contains('skip-link') && box.left < 0) continue; // shown on focus only
      if (box.width < 44 || box.height < 44)
        problems.push(`${describe(element)} is ${Math.round(box.width)}x${Math.round(box.height)}`);
    }
    return problems;
  });
}

const artifacts = join(process.cwd(), 'test-artifacts', 'ui');

/** Saves a full-page screenshot as a test artifact (test-artifacts/ui/NAME.png). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}

/**
 * The look every page keeps as it is now (UI-10): at a phone `viewport` no phone layout problem, at any size no axe
 * violation; then saved as the screenshot `screenshotName`. `label` names the state in a failure's message.
 */
export async function expectGoodLook(
  page: Page,
  viewport: ViewportName,
  screenshotName: string,
  label?: string,
): Promise<void> {
  if (phoneViewports.includes(viewport)) expect(await phoneLayoutProblems(page), label).toEqual([]);
  expect(await axeViolations(page), label).toEqual([]);
  await screenshot(page, screenshotName);
}

/**
 * Opens a page with `openAt` at every viewport in each theme in turn, runs `check` on it, then expects no page error
 * and closes its context before the next: the sweep a page's look is tested in.
 */
export async function atEverySizeAndTheme(
  openAt: (viewport: ViewportName, theme: ThemeName) => Promise<OpenPage>,
  check: (page: Page, viewport: ViewportName, theme: ThemeName) => Promise<void>,
): Promise<void> {
  for (const viewport of viewportNames) {
    for (const theme of themes) {
      const open = await openAt(viewport, theme);
      await check(open.page, viewport, theme);
      expectNoPageErrors(open);
      await open.context.close();
    }
  }
}

/** Fails with the page's own errors listed, if it logged any. */
export function expectNoPageErrors(open: OpenPage): void {
  expect(open.errors).toEqual([]);
}
