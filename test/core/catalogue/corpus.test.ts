import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedDir } from '../../helpers/shared-dir.js';
import { classify } from '../../../src/core/index.js';

interface CorpusItem {
  readonly id: string;
  readonly code: string;
  readonly provider: string;
  readonly body: string;
}
interface CorpusTools {
  readJsonl(path: string): CorpusItem[];
  toEnvelope(item: CorpusItem): unknown;
  scoreOne(item: CorpusItem, out: unknown): { ok: boolean; unsafe: boolean };
}

const shared = sharedDir();
// The corpus README's mapping and scoring, used exactly as every measurement uses them.
const tools = (await import(resolve(shared, 'tools/corpus.mjs'))) as CorpusTools;
const files = readdirSync(resolve(shared, 'corpus')).filter((f) => f.endsWith('.jsonl'));
const now = Date.parse('2026-06-01T12:00:00Z');

describe('[CLS-01][CLS-16][CLS-20] labelled corpus replay', () => {
  it.each(files)('%s: at least 98%% code accuracy and no unsafe prediction', (file) => {
    const items = tools.readJsonl(resolve(shared, 'corpus', file));
    expect(items.length).toBeGreaterThan(10);
    const misses: string[] = [];
    const unsafe: string[] = [];
    for (const item of items) {
      const out = classify(tools.toEnvelope(item), { now });
      const score = tools.scoreOne(item, out);
      if (!score.ok)
        misses.push(`${item.id}: want ${item.code}, got ${out.code}/${out.class} (${out.classifier_rule})`);
      if (score.unsafe) unsafe.push(`${item.id}: ${out.code}/${out.class}`);
    }
    const accuracy = (items.length - misses.length) / items.length;
    expect(unsafe, 'not_provider/unclassified items classified transient or hard').toEqual([]);
    expect(accuracy, misses.join('\n')).toBeGreaterThanOrEqual(0.98);
  });
});

describe('[CLS-03] every provider and agent family of the corpus has fixtures', () => {
  it('gives each family at least one fixture classified transient or hard', async () => {
    const { loadFixtures } = await import('../../helpers/fixtures.js');
    const classified = new Set<string>();
    for (const f of loadFixtures()) {
      const e = f.evidence as { provider?: string; agent?: string };
      if (f.expect.class === 'transient' || f.expect.class === 'hard') {
        if (e.provider) classified.add(e.provider);
        if (e.agent) classified.add(e.agent);
      }
    }
    const families = new Set<string>();
    for (const file of files)
      for (const item of tools.readJsonl(resolve(shared, 'corpus', file))) families.add(item.provider);
    const missing = [...families].filter((family) => !classified.has(family)).sort();
    expect(missing).toEqual([]);
  });
});
