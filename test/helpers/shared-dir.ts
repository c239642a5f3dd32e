import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The workplace's shared folder (seeds, corpus, scoring tools): `../shared` beside the project, or
 * RECOURSE_SHARED_DIR. Tests that need it fail loudly when it is missing rather than skip.
 */
export function sharedDir(): string {
  const root = new URL('../../', import.meta.url).pathname;
  const candidates = [process.env.RECOURSE_SHARED_DIR, resolve(root, '../shared'), '/work/shared'].filter(
    (d): d is string => typeof d === 'string' && d !== '',
  );
  const found = candidates.find((d) => existsSync(resolve(d, 'corpus')));
  if (found === undefined)
    throw new Error(`shared folder not found (tried ${candidates.join(', ')}); set RECOURSE_SHARED_DIR`);
  return found;
}
