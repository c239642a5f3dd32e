import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { readCorpusFile, replayNow, scoreRecord, toEnvelope } from '../../helpers/corpus.mjs';
import { classify } from '../../../src/core/index.js';

/**
 * Safety audit 2 (catalogue 2026.12.05-17, docs/classification.md): hand-written near misses (a tool or service
 * around the agent failing at a host that serves no model) and provider counterparts (a model provider's failure
 * naming its host, a model path on a gateway or a local model server's port). Batch 1 was written before
 * `local.foreign_host.v1` and measured before and after it; batch 2 was written after the rule and never used to
 * tune it. The figures pinned here are the ones the audit reports: a rule change that makes them worse fails.
 */
const batches = [
  // [file, near misses read unsafe at most]
  ['batch-1.jsonl', 2],
  ['batch-2.jsonl', 3],
] as const;

describe('[CLS-04] safety audit 2: near misses at hosts that serve no model', () => {
  it.each(batches)(
    '%s: near misses unsafe at most %i, every provider counterpart a provider code',
    (file, most) => {
      const records = readCorpusFile(fileURLToPath(new URL(`./safety-audit-2/${file}`, import.meta.url)));
      const unsafe: string[] = [];
      const lost: string[] = [];
      for (const record of records) {
        const out = classify(toEnvelope(record), { now: replayNow(record) });
        if (scoreRecord(record, out).unsafe)
          unsafe.push(`${record.id}: ${out.code} (${out.classifier_rule})`);
        if (record.class !== 'none' && out.class === 'unclassified' && out.classifier_rule !== null)
          lost.push(`${record.id}: ${out.code} (${out.classifier_rule})`);
      }
      expect(unsafe.length, unsafe.join('\n')).toBeLessThanOrEqual(most);
      expect(lost).toEqual([]);
    },
  );
});
