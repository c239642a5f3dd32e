import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One catalogue fixture line: evidence, the expected classification, and the rules it must not match. */
export interface CatalogueFixture {
  readonly id: string;
  readonly file: string;
  readonly line: number;
  readonly evidence: unknown;
  readonly expect: {
    readonly code: string | null;
    readonly class: 'transient' | 'hard' | 'unclassified';
    readonly classifier_rule: string | null;
    readonly reason?: string;
    readonly retry_after?: string | null;
    readonly reset_at?: string | null;
  };
  /** Rules that must not match this evidence at all. */
  readonly negative_for?: readonly string[];
  /** Rules that must also match (and lose): pins a collision. */
  readonly collides_with?: readonly string[];
  /** The classifier's clock: the timing origin when the evidence has no `observed_at` (or one too far ahead). */
  readonly now?: string;
  readonly source?: string;
  readonly note?: string;
}

export const fixturesDir = new URL('../../catalogue/fixtures/', import.meta.url).pathname;

const allowedKeys = new Set([
  'id',
  'evidence',
  'expect',
  'negative_for',
  'collides_with',
  'now',
  'source',
  'note',
]);

export function loadFixtures(): CatalogueFixture[] {
  const fixtures: CatalogueFixture[] = [];
  for (const file of readdirSync(fixturesDir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    const lines = readFileSync(join(fixturesDir, file), 'utf8').split('\n');
    lines.forEach((text, index) => {
      if (text.trim() === '') return;
      const value = JSON.parse(text) as Record<string, unknown>;
      for (const key of Object.keys(value)) {
        if (!allowedKeys.has(key)) throw new Error(`${file}:${index + 1}: unknown fixture key ${key}`);
      }
      fixtures.push({ ...(value as unknown as CatalogueFixture), file, line: index + 1 });
    });
  }
  return fixtures;
}
