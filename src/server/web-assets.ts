import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built web UI (Vite's `dist/web/`), read once at start: `index.html` and the hashed files under `assets/`. */
export interface WebAssets {
  readonly index: Buffer;
  /** By path under `assets/` with `/` separators (`index-3f2a.js`). */
  readonly assets: ReadonlyMap<string, WebAsset>;
}

interface WebAsset {
  readonly body: Buffer;
  readonly type: string;
}

/** The content types served; a file with another extension is not served at all. */
const contentTypes: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** A Vite build is a few hundred KiB; more than this is not a UI build and is not loaded into memory. */
const maxTotalBytes = 32 * 1024 * 1024;

/**
 * Where the build sits relative to this module: `dist/server/` -> `dist/web/`; run from the sources
 * (`src/server/`, as vitest does) -> `dist/web/` of the checkout.
 */
export function defaultWebRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const inDist = here.split(sep).slice(-2).join('/') === 'dist/server';
  return inDist ? join(here, '..', 'web') : join(here, '..', '..', 'dist', 'web');
}

/**
 * Reads the UI from `root`; null when there is none (no `index.html`): the server keeps its plain landing page.
 * Only regular files under `assets/` with a known extension are kept, so nothing else in the folder is served.
 */
export function loadWebAssets(root: string | null): WebAssets | null {
  if (root === null) return null;
  const indexPath = join(root, 'index.html');
  if (!existsSync(indexPath) || !statSync(indexPath).isFile()) return null;
  const assets = new Map<string, WebAsset>();
  const folder = join(root, 'assets');
  let total = 0;
  if (existsSync(folder)) {
    for (const name of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
      const path = join(folder, name);
      const type = contentTypes[extname(name).toLowerCase()];
      if (type === undefined || !statSync(path).isFile()) continue;
      const body = readFileSync(path);
      total += body.length;
      if (total > maxTotalBytes)
        throw new Error(`the web UI in ${root} is larger than ${maxTotalBytes} bytes`);
      assets.set(relative(folder, path).split(sep).join('/'), { body, type });
    }
  }
  return { index: readFileSync(indexPath), assets };
}

/**
 * The asset a request names (the part after `/assets/`), or null: anything that could step out of the folder
 * (`..`, a backslash, NUL, a percent-encoded dot or slash in the raw URL) is refused before the lookup, though
 * the lookup alone only ever finds a file read at start.
 */
export function assetOf(web: WebAssets, rawUrl: string, name: string): WebAsset | null {
  const rawPath = rawUrl.split('?')[0]!;
  if (/%2e|%2f|%5c|%00/i.test(rawPath)) return null;
  if (name.includes('\\') || name.includes('\0') || name.split('/').some((s) => s === '..' || s === '.')) {
    return null;
  }
  return web.assets.get(name) ?? null;
}

/** The paths the UI routes on the client: each answers with `index.html`. */
export const uiPaths = ['/profiles', '/routes', '/sessions', '/plans'] as const;

/** Headers of every HTML answer: the UI loads only its own scripts, styles and API, and is never framed. */
export const htmlSecurityHeaders: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
