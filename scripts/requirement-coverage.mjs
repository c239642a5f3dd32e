// Which requirement ids the tests name: `node scripts/requirement-coverage.mjs REQUIREMENTS.md [PREFIX ...]`.
// Reads the requirement ids of the catalogue (bold `**ID**` lines) and the ids named in square brackets in test
// titles under test/, and prints per area how many are named, then the ids still unnamed. A development aid: the
// requirements catalogue lives outside the repository, so no test depends on it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [catalogue, ...prefixes] = process.argv.slice(2);
if (catalogue === undefined) {
  process.stderr.write('usage: node scripts/requirement-coverage.mjs REQUIREMENTS.md [PREFIX ...]\n');
  process.exit(2);
}
const ids = [...readFileSync(catalogue, 'utf8').matchAll(/\*\*([A-Z]{2,4}-\d{2})\*\*/g)].map((m) => m[1]);
const files = (dir) =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
const named = new Set();
for (const file of files('test')) {
  for (const m of readFileSync(file, 'utf8').matchAll(/\[([A-Z]{2,4}-\d{2})\]/g)) named.add(m[1]);
}
const wanted = prefixes.length === 0 ? ids : ids.filter((id) => prefixes.includes(id.split('-')[0]));
const byArea = new Map();
for (const id of wanted) {
  const area = id.split('-')[0];
  const row = byArea.get(area) ?? { all: 0, named: 0, missing: [] };
  row.all += 1;
  if (named.has(id)) row.named += 1;
  else row.missing.push(id);
  byArea.set(area, row);
}
let all = 0;
let hit = 0;
for (const [area, row] of byArea) {
  all += row.all;
  hit += row.named;
  process.stdout.write(
    `${area.padEnd(4)} ${row.named}/${row.all}${row.missing.length ? `  missing: ${row.missing.join(' ')}` : ''}\n`,
  );
}
process.stdout.write(`total ${hit}/${all} (${((100 * hit) / Math.max(1, all)).toFixed(1)} %)\n`);
