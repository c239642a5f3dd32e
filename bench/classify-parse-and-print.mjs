// The floor of `npm run bench:classify-cli`: read a JSON Lines file, parse each line and print a small JSON answer
// per line, nothing else. No classifier can cost less than this per evidence through a CLI.
//   node bench/classify-parse-and-print.mjs FILE > out
import { readFileSync } from 'node:fs';

const out = [];
for (const line of readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (line.trim() === '') continue;
  const value = JSON.parse(line);
  out.push(JSON.stringify({ kind: value.kind ?? null, code: null, class: 'unclassified' }));
}
process.stdout.write(`${out.join('\n')}\n`);
