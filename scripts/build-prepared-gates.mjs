// Part of `npm run build`, after tsc: writes dist/core/classify/prepared-gates.js, the gates of every rule pattern of
// the shipped catalogue and of every scan from the start of the text among their branches
// (src/core/classify/prepared-gates.ts says why), computed by the built code itself. The module is replaced whole;
// its declaration file (empty tables' types) stays as tsc wrote it.
//   node scripts/build-prepared-gates.mjs
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { catalogueRules } from '../dist/core/index.js';
import { BranchTable, PrunedPattern } from '../dist/core/classify/pruned-pattern.js';

const target = fileURLToPath(new URL('../dist/core/classify/prepared-gates.js', import.meta.url));

// One table without prepared gates for every pattern, as a compiled catalogue shares one: it meets every scan.
const table = new BranchTable(new Map(), new Map());
/** Every pattern a compiled rule runs through `PrunedPattern` (its text, its veto and its anchor), by flags and source. */
const entries = new Map();
for (const rule of catalogueRules) {
  for (const pattern of [rule.when.text, rule.when.unless, rule.when.anchorWhenUnnamed]) {
    if (!(pattern instanceof RegExp)) continue;
    const key = `${pattern.flags}/${pattern.source}`;
    if (!entries.has(key)) entries.set(key, new PrunedPattern(pattern, table).gatesForBuild());
  }
}
const scans = table.scansForBuild();

/**
 * The text of every source and branch, each once: the scans' sources, 16-26 thousand characters each, are branches of
 * some 30 patterns, so a table of keys written out in full would repeat them (five sixths of its characters).
 */
const pieces = [];
const pieceIndex = new Map();
function piece(text) {
  let index = pieceIndex.get(text);
  if (index === undefined) {
    index = pieces.push(text) - 1;
    pieceIndex.set(text, index);
  }
  return index;
}
const sourceOf = (key) => key.slice(key.indexOf('/') + 1);
const flagsOf = (key) => key.slice(0, key.indexOf('/'));

const list = (g) => [g.words, g.starts, g.covers, g.coverStarts, g.firstCover];
const patterns = [...entries].map(([key, g]) => {
  // A split pattern's source is its branches joined by bars (the build checks it here); the module joins them back.
  if (g.branches !== null && g.branches.join('|') !== sourceOf(key))
    throw new Error(`branches do not join: ${key}`);
  return [
    flagsOf(key),
    g.branches === null ? null : g.branches.map(piece),
    g.branches === null ? piece(sourceOf(key)) : -1,
    ...list(g),
  ];
});
const scanList = [...scans].map(([key, s]) => [
  flagsOf(key),
  piece(sourceOf(key)),
  list(s.alternatives),
  s.look === null ? null : list(s.look),
]);
const json = JSON.stringify({ pieces, patterns, scans: scanList });
writeFileSync(
  target,
  `// Written by scripts/build-prepared-gates.mjs (npm run build): see src/core/classify/prepared-gates.ts.
const { pieces, patterns, scans } = JSON.parse(${JSON.stringify(json)});
const gates = ([words, starts, covers, coverStarts, firstCover]) => ({ words, starts, covers, coverStarts, firstCover });
export const preparedGates = new Map(
  patterns.map(([flags, branchPieces, sourcePiece, ...lists]) => {
    const branches = branchPieces === null ? null : branchPieces.map((index) => pieces[index]);
    const source = branches === null ? pieces[sourcePiece] : branches.join('|');
    return [\`\${flags}/\${source}\`, { branches, ...gates(lists) }];
  }),
);
export const preparedScans = new Map(
  scans.map(([flags, sourcePiece, alternatives, look]) => [
    \`\${flags}/\${pieces[sourcePiece]}\`,
    { alternatives: gates(alternatives), look: look === null ? null : gates(look) },
  ]),
);
`,
);
console.log(
  `prepared gates: ${entries.size} patterns, ${scans.size} scans, ${Math.round(json.length / 1024)} KiB`,
);
