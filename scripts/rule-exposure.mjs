// How wide each provider rule is: over the development files, every rule that matches a record (not only the
// winner), and per rule of the class measured (transient by default, hard with `--class hard`, both with `--all`) its
//   support  matches on records labelled with the rule's code (or accepting it in `also`),
//   exposure matches on records labelled not_provider or unclassified that `also` does not accept the code for,
//            whatever the final answer was,
//   rescued  how many of the exposed records another rule won (and answered safely),
//   unsafe   how many of the exposed records this rule won with its own class's answer.
// A rule with exposure and no unsafe answer is kept safe only by the rules that outrank it on the development
// text; on text the project has never seen those rescuers may be absent (docs/classification.md, "Exposure").
// Sorted by exposure / support (support 0 counts as 1), then by exposure.
//
// Run on dist/ as built (`npx tsc -p tsconfig.build.json` first):
//   node scripts/rule-exposure.mjs                      the table, over the three development files
//   node scripts/rule-exposure.mjs --show RULE_ID...    and the exposed records of those rules, with their text
//   node scripts/rule-exposure.mjs --top N              only the first N rows (default all with exposure)
//   node scripts/rule-exposure.mjs --class hard         the hard rules instead (a hard answer on such a record is
//                                                       as unsafe: the route skips or stops on evidence it misread)
//   node scripts/rule-exposure.mjs --all                transient and hard rules, one table each
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
/** @type {string[]} */
let classes = ['transient'];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--top') top = Number(args[++i]);
  else if (args[i] === '--class' && ['transient', 'hard'].includes(args[i + 1])) classes = [args[++i]];
  else if (args[i] === '--all') classes = ['transient', 'hard'];
  else if (args[i] === '--show')
    while (i + 1 < args.length && !args[i + 1].startsWith('--')) show.add(args[++i]);
  else {
    console.error(
      'usage: node scripts/rule-exposure.mjs [--class transient|hard | --all] [--top N] [--show RULE_ID...]',
    );
    process.exit(2);
  }
}

const rulesById = new Map(catalogueRules.map((rule) => [rule.id, rule]));
const unknown = [...show].filter((id) => !rulesById.has(id));
if (args.includes('--show') && show.size === 0) fail('--show needs at least one rule id');
if (unknown.length > 0) fail(`--show: no rule of the catalogue has the id ${unknown.join(', ')}`);
if (!(top === Infinity || (Number.isInteger(top) && top > 0))) fail('--top needs a whole number above 0');

/** One line on standard error, exit 2: a usage mistake, never an empty table. */
function fail(message) {
  console.error(`rule-exposure: ${message}`);
  process.exit(2);
}
/** @type {Map<string, {support: number, exposure: number, rescued: number, unsafe: number, exposed: string[]}>} */
const stats = new Map();
const statOf = (id) => {
  let s = stats.get(id);
  if (s === undefined) stats.set(id, (s = { support: 0, exposure: 0, rescued: 0, unsafe: 0, exposed: [] }));
  return s;
};
/** Per class measured: the records labelled no provider failure that some rule of that class matched. */
const exposedRecords = new Map(classes.map((cls) => [cls, 0]));
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
    const exposedHere = new Set();
    if (record.class === 'none') noneRecords++;
    if (score.unsafe) unsafeRecords++;
    for (const match of matches) {
      const cls = classOfCode(match.code);
      if (seen.has(match.rule) || !classes.includes(cls)) continue;
      seen.add(match.rule);
      const s = statOf(match.rule);
      if (record.code === match.code || also.includes(match.code)) s.support++;
      else if (record.class === 'none') {
        s.exposure++;
        exposedHere.add(cls);
        const won = classification.classifier_rule === match.rule && classification.class === cls;
        if (won) s.unsafe++;
        else s.rescued++;
        const by = won ? 'UNSAFE' : `rescued by ${classification.classifier_rule ?? '(none)'}`;
        if (show.has(match.rule))
          s.exposed.push(`  ${record.id} [${record.code}] ${by}\n    ${oneLine(record.body)}`);
      }
    }
    for (const cls of exposedHere) exposedRecords.set(cls, (exposedRecords.get(cls) ?? 0) + 1);
  }
}

function oneLine(text) {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 600 ? `${flat.slice(0, 600)}…` : flat;
}

for (const cls of classes) printTable(cls);

/** One class's table: the header line, then a row per exposed rule of that class. */
function printTable(cls) {
  const rows = [...stats.entries()]
    .filter(([id, s]) => s.exposure > 0 && classOfCode(rulesById.get(id)?.code) === cls)
    .sort(
      ([, a], [, b]) =>
        b.exposure / Math.max(1, b.support) - a.exposure / Math.max(1, a.support) || b.exposure - a.exposure,
    );
  const totalExposure = rows.reduce((sum, [, s]) => sum + s.exposure, 0);
  if (cls !== classes[0]) console.log('');
  console.log(
    `${cls} rules exposed: ${rows.length}; exposure (rule, record pairs): ${totalExposure}; ` +
      `not_provider/unclassified records matched by some ${cls} rule: ${exposedRecords.get(cls)} of ${noneRecords}; ` +
      `unsafe answers: ${unsafeRecords}`,
  );
  // A low-confidence rule that wins answers `unclassified` (src/core/classify), so only the others can act on a record.
  const canAnswer = rows.filter(([id]) => rulesById.get(id)?.confidence !== 'low');
  console.log(
    `of which by rules that can answer (confidence above low): ${canAnswer.length} rules, ` +
      `${canAnswer.reduce((sum, [, s]) => sum + s.exposure, 0)} pairs`,
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
}
for (const id of show) {
  console.log(`\n${id}: exposed on`);
  for (const line of stats.get(id)?.exposed ?? []) console.log(line);
}
