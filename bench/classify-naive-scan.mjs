// The naive baseline of `npm run bench:classify-cli`: what a quick script would do instead of Recourse. For each
// line of a JSON Lines file it tries 150 keyword regular expressions on the raw text, first hit wins, and prints
// that keyword's code (or `unknown`): one line of output per line of input. The keywords are the catalogue's own,
// a spread of 150 of them, so the scan reads the same words the classifier indexes.
//   node bench/classify-naive-scan.mjs FILE > out
import { readFileSync } from 'node:fs';
import { catalogueRules } from '../dist/core/index.js';

const keywords = new Map();
for (const rule of catalogueRules) for (const word of rule.when.keywords ?? []) keywords.set(word, rule.code);
const all = [...keywords];
const step = all.length / 150;
const scans = Array.from({ length: 150 }, (_, i) => {
  const [word, code] = all[Math.floor(i * step)];
  return [new RegExp(`\\b${word}\\b`, 'i'), code];
});

const out = [];
for (const line of readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (line.trim() === '') continue;
  let code = 'unknown';
  for (const [pattern, found] of scans) {
    if (pattern.test(line)) {
      code = found;
      break;
    }
  }
  out.push(code);
}
process.stdout.write(`${out.join('\n')}\n`);
