// Part of `npm run build`, after tsc: writes dist/core/classify/prepared-gates.js, the gates of every rule pattern of
// the shipped catalogue and of every scan from the start of the text among their branches
// (src/core/classify/prepared-gates.ts says why), computed by the built code itself. The module is replaced whole;
// its declaration file (empty tables' types) stays as tsc wrote it.
//   node scripts/build-prepared-gates.mjs
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { catalogueRules } from '../dist/core/index.js';
import { BranchTable, PrunedPattern } from '../dist/core/classify/pruned-pattern.js';
import { nearOf } from '../dist/core/classify/compiled-catalogue.js';

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
/** The gates of every `near` condition's patterns, run with the `g` flag (`nearOf`), by flags and source. */
const nearGates = new Map();
for (const rule of catalogueRules) {
  if (rule.when.near === undefined) continue;
  const near = nearOf(rule.when.near, new Map());
  for (const [pattern, gate] of [
    [near.anchor, near.anchorGate],
    [near.word, near.wordGate],
  ])
    nearGates.set(`${pattern.flags}/${pattern.source}`, gate.wordsForBuild());
}

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
/** Where each of `parts` is in `text`, as [start, end] pairs: a scan's alternatives and lookahead are cut from it. */
function spans(text, parts) {
  let from = 0;
  return parts.map((part) => {
    const start = text.indexOf(part, from);
    if (start < 0) throw new Error(`not in the scan: ${part}`);
    from = start + part.length;
    return [start, from];
  });
}
const scanList = [...scans].map(([key, s]) => {
  const { look, limit, alternatives } = s.shape;
  const source = sourceOf(key);
  return [
    flagsOf(key),
    piece(source),
    look === null ? null : [...spans(source, [look.source])[0], look.limit],
    limit,
    spans(source, alternatives).flat(),
    list(s.alternatives),
    s.look === null ? null : list(s.look),
  ];
});
const json = JSON.stringify({ pieces, patterns, scans: scanList, near: [...nearGates] });
writeFileSync(
  target,
  `// Written by scripts/build-prepared-gates.mjs (npm run build): see src/core/classify/prepared-gates.ts.
const { pieces, patterns, scans, near } = JSON.parse(${JSON.stringify(json)});
const gates = ([words, starts, covers, coverStarts, firstCover]) => ({ words, starts, covers, coverStarts, firstCover });
export const preparedGates = new Map(
  patterns.map(([flags, branchPieces, sourcePiece, ...lists]) => {
    const branches = branchPieces === null ? null : branchPieces.map((index) => pieces[index]);
    const source = branches === null ? pieces[sourcePiece] : branches.join('|');
    return [\`\${flags}/\${source}\`, { branches, ...gates(lists) }];
  }),
);
function shapeOf(source, look, limit, spans) {
  const alternatives = [];
  for (let i = 0; i < spans.length; i += 2) alternatives.push(source.slice(spans[i], spans[i + 1]));
  return { look: look === null ? null : { source: source.slice(look[0], look[1]), limit: look[2] }, limit, alternatives };
}
export const preparedScans = new Map(
  scans.map(([flags, sourcePiece, look, limit, spans, alternatives, lookGates]) => [
    \`\${flags}/\${pieces[sourcePiece]}\`,
    {
      shape: shapeOf(pieces[sourcePiece], look, limit, spans),
      alternatives: gates(alternatives),
      look: lookGates === null ? null : gates(lookGates),
    },
  ]),
);
export const preparedNearGates = new Map(near);
`,
);
console.log(
  `prepared gates: ${entries.size} patterns, ${scans.size} scans, ${nearGates.size} near patterns, ` +
    `${Math.round(json.length / 1024)} KiB`,
);
