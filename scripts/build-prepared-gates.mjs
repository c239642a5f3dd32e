// Part of `npm run build`, after tsc: writes dist/core/classify/prepared-gates.js, the gates of every rule pattern of
// the shipped catalogue (src/core/classify/prepared-gates.ts says why), computed by the built code itself. The
// module is replaced whole; its declaration file (an empty table's type) stays as tsc wrote it.
//   node scripts/build-prepared-gates.mjs
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { catalogueRules } from '../dist/core/index.js';
import { BranchTable, PrunedPattern } from '../dist/core/classify/pruned-pattern.js';

const target = fileURLToPath(new URL('../dist/core/classify/prepared-gates.js', import.meta.url));

/** Every pattern a compiled rule runs through `PrunedPattern` (its text, its veto and its anchor), by flags and source. */
const entries = new Map();
for (const rule of catalogueRules) {
  for (const pattern of [rule.when.text, rule.when.unless, rule.when.anchorWhenUnnamed]) {
    if (!(pattern instanceof RegExp)) continue;
    const key = `${pattern.flags}/${pattern.source}`;
    if (!entries.has(key))
      entries.set(key, new PrunedPattern(pattern, new BranchTable(new Map())).gatesForBuild());
  }
}

const json = JSON.stringify([...entries]);
writeFileSync(
  target,
  '// Written by scripts/build-prepared-gates.mjs (npm run build): see src/core/classify/prepared-gates.ts.\n' +
    `export const preparedGates = new Map(JSON.parse(${JSON.stringify(json)}));\n`,
);
console.log(`prepared gates: ${entries.size} patterns, ${Math.round(json.length / 1024)} KiB`);
