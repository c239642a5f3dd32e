import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../helpers/fixtures.js';
import { corpusFiles, readCorpus, replayNow, scoreRecord, toEnvelope } from '../../helpers/corpus.mjs';
import { classify, type Classification } from '../../../src/core/index.js';

type CorpusRecord = ReturnType<typeof readCorpus>[number];

/**
 * Each corpus file's records with the classifier's answer, each replayed at the instant it was observed (relative
 * hints are measured from there). Classified once per file: the accuracy and the timing tests read the same answers.
 */
const replays = new Map<string, Array<{ record: CorpusRecord; out: Classification }>>();
function replay(file: string): Array<{ record: CorpusRecord; out: Classification }> {
  let replayed = replays.get(file);
  if (replayed === undefined) {
    replayed = readCorpus(file).map((record) => ({
      record,
      out: classify(toEnvelope(record), { now: replayNow(record) }),
    }));
    replays.set(file, replayed);
  }
  return replayed;
}

describe('[CLS-01][CLS-16][CLS-20] labelled corpus replay', () => {
  it('finds every corpus file in the repository', () => {
    expect(corpusFiles).toEqual([
      'collected-2026-12.dev.jsonl',
      'provider-errors.dev.jsonl',
      'seed-system-examples.jsonl',
    ]);
  });

  // 97.4 %: above issue 10's 97 % target. It was 98.3 % until the model-call anchor
  // (src/core/catalogue/model-call-anchor.ts) gave up 16 development answers from unnamed sources for fewer unsafe
  // answers on text the project has never seen (docs/classification.md), and 97.7 % until round 32 added 64 records
  // from peer projects' own test suites, six of which no shape rule reads (corpus/README.md, "Round 32"), and 97.6 %
  // until round 33 added 64 more of that genre, nine left unread (corpus/README.md, "Round 33").
  it.each(corpusFiles)('%s: at least 97.4%% code accuracy and no unsafe prediction', (file) => {
    const records = replay(file);
    expect(records.length).toBeGreaterThan(10);
    const misses: string[] = [];
    const unsafe: string[] = [];
    for (const { record, out } of records) {
      const score = scoreRecord(record, out);
      if (!score.right)
        misses.push(
          `${record.id}: want ${record.code}, got ${out.code}/${out.class} (${out.classifier_rule})`,
        );
      if (score.unsafe) unsafe.push(`${record.id}: ${out.code}/${out.class}`);
    }
    const accuracy = (records.length - misses.length) / records.length;
    expect(unsafe, 'not_provider/unclassified records classified transient or hard').toEqual([]);
    expect(accuracy, misses.join('\n')).toBeGreaterThanOrEqual(0.974);
  });
});

describe('[CLS-01][CLS-23] labelled timing hints', () => {
  it('gives at least 95% of the labelled delays and resets within tolerance', () => {
    const misses: string[] = [];
    let scored = 0;
    for (const { record, out } of corpusFiles.flatMap(replay)) {
      const timing = scoreRecord(record, out).timing;
      if (timing === null) continue;
      scored++;
      if (!timing)
        misses.push(
          `${record.id}: want ${record.retry_after_seconds ?? record.reset_at}, got ${out.retry_after}/${out.reset_at}`,
        );
    }
    expect(scored).toBeGreaterThan(10);
    expect((scored - misses.length) / scored, misses.join('\n')).toBeGreaterThanOrEqual(0.95);
  });
});

describe('[CLS-03] every provider and agent family of the corpus has fixtures', () => {
  it('gives each family at least one fixture classified transient or hard', () => {
    const classified = new Set<string>();
    for (const f of loadFixtures()) {
      const e = f.evidence as { provider?: string; agent?: string };
      if (f.expect.class === 'transient' || f.expect.class === 'hard') {
        if (e.provider) classified.add(e.provider);
        if (e.agent) classified.add(e.agent);
      }
    }
    // Families the corpus shows failing with a provider code (one whose only records are a content filter or a
    // local error has nothing to classify as transient or hard).
    const families = new Set(
      corpusFiles.flatMap((file) =>
        readCorpus(file)
          .filter((record) => record.class !== 'none')
          .map((record) => record.provider),
      ),
    );
    const missing = [...families].filter((family) => !classified.has(family)).sort();
    expect(missing).toEqual([]);
  });
});
