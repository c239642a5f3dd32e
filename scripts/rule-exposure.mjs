// How wide each transient rule is: over the development files, every rule that matches a record (not only the
// winner), and per rule of class transient its
//   support  matches on records labelled with the rule's code (or accepting it in `also`),
//   exposure matches on records labelled not_provider or unclassified that `also` does not accept the code for,
//            whatever the final answer was,
//   rescued  how many of the exposed records another rule won (and answered safely),
//   unsafe   how many of the exposed records this rule won with a transient answer.
// A rule with exposure and no unsafe answer is kept safe only by the rules that outrank it on the development
// text; on text the project has never seen those rescuers may be absent (docs/classification.md, "Exposure").
// Sorted by exposure / support (support 0 counts as 1), then by exposure.
//
// Run on dist/ as built (`npx tsc -p tsconfig.build.json` first):
//   node scripts/rule-exposure.mjs                      the table, over the three development files
//   node scripts/rule-exposure.mjs --show RULE_ID...    and the exposed records of those rules, with their text
//   node scripts/rule-exposure.mjs --top N              only the first N rows (default all with exposure)
// Development files only: a hold-out is scored by its totals (scripts/score-corpus.mjs), never read record by record.
import { catalogueRules, classOfCode, explainEvidence, parseEnvelope } from '../dist/core/index.js';
import { readCorpus, replayNow, scoreRecord, toEnvelope } from '../test/helpers/corpus.mjs';

const developmentFiles = [
  'collected-2026-12.dev.jsonl',
  'provider-errors.dev.jsonl',
  'seed-system-examples.jsonl',
];

const args = process.argv.slice(2);
const show = new Set();
let top = Infinity;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--top') top = Number(args[++i]);
  else if (args[i] === '--show')
    while (i + 1 < args.length && !args[i + 1].startsWith('--')) show.add(args[++i]);
  else {
    console.error('usage: node scripts/rule-exposure.mjs [--top N] [--show RULE_ID...]');
    process.exit(2);
  }
}

const rulesById = new Map(catalogueRules.map((rule) => [rule.id, rule]));
/** @type {Map<string, {support: number, exposure: number, rescued: number, unsafe: number, exposed: string[]}>} */
const stats = new Map();
const statOf = (id) => {
  let s = stats.get(id);
  if (s === undefined) stats.set(id, (s = { support: 0, exposure: 0, rescued: 0, unsafe: 0, exposed: [] }));
  return s;
};
let exposedRecords = 0;
let unsafeRecords = 0;
let noneRecords = 0;

for (const file of developmentFiles) {
  for (const record of readCorpus(file)) {
    const parsed = parseEnvelope(toEnvelope(record));
    if (!parsed.ok) continue;
    const { classification, matches } = explainEvidence(parsed.evidence, { now: replayNow(record) });
    const score = scoreRecord(record, classification);
    const also = record.also ?? [];
    const seen = new Set();
    let exposedHere = false;
    if (record.class === 'none') noneRecords++;
    if (score.unsafe) unsafeRecords++;
    for (const match of matches) {
      if (seen.has(match.rule) || classOfCode(match.code) !== 'transient') continue;
      seen.add(match.rule);
      const s = statOf(match.rule);
      if (record.code === match.code || also.includes(match.code)) s.support++;
      else if (record.class === 'none') {
        s.exposure++;
        exposedHere = true;
        const won = classification.classifier_rule === match.rule && classification.class === 'transient';
        if (won) s.unsafe++;
        else s.rescued++;
        const by = won ? 'UNSAFE' : `rescued by ${classification.classifier_rule ?? '(none)'}`;
        if (show.has(match.rule))
          s.exposed.push(`  ${record.id} [${record.code}] ${by}\n    ${oneLine(record.body)}`);
      }
    }
    if (exposedHere) exposedRecords++;
  }
}

function oneLine(text) {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 600 ? `${flat.slice(0, 600)}…` : flat;
}

const rows = [...stats.entries()]
  .filter(([, s]) => s.exposure > 0)
  .sort(
    ([, a], [, b]) =>
      b.exposure / Math.max(1, b.support) - a.exposure / Math.max(1, a.support) || b.exposure - a.exposure,
  );
const totalExposure = rows.reduce((sum, [, s]) => sum + s.exposure, 0);
console.log(
  `transient rules exposed: ${rows.length}; exposure (rule, record pairs): ${totalExposure}; ` +
    `not_provider/unclassified records matched by some transient rule: ${exposedRecords} of ${noneRecords}; ` +
    `unsafe answers: ${unsafeRecords}`,
);
console.log('exposure support rescued unsafe  conf    tier          rule (code)');
for (const [id, s] of rows.slice(0, top)) {
  const rule = rulesById.get(id);
  const tier = `${rule?.generic ? 'g-' : ''}${rule?.tier ?? '?'}`;
  console.log(
    `${String(s.exposure).padStart(8)} ${String(s.support).padStart(7)} ${String(s.rescued).padStart(7)} ` +
      `${String(s.unsafe).padStart(6)}  ${(rule?.confidence ?? '?').padEnd(7)} ${tier.padEnd(13)} ${id} (${rule?.code})`,
  );
}
for (const id of show) {
  console.log(`\n${id}: exposed on`);
  for (const line of stats.get(id)?.exposed ?? []) console.log(line);
}
