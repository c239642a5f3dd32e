// Scores the classifier (dist/, as built) on corpus-format files: code accuracy, unsafe predictions and timing
// hints, per file, by corpus/README.md's rules. `--misses` lists what was wrong (leave it off for a hold-out).
//   node scripts/score-corpus.mjs [--misses] FILE...
import { classify } from '../dist/core/index.js';
import { readCorpusFile, replayNow, scoreRecord, toEnvelope } from '../test/helpers/corpus.mjs';

const args = process.argv.slice(2);
const showMisses = args.includes('--misses');
const files = args.filter((a) => a !== '--misses');
if (files.length === 0) {
  console.error('usage: node scripts/score-corpus.mjs [--misses] FILE...');
  process.exit(2);
}
for (const file of files) {
  const records = readCorpusFile(file);
  let right = 0;
  let scored = 0;
  let timed = 0;
  const unsafe = [];
  const misses = [];
  for (const record of records) {
    const out = classify(toEnvelope(record), { now: replayNow(record) });
    const score = scoreRecord(record, out);
    if (score.right) right++;
    else
      misses.push(`${record.id}: want ${record.code}, got ${out.code}/${out.class} (${out.classifier_rule})`);
    if (score.unsafe) unsafe.push(`${record.id}: ${out.code}/${out.class}`);
    if (score.timing !== null) {
      scored++;
      if (score.timing) timed++;
    }
  }
  const pct = (a, b) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)} %`);
  console.log(
    `${file}: ${records.length} records, code right ${right} (${pct(right, records.length)}), unsafe ${unsafe.length}, timing ${timed}/${scored} (${pct(timed, scored)})`,
  );
  if (showMisses)
    for (const line of [...unsafe.map((u) => `UNSAFE ${u}`), ...misses]) console.log(`  ${line}`);
}
